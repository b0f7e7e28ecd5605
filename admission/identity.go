package admission

import (
	"slices"

	authenticationv1 "k8s.io/api/authentication/v1"
)

// Identities tells disco's own components from users.
type Identities struct {
	// Components are the usernames of the manager and the facade: the only writers of
	// claims, their status and their tiers (the facade and the ClaimPromotion reconciler
	// decide tier moves with internal/promotion).
	Components []string
	// Collectors may delete claims on their own: the garbage collector and the namespace
	// controller, which remove a claim with its run or its tenant.
	Collectors []string
}

// DefaultCollectors are the identities kube-controller-manager deletes dependents with
// (its controllers run under these service accounts with --use-service-account-credentials).
var DefaultCollectors = []string{
	"system:serviceaccount:kube-system:generic-garbage-collector",
	"system:serviceaccount:kube-system:namespace-controller",
}

// ServiceAccountUser is the username of a service account.
func ServiceAccountUser(namespace, name string) string {
	return "system:serviceaccount:" + namespace + ":" + name
}

func (ids Identities) isComponent(u authenticationv1.UserInfo) bool {
	return slices.Contains(ids.Components, u.Username)
}

func (ids Identities) isCollector(u authenticationv1.UserInfo) bool {
	return slices.Contains(ids.Collectors, u.Username) || slices.Contains(DefaultCollectors, u.Username)
}
