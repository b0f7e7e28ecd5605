package controllers

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/log"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// RunExecutor starts and stops run executions. The local pool implements it for `disco dev`;
// the Job executor for clusters.
type RunExecutor interface {
	// Submit starts the run unless it is already active; it reports whether it started it.
	Submit(run *discov1.Run) bool
	// Cancel stops an active run; it reports whether one was active.
	Cancel(key types.NamespacedName) bool
	// Active reports whether the run is executing (or waiting for a worker) here.
	Active(key types.NamespacedName) bool
}

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

func (x *LocalExecutor) Submit(run *discov1.Run) bool {
	x.init()
	key := types.NamespacedName{Namespace: run.Namespace, Name: run.Name}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.ctx == nil {
		return false // not started yet; the reconciler retries
	}
	if _, ok := x.active[key]; ok {
		return false
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
	return true
}

func (x *LocalExecutor) Cancel(key types.NamespacedName) bool {
	x.init()
	x.mu.Lock()
	defer x.mu.Unlock()
	cancel, ok := x.active[key]
	if ok {
		cancel()
		delete(x.active, key)
	}
	return ok
}

func (x *LocalExecutor) Active(key types.NamespacedName) bool {
	x.init()
	x.mu.Lock()
	defer x.mu.Unlock()
	_, ok := x.active[key]
	return ok
}
