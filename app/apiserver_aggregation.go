package app

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"

	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/discolab/disco/apiserver"
)

// The facade behind an APIService (api.disco.dev/v1): the kube-apiserver proxies
// /apis/api.disco.dev/v1/... to it over TLS, presenting its front-proxy client certificate
// and naming the user in X-Remote-* headers (Kubernetes "Configure the Aggregation Layer").
// The facade must ask for that certificate during the handshake and know the CA that signs
// it; the kube-apiserver publishes the CA, the allowed names and the header names in the
// ConfigMap kube-system/extension-apiserver-authentication, which k8s.io/apiserver's
// delegated authentication reads too.

const (
	authConfigMapNamespace = "kube-system"
	authConfigMapName      = "extension-apiserver-authentication"
)

// aggregationOptions are the flags of serving as an aggregated API.
type aggregationOptions struct {
	secureListen   string
	requestCAFile  string
	requestAllowed []string
}

func (a *aggregationOptions) addFlags(f *pflag.FlagSet) {
	f.StringVar(&a.secureListen, "secure-listen", "", "with --tls-cert-file: serve TLS here (for the APIService) and plain HTTP on --listen; empty serves TLS on --listen only")
	f.StringVar(&a.requestCAFile, "requestheader-client-ca-file", "", "CA of the front proxy's client certificate; default with TLS: the cluster's "+authConfigMapNamespace+"/"+authConfigMapName+" ConfigMap")
	f.StringSliceVar(&a.requestAllowed, "requestheader-allowed-names", nil, "common names the front proxy's certificate may have (default: the ConfigMap's, or any)")
}

// requestHeader returns how to recognise the front proxy, or nil when the facade serves no
// TLS (the proxy cannot reach it then). A CA file that cannot be read fails; without one,
// an unreadable ConfigMap leaves the aggregated path to Bearer credentials, with a warning.
// The ConfigMap is read with r, an uncached reader (the manager's API reader).
func (a *aggregationOptions) requestHeader(ctx context.Context, r client.Reader, tlsOn bool) (*apiserver.RequestHeaderAuth, error) {
	if a.requestCAFile != "" {
		pem, err := os.ReadFile(a.requestCAFile)
		if err != nil {
			return nil, fmt.Errorf("--requestheader-client-ca-file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--requestheader-client-ca-file %s holds no PEM certificate", a.requestCAFile)
		}
		return &apiserver.RequestHeaderAuth{ClientCAs: pool, AllowedNames: a.requestAllowed}, nil
	}
	if !tlsOn {
		return nil, nil
	}
	log := ctrl.Log.WithName("apiserver")
	cm := &corev1.ConfigMap{}
	if err := r.Get(ctx, client.ObjectKey{Namespace: authConfigMapNamespace, Name: authConfigMapName}, cm); err != nil {
		log.Error(err, "cannot read the front proxy's CA: /apis/api.disco.dev/v1 accepts only Bearer credentials",
			"configmap", authConfigMapNamespace+"/"+authConfigMapName)
		return nil, nil
	}
	rh, err := requestHeaderFromConfigMap(cm)
	if err != nil {
		log.Error(err, "/apis/api.disco.dev/v1 accepts only Bearer credentials")
		return nil, nil
	}
	if len(a.requestAllowed) > 0 {
		rh.AllowedNames = a.requestAllowed
	}
	return rh, nil
}

// requestHeaderFromConfigMap reads the requestheader-* keys of
// kube-system/extension-apiserver-authentication: a PEM bundle and JSON string lists.
func requestHeaderFromConfigMap(cm *corev1.ConfigMap) (*apiserver.RequestHeaderAuth, error) {
	ca := cm.Data["requestheader-client-ca-file"]
	if ca == "" {
		return nil, errors.New("the kube-apiserver publishes no requestheader-client-ca-file: it runs without --requestheader-client-ca-file")
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM([]byte(ca)) {
		return nil, errors.New("requestheader-client-ca-file holds no PEM certificate")
	}
	rh := &apiserver.RequestHeaderAuth{ClientCAs: pool}
	for key, into := range map[string]*[]string{
		"requestheader-allowed-names":    &rh.AllowedNames,
		"requestheader-username-headers": &rh.UsernameHeaders,
		"requestheader-group-headers":    &rh.GroupHeaders,
	} {
		if v := cm.Data[key]; v != "" {
			if err := json.Unmarshal([]byte(v), into); err != nil {
				return nil, fmt.Errorf("%s: want a JSON list of strings: %w", key, err)
			}
		}
	}
	return rh, nil
}

// facadeServer is one listener of the facade.
type facadeServer struct {
	*http.Server
	certFile, keyFile string
}

func (s facadeServer) serve() error {
	if s.certFile != "" {
		return s.ListenAndServeTLS(s.certFile, s.keyFile)
	}
	return s.ListenAndServe()
}

// facadeServers are the facade's listeners: plain HTTP on --listen, and TLS on
// --secure-listen; or TLS alone on --listen when --tls-cert-file is given without
// --secure-listen. TLS listeners ask for a client certificate without requiring one, so
// the front proxy can present its own while API clients need none (they send Bearer
// credentials); aggregated.go checks the certificate against the front proxy's CA.
func facadeServers(srv *apiserver.Server, h http.Handler, o apiserverOptions) ([]facadeServer, error) {
	if (o.tlsCert == "") != (o.tlsKey == "") {
		return nil, errors.New("--tls-cert-file and --tls-private-key-file go together")
	}
	if o.agg.secureListen != "" && o.tlsCert == "" {
		return nil, errors.New("--secure-listen needs --tls-cert-file and --tls-private-key-file")
	}
	withTLS := func(addr string) facadeServer {
		s := srv.HTTPServer(addr, h)
		s.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12, ClientAuth: tls.RequestClientCert}
		return facadeServer{Server: s, certFile: o.tlsCert, keyFile: o.tlsKey}
	}
	switch {
	case o.tlsCert == "":
		return []facadeServer{{Server: srv.HTTPServer(o.listen, h)}}, nil
	case o.agg.secureListen == "":
		return []facadeServer{withTLS(o.listen)}, nil
	default:
		return []facadeServer{{Server: srv.HTTPServer(o.listen, h)}, withTLS(o.agg.secureListen)}, nil
	}
}
