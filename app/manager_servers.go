package app

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// opsServer serves the manager's metrics or probes on addr, as a manager runnable on every
// replica, with every timeout set: they are small GETs, so the whole request gets
// ReadTimeout, and a client that stalls a body is cut off (issue 17, item 5;
// controller-runtime's own servers set no body timeout).
func opsServer(name, addr string, handler http.Handler) *manager.Server {
	shutdown := 5 * time.Second
	return &manager.Server{
		Name: name,
		Server: &http.Server{Addr: addr, Handler: handler, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
			WriteTimeout: 30 * time.Second, IdleTimeout: 60 * time.Second, MaxHeaderBytes: 64 << 10},
		ShutdownTimeout: &shutdown,
	}
}

// addOpsServers serves Prometheus metrics (controller-runtime's registry) and /healthz and
// /readyz in place of controller-runtime's servers, which the manager is built without
// ("0" addresses). ready are the readiness checks.
func addOpsServers(mgr ctrl.Manager, metricsAddr, probeAddr string, ready map[string]healthz.Checker) error {
	if metricsAddr != "" && metricsAddr != "0" {
		mux := http.NewServeMux()
		mux.Handle("/metrics", promhttp.HandlerFor(ctrlmetrics.Registry, promhttp.HandlerOpts{}))
		if err := mgr.Add(opsServer("metrics", metricsAddr, mux)); err != nil {
			return err
		}
	}
	if probeAddr != "" && probeAddr != "0" {
		if err := mgr.Add(opsServer("health probe", probeAddr, probeMux(ready))); err != nil {
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
