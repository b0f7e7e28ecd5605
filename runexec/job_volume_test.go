package runexec

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// A file:// blob store is a directory the manager, the facade and every engine pod must
// share: the Job mounts the configured volume at the URL's directory.
func TestJobForMountsTheBlobVolume(t *testing.T) {
	run := &discov1.Run{ObjectMeta: metav1.ObjectMeta{Name: "run-01jabcdefghjkmnpqrstvwxyz0", Namespace: "disco-t"}}
	hostPath := &corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/srv/disco/blobs"}}

	x := &JobExecutor{Image: "disco:dev", BlobURL: "file:///var/lib/disco/blobs?no_tmp_dir=true", BlobVolume: hostPath}
	pod := x.JobFor(run, "", "ten_x").Spec.Template.Spec
	var vol *corev1.Volume
	for i := range pod.Volumes {
		if pod.Volumes[i].Name == "blobs" {
			vol = &pod.Volumes[i]
		}
	}
	if vol == nil || vol.HostPath == nil || vol.HostPath.Path != "/srv/disco/blobs" {
		t.Fatalf("volumes %+v: want the blob volume", pod.Volumes)
	}
	var mounted string
	for _, m := range pod.Containers[0].VolumeMounts {
		if m.Name == "blobs" {
			mounted = m.MountPath
			if m.ReadOnly {
				t.Errorf("the engine writes results: the blob mount must be writable")
			}
		}
	}
	if mounted != "/var/lib/disco/blobs" {
		t.Fatalf("blob volume mounted at %q, want the file URL's directory /var/lib/disco/blobs", mounted)
	}
	hostPath.HostPath.Path = "/changed"
	if vol.HostPath.Path != "/srv/disco/blobs" {
		t.Errorf("the Job shares the executor's volume source instead of a copy")
	}

	// Without a volume, or with a store that is not a directory, the pod mounts nothing more.
	for _, x := range []*JobExecutor{
		{Image: "disco:dev", BlobURL: "file:///var/lib/disco/blobs"},
		{Image: "disco:dev", BlobURL: "s3://bucket?region=us-east-1", BlobVolume: hostPath},
	} {
		pod := x.JobFor(run, "", "ten_x").Spec.Template.Spec
		if len(pod.Volumes) != 1 || len(pod.Containers[0].VolumeMounts) != 1 {
			t.Errorf("%s: volumes %+v mounts %+v, want only scratch", x.BlobURL, pod.Volumes, pod.Containers[0].VolumeMounts)
		}
	}
}
