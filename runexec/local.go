package runexec

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/log"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// LocalExecutor runs discovery in-process on a bounded pool of workers. It is a manager
// Runnable: runs start only after the manager started it, and stop with it (a run stopped
// by shutdown stays running in its status and is resumed by the next process).
type LocalExecutor struct {
	Exec    *Execution
	Workers int

	mu     sync.Mutex
	ctx    context.Context
	active map[types.NamespacedName]context.CancelFunc
	slots  chan struct{}
	wg     sync.WaitGroup
	ready  chan struct{}
	once   sync.Once
}

func (x *LocalExecutor) init() {
	x.once.Do(func() {
		n := x.Workers
		if n <= 0 {
			n = 2
		}
		x.slots = make(chan struct{}, n)
		x.active = map[types.NamespacedName]context.CancelFunc{}
		x.ready = make(chan struct{})
	})
}

// Start implements manager.Runnable.
func (x *LocalExecutor) Start(ctx context.Context) error {
	x.init()
	x.mu.Lock()
	x.ctx = ctx
	x.mu.Unlock()
	close(x.ready)
	<-ctx.Done()
	x.wg.Wait()
	return nil
}

// NeedLeaderElection: only the leader executes runs.
func (x *LocalExecutor) NeedLeaderElection() bool { return true }

// Submit queues the run for a worker. The execution's context is the executor's, not the
// caller's: a run outlives the reconcile that submitted it and stops with the manager.
func (x *LocalExecutor) Submit(_ context.Context, run *discov1.Run) (bool, error) {
	x.init()
	key := types.NamespacedName{Namespace: run.Namespace, Name: run.Name}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.ctx == nil {
		return false, nil // not started yet; the reconciler retries
	}
	if _, ok := x.active[key]; ok {
		return false, nil
	}
	ctx, cancel := context.WithCancel(x.ctx)
	x.active[key] = cancel
	run = run.DeepCopy()
	x.wg.Add(1)
	go func() {
		defer x.wg.Done()
		defer func() {
			x.mu.Lock()
			delete(x.active, key)
			x.mu.Unlock()
			cancel()
		}()
		select {
		case x.slots <- struct{}{}:
		case <-ctx.Done():
			return
		}
		defer func() { <-x.slots }()
		if err := x.Exec.Execute(ctx, run); err != nil && ctx.Err() == nil {
			log.FromContext(ctx).Info("run failed", "run", key, "reason", err.Error())
		}
	}()
	return true, nil
}

// Cancel stops the run's execution, if it has one here.
func (x *LocalExecutor) Cancel(_ context.Context, key types.NamespacedName) error {
	x.init()
	x.mu.Lock()
	defer x.mu.Unlock()
	if cancel, ok := x.active[key]; ok {
		cancel()
		delete(x.active, key)
	}
	return nil
}

// Active reports whether the run executes or waits for a worker here.
func (x *LocalExecutor) Active(_ context.Context, key types.NamespacedName) bool {
	x.init()
	x.mu.Lock()
	defer x.mu.Unlock()
	_, ok := x.active[key]
	return ok
}
