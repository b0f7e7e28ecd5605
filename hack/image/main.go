// Command image builds disco's container images as OCI archives without Docker, the way ko
// does: one layer with a static binary and the few files it needs, on no base image (issue 13,
// item 2). `make image` runs it for the disco image and for the pod sandbox ("pause") image;
// `make image-load` imports both archives into containerd's k8s.io namespace.
//
//	go run ./hack/image -kind disco -binary bin/image/disco -name disco:dev -out bin/image/disco.oci.tar
//	go run ./hack/image -kind pause -binary bin/image/pause -name disco.local/pause:dev -out bin/image/pause.oci.tar
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	kind := fs.String("kind", "disco", "which image: disco or pause")
	binary := fs.String("binary", "", "the static binary to put in the image (required)")
	ca := fs.String("ca", "/etc/ssl/certs/ca-certificates.crt", "CA bundle for the disco image")
	imageName := fs.String("name", "", "image reference, e.g. disco:dev (required)")
	arch := fs.String("arch", runtime.GOARCH, "GOARCH of the binary")
	out := fs.String("out", "", "OCI archive to write (required)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *binary == "" || *imageName == "" || *out == "" {
		return fmt.Errorf("-binary, -name and -out are required")
	}
	ref, err := containerdName(*imageName)
	if err != nil {
		return err
	}
	created, err := sourceDateEpoch(os.Getenv("SOURCE_DATE_EPOCH"))
	if err != nil {
		return err
	}
	bin, err := os.ReadFile(*binary)
	if err != nil {
		return err
	}
	var files []file
	var cfg v1.Config
	switch *kind {
	case "disco":
		certs, err := os.ReadFile(*ca)
		if err != nil {
			return fmt.Errorf("CA bundle: %w (install Debian's ca-certificates or pass -ca)", err)
		}
		files, cfg = discoFiles(bin, certs), discoConfig
	case "pause":
		files, cfg = pauseFiles(bin), pauseConfig
	default:
		return fmt.Errorf("-kind %q: want disco or pause", *kind)
	}
	img, err := buildImage(files, cfg, *arch, created)
	if err != nil {
		return err
	}
	if err := writeOCIArchive(img, ref, *arch, *out); err != nil {
		return err
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("%s %s %s\n", *out, ref, digest)
	return nil
}

// containerdName returns the fully qualified form of ref that containerd and the kubelet use
// for it: a name without a registry is on docker.io, and a single path element there is under
// library/ (the Docker reference grammar, as github.com/distribution/reference normalizes it).
func containerdName(ref string) (string, error) {
	r, err := name.ParseReference(ref)
	if err != nil {
		return "", fmt.Errorf("image name %q: %w", ref, err)
	}
	repo := r.Context().RepositoryStr()
	registry := r.Context().RegistryStr()
	if registry == name.DefaultRegistry {
		registry = "docker.io"
	}
	sep := ":"
	if _, ok := r.(name.Digest); ok {
		sep = "@"
	}
	return registry + "/" + repo + sep + r.Identifier(), nil
}

// sourceDateEpoch is the image's creation time: SOURCE_DATE_EPOCH when set
// (reproducible-builds.org/specs/source-date-epoch), else the Unix epoch, so that rebuilding
// the same binary gives the same digest.
func sourceDateEpoch(v string) (time.Time, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Unix(0, 0).UTC(), nil
	}
	s, err := strconv.ParseInt(v, 10, 64)
	if err != nil || s < 0 {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q: want a non-negative integer of seconds", v)
	}
	return time.Unix(s, 0).UTC(), nil
}
