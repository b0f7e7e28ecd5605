package controllers

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/log"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// profileQueueSize is how many datasets may wait for a profiling worker; beyond it the
// reconciler asks again later.
const profileQueueSize = 64

// profileJob is one dataset handed to the profiling workers.
type profileJob struct {
	uid  types.UID
	ds   *discov1.Dataset // a copy taken when the job was submitted
	keys DatasetKeys

	finished bool // set under profileQueue.mu
	result   ProfileResult
	err      error
}

// profileQueue runs profiles on a fixed number of workers, off the reconcile worker. A
// job stays in the queue until the reconciler has stored its outcome (done), or the
// dataset is gone (forget). Each finished job is announced on finished, which the
// reconciler watches, so the dataset is reconciled again at once.
type profileQueue struct {
	profiler Profiler
	workers  int
	jobs     chan *profileJob
	finished chan event.GenericEvent

	mu      sync.Mutex
	pending map[types.NamespacedName]*profileJob
}

func newProfileQueue(p Profiler, workers int) *profileQueue {
	return &profileQueue{
		profiler: p,
		workers:  max(workers, 1),
		jobs:     make(chan *profileJob, profileQueueSize),
		finished: make(chan event.GenericEvent, profileQueueSize),
		pending:  map[types.NamespacedName]*profileJob{},
	}
}

// lookup returns the dataset's job, or nil if it has none for this incarnation (uid).
func (q *profileQueue) lookup(key types.NamespacedName, uid types.UID) *profileJob {
	q.mu.Lock()
	defer q.mu.Unlock()
	job := q.pending[key]
	if job == nil || job.uid != uid {
		return nil
	}
	return job
}

// submit hands the dataset to the workers; false means the queue is full. A job of an
// earlier incarnation of the same name is replaced once it has finished.
func (q *profileQueue) submit(key types.NamespacedName, ds *discov1.Dataset, keys DatasetKeys) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if old := q.pending[key]; old != nil && !old.finished {
		return false
	}
	job := &profileJob{uid: ds.UID, ds: ds.DeepCopy(), keys: keys}
	select {
	case q.jobs <- job:
		q.pending[key] = job
		return true
	default:
		return false
	}
}

// done drops a job whose outcome is stored.
func (q *profileQueue) done(key types.NamespacedName, job *profileJob) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.pending[key] == job {
		delete(q.pending, key)
	}
}

// forget drops the finished job of a dataset that no longer exists; a running one is
// dropped when it finishes and its reconcile finds the dataset gone.
func (q *profileQueue) forget(key types.NamespacedName) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if job := q.pending[key]; job != nil && job.finished {
		delete(q.pending, key)
	}
}

// Start runs the workers until ctx ends (manager.Runnable). A profiler with a scratch
// directory prepares it first, deleting what a killed process left there.
func (q *profileQueue) Start(ctx context.Context) error {
	if p, ok := q.profiler.(interface {
		scratchDir(context.Context) (string, error)
	}); ok {
		if _, err := p.scratchDir(ctx); err != nil {
			// Every profile will fail with this error, in its dataset's condition.
			log.FromContext(ctx).Error(err, "the profiling scratch directory is unusable")
		}
	}
	var wg sync.WaitGroup
	for range q.workers {
		wg.Go(func() { q.work(ctx) })
	}
	wg.Wait()
	return nil
}

// NeedLeaderElection is false: workers only run jobs the reconciler (which runs on the
// leader) submits.
func (q *profileQueue) NeedLeaderElection() bool { return false }

func (q *profileQueue) work(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case job := <-q.jobs:
			res, err := q.profiler.Profile(ctx, job.ds, job.keys)
			q.mu.Lock()
			job.result, job.err, job.finished = res, err, true
			q.mu.Unlock()
			select {
			case q.finished <- event.GenericEvent{Object: client.Object(job.ds)}:
			case <-ctx.Done():
				return
			}
		}
	}
}
