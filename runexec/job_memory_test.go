package runexec

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// The engine's Go runtime is told 90 % of the container's memory limit (GOMEMLIMIT),
// for the configured limit and for the default of 1Gi.
func TestJobForSetsTheSoftMemoryLimit(t *testing.T) {
	run := &discov1.Run{ObjectMeta: metav1.ObjectMeta{Name: "run-01jabcdefghjkmnpqrstvwxyz0", Namespace: "disco-t"}}
	for _, c := range []struct {
		memory resource.Quantity
		want   string
	}{
		{resource.MustParse("4Gi"), "3865470561"},
		{resource.Quantity{}, "966367638"},
	} {
		x := &JobExecutor{Image: "disco:dev", Memory: c.memory}
		ctr := x.JobFor(run, "", "ten_x").Spec.Template.Spec.Containers[0]
		limit := ctr.Resources.Limits.Memory().Value()
		got := ""
		for _, e := range ctr.Env {
			if e.Name == "GOMEMLIMIT" {
				got = e.Value
			}
		}
		if got != c.want {
			t.Errorf("memory limit %d bytes: GOMEMLIMIT %q, want %q (90 %%)", limit, got, c.want)
		}
	}
}
