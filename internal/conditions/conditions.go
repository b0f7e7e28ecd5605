// Package conditions sets the status conditions of disco's kinds, after cluster-api's
// util/conditions: every condition is stamped with the generation of the object it
// describes. The types and reasons are the constants of api/v1alpha1 (conditions.go).
package conditions

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Set sets a condition on conds, stamped with obj's generation, and reports whether it
// changed anything (meta.SetStatusCondition: the transition time moves only with the status).
func Set(conds *[]metav1.Condition, obj metav1.Object, typ string, status metav1.ConditionStatus, reason, message string) bool {
	return meta.SetStatusCondition(conds, metav1.Condition{
		Type:               typ,
		Status:             status,
		Reason:             reason,
		Message:            message,
		ObservedGeneration: obj.GetGeneration(),
	})
}
