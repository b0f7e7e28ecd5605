package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"time"

	"github.com/go-logr/logr"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/index"
)

// The parent passes a child its variant, the control plane's kubeconfig and the heap
// profile's path in the environment.
const (
	childEnv      = "DISCO_MANAGERMEM_VARIANT"
	kubeconfigEnv = "DISCO_MANAGERMEM_KUBECONFIG"
	profileEnv    = "DISCO_MANAGERMEM_PROFILE"
)

// snapshot is the process's memory at one moment, after two garbage collections.
type snapshot struct {
	LiveHeap    float64 `json:"live_heap_bytes"`    // /gc/heap/live:bytes: marked by the last GC
	HeapObjects float64 `json:"heap_objects_bytes"` // /memory/classes/heap/objects:bytes
	Objects     float64 `json:"heap_objects"`       // /gc/heap/objects:objects
	HeapInuse   float64 `json:"heap_inuse_bytes"`   // MemStats.HeapInuse: spans in use
	GoTotal     float64 `json:"go_total_bytes"`     // /memory/classes/total:bytes: all memory the runtime mapped
	RSS         float64 `json:"rss_bytes"`          // /proc/self/status VmRSS
	RSSAnon     float64 `json:"rss_anon_bytes"`     // RssAnon
	PeakRSS     float64 `json:"peak_rss_bytes"`     // VmHWM: the largest resident set so far
}

type measurement struct {
	Variant     string         `json:"variant"`
	Before      snapshot       `json:"before"`
	After       snapshot       `json:"after"`
	SyncSeconds float64        `json:"sync_seconds"`
	Cached      map[string]int `json:"cached"`
	Profile     string         `json:"profile,omitempty"`
}

func init() {
	if os.Getenv(childEnv) != "" {
		runtime.MemProfileRate = 64 << 10 // a finer heap profile than the default 512 KiB
	}
}

func newScheme() (*kruntime.Scheme, error) {
	s := kruntime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		return nil, err
	}
	return s, discov1.AddToScheme(s)
}

// watched are the kinds whose informers the manager opens: its controllers' For, Owns and
// Watches (controllers/*SetupWithManager) and the kinds its reconcilers read through the
// cached client.
func watched(metadataClaims bool) []client.Object {
	var claim client.Object = &discov1.Claim{}
	if metadataClaims {
		m := &metav1.PartialObjectMetadata{}
		m.SetGroupVersionKind(discov1.GroupVersion.WithKind("Claim"))
		claim = m
	}
	return []client.Object{
		&discov1.Tenant{}, &discov1.Project{}, &discov1.Campaign{}, &discov1.Run{}, claim,
		&discov1.ClaimPromotion{}, &discov1.Dataset{},
		&batchv1.Job{}, &corev1.Namespace{}, &corev1.ResourceQuota{}, &corev1.LimitRange{}, &corev1.Secret{},
		&rbacv1.Role{}, &rbacv1.RoleBinding{},
	}
}

func child(name string) error {
	ctrl.SetLogger(logr.Discard())
	v, ok := variantByName(name)
	if !ok {
		return fmt.Errorf("unknown variant %q", name)
	}
	rc, err := clientcmd.BuildConfigFromFlags("", os.Getenv(kubeconfigEnv))
	if err != nil {
		return err
	}
	rc.QPS, rc.Burst = -1, 0
	scheme, err := newScheme()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	mgr, err := ctrl.NewManager(rc, ctrl.Options{Scheme: scheme, Cache: v.options(),
		Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0"})
	if err != nil {
		return err
	}
	if err := index.Register(ctx, filteredIndexer{FieldIndexer: mgr.GetFieldIndexer(), keep: v.indexes}); err != nil {
		return err
	}
	m := measurement{Variant: name, Before: settle()}

	start := time.Now()
	errs := make(chan error, 1)
	go func() { errs <- mgr.Start(ctx) }()
	for _, obj := range watched(v.metadataClaims) {
		if _, err := mgr.GetCache().GetInformer(ctx, obj); err != nil {
			return fmt.Errorf("informer %T: %w", obj, err)
		}
	}
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		select {
		case err := <-errs:
			return fmt.Errorf("cache did not sync: %w", err)
		default:
			return fmt.Errorf("cache did not sync")
		}
	}
	m.SyncSeconds = time.Since(start).Seconds()
	m.Cached = map[string]int{}
	for _, obj := range watched(v.metadataClaims) {
		gvk, err := mgr.GetClient().GroupVersionKindFor(obj)
		if err != nil {
			return err
		}
		var list client.ObjectList = &metav1.PartialObjectMetadataList{}
		list.GetObjectKind().SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if _, partial := obj.(*metav1.PartialObjectMetadata); !partial {
			typed, err := mgr.GetScheme().New(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
			if err != nil {
				return err
			}
			list = typed.(client.ObjectList)
		}
		if err := mgr.GetCache().List(ctx, list, client.UnsafeDisableDeepCopy); err != nil {
			return err
		}
		m.Cached[gvk.Kind] = meta.LenList(list)
	}
	m.After = settle()
	if p := os.Getenv(profileEnv); p != "" {
		f, err := os.Create(p)
		if err != nil {
			return err
		}
		if err := pprof.WriteHeapProfile(f); err != nil {
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		m.Profile = p
	}
	runtime.KeepAlive(mgr)
	return json.NewEncoder(os.Stdout).Encode(m)
}

// settle collects garbage twice (the second sweeps what the first found unreachable, and
// runs finalizers' frees) and reads the heap.
func settle() snapshot {
	runtime.GC()
	runtime.GC()
	samples := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/gc/heap/objects:objects"}, {Name: "/memory/classes/total:bytes"}}
	metrics.Read(samples)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	val := func(s metrics.Sample) float64 {
		if s.Value.Kind() == metrics.KindUint64 {
			return float64(s.Value.Uint64())
		}
		return 0
	}
	return snapshot{LiveHeap: val(samples[0]), HeapObjects: val(samples[1]), Objects: val(samples[2]), GoTotal: val(samples[3]),
		HeapInuse: float64(ms.HeapInuse), RSS: procStatusBytes("self", "VmRSS"), RSSAnon: procStatusBytes("self", "RssAnon"), PeakRSS: procStatusBytes("self", "VmHWM")}
}
