package cli

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// opsServer serves the manager's metrics or probes on addr with every timeout set: they
// are small GETs, so the whole request gets ReadTimeout, and a client that stalls a body
// is cut off (issue 17, item 5; controller-runtime's own servers set no body timeout).
type opsServer struct {
	addr    string
	handler http.Handler
}

func (s *opsServer) NeedLeaderElection() bool { return false }

func (s *opsServer) Start(ctx context.Context) error {
	l, err := net.Listen("tcp", s.addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: s.handler, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: 60 * time.Second, MaxHeaderBytes: 64 << 10}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// addOpsServers serves Prometheus metrics (controller-runtime's registry) and /healthz and
// /readyz in place of controller-runtime's servers, which the manager is built without
// ("0" addresses). ready are the readiness checks.
func addOpsServers(mgr ctrl.Manager, metricsAddr, probeAddr string, ready map[string]healthz.Checker) error {
	if metricsAddr != "" && metricsAddr != "0" {
		mux := http.NewServeMux()
		mux.Handle("/metrics", promhttp.HandlerFor(ctrlmetrics.Registry, promhttp.HandlerOpts{}))
		if err := mgr.Add(&opsServer{addr: metricsAddr, handler: mux}); err != nil {
			return err
		}
	}
	if probeAddr != "" && probeAddr != "0" {
		if err := mgr.Add(&opsServer{addr: probeAddr, handler: probeMux(ready)}); err != nil {
			return err
		}
	}
	return nil
}

// probeMux serves /healthz (the process answers) and /readyz (every ready check passes),
// with /healthz/<check> and /readyz/<check> for one check, as controller-runtime does.
func probeMux(ready map[string]healthz.Checker) http.Handler {
	mux := http.NewServeMux()
	for path, checks := range map[string]map[string]healthz.Checker{
		"/healthz": {"ping": healthz.Ping},
		"/readyz":  ready,
	} {
		h := http.StripPrefix(path, &healthz.Handler{Checks: checks})
		mux.Handle(path, h)
		mux.Handle(path+"/", h)
	}
	return mux
}

var _ manager.LeaderElectionRunnable = (*opsServer)(nil)
