// Package aggtest tests the facade registered as an aggregated API of a real
// kube-apiserver (envtest) acting as the front proxy: requests to
// /apis/api.disco.dev/v1/... go through the kube-apiserver, which authenticates the user
// and forwards the identity in X-Remote-* headers with its proxy client certificate.
// It has its own package because it needs a control plane started with front-proxy flags.
package aggtest
