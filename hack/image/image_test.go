package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
)

var epoch = time.Unix(0, 0).UTC()

func testDiscoImage(t *testing.T) v1.Image {
	t.Helper()
	img, err := buildImage(discoFiles([]byte("#!disco binary"), []byte("-----BEGIN CERTIFICATE-----\n")), discoConfig, "amd64", epoch)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// imageFiles flattens img's layers into path -> tar header (and content of regular files).
func imageFiles(t *testing.T, img v1.Image) (map[string]*tar.Header, map[string][]byte) {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	headers, data := map[string]*tar.Header{}, map[string][]byte{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		p := "/" + strings.TrimSuffix(h.Name, "/")
		headers[p] = h
		if h.Typeflag == tar.TypeReg {
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			data[p] = b
		}
	}
	return headers, data
}

// The disco image built here and the one `docker build` makes from the Dockerfile have the
// same entrypoint, command, user, working directory, environment and exposed ports, and every
// file the Dockerfile copies in (issue 13).
func TestDiscoImageMatchesDockerfile(t *testing.T) {
	src, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	want, err := parseDockerfile(string(src))
	if err != nil {
		t.Fatal(err)
	}
	if _, known := baseConfigs[want.base]; !known {
		t.Fatalf("Dockerfile's final stage starts FROM %q: add its config to baseConfigs", want.base)
	}
	cf, err := testDiscoImage(t).ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	got := cf.Config
	for _, c := range []struct {
		field     string
		got, want any
	}{
		{"Entrypoint", got.Entrypoint, want.config.Entrypoint},
		{"Cmd", got.Cmd, want.config.Cmd},
		{"User", got.User, want.config.User},
		{"WorkingDir", got.WorkingDir, want.config.WorkingDir},
		{"Env", got.Env, want.config.Env},
		{"ExposedPorts", len(got.ExposedPorts), len(want.config.ExposedPorts)},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: image has %#v, Dockerfile gives %#v", c.field, c.got, c.want)
		}
	}
	for p := range want.config.ExposedPorts {
		if _, ok := got.ExposedPorts[p]; !ok {
			t.Errorf("ExposedPorts: Dockerfile exposes %s, the image does not", p)
		}
	}

	headers, data := imageFiles(t, testDiscoImage(t))
	for _, p := range want.copied {
		h, ok := headers[p]
		if !ok {
			t.Errorf("the Dockerfile copies %s; the image has no such file", p)
			continue
		}
		if h.Typeflag != tar.TypeReg || h.Mode&0o111 == 0 {
			t.Errorf("%s: want an executable regular file, got type %c mode %o", p, h.Typeflag, h.Mode)
		}
	}
	// What the distroless base gives the binary: the CA bundle SSL_CERT_FILE names, the
	// user's passwd entry, its working directory and /tmp.
	for _, e := range got.Env {
		if k, v, _ := strings.Cut(e, "="); k == "SSL_CERT_FILE" && len(data[v]) == 0 {
			t.Errorf("SSL_CERT_FILE=%s: no such file in the image", v)
		}
	}
	uid, _, _ := strings.Cut(got.User, ":")
	if !bytes.Contains(data["/etc/passwd"], []byte(":x:"+uid+":")) {
		t.Errorf("/etc/passwd has no entry for uid %s:\n%s", uid, data["/etc/passwd"])
	}
	for _, d := range []string{got.WorkingDir, "/tmp"} {
		if h, ok := headers[d]; !ok || h.Typeflag != tar.TypeDir {
			t.Errorf("%s: want a directory in the image", d)
		}
	}
}

// The image runs as a non-root user that can write nothing in it: every entry is root's and
// has no group or other write bit (issue 13: nothing writable except mounted volumes), but for
// the sticky /tmp that volumes mount over.
func TestImagesAreReadOnlyForTheirUser(t *testing.T) {
	pause, err := buildImage(pauseFiles([]byte("pause")), pauseConfig, "amd64", epoch)
	if err != nil {
		t.Fatal(err)
	}
	for name, img := range map[string]v1.Image{"disco": testDiscoImage(t), "pause": pause} {
		cf, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		uid, gid, _ := strings.Cut(cf.Config.User, ":")
		for _, id := range []string{uid, gid} {
			if n, err := strconv.Atoi(id); err != nil || n == 0 {
				t.Errorf("%s: user %q: want numeric non-root uid:gid", name, cf.Config.User)
			}
		}
		headers, _ := imageFiles(t, img)
		if len(headers) == 0 {
			t.Fatalf("%s: empty image", name)
		}
		for p, h := range headers {
			if p == tmpDir {
				if h.Uid != 0 || h.Mode&0o7777 != 0o1777 {
					t.Errorf("%s: %s is uid %d mode %o: want root's 1777", name, p, h.Uid, h.Mode)
				}
				continue
			}
			if h.Uid != 0 || h.Gid != 0 || h.Mode&0o022 != 0 {
				t.Errorf("%s: %s is uid %d gid %d mode %o: want root's, not group/other-writable", name, p, h.Uid, h.Gid, h.Mode)
			}
		}
	}
}

// The OCI archive carries the image under the name containerd imports it as, for the
// platform it was built for, and the same inputs give the same digest.
func TestOCIArchive(t *testing.T) {
	dir := t.TempDir()
	img := testDiscoImage(t)
	out := filepath.Join(dir, "disco.oci.tar")
	if err := writeOCIArchive(img, "docker.io/library/disco:dev", "amd64", out); err != nil {
		t.Fatal(err)
	}
	unpacked := filepath.Join(dir, "unpacked")
	untar(t, out, unpacked)
	idx, err := layout.ImageIndexFromPath(unpacked)
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Manifests) != 1 {
		t.Fatalf("index has %d manifests, want 1", len(m.Manifests))
	}
	d := m.Manifests[0]
	want, _ := img.Digest()
	if d.Digest != want {
		t.Errorf("index digest %s, want %s", d.Digest, want)
	}
	if d.Annotations["io.containerd.image.name"] != "docker.io/library/disco:dev" {
		t.Errorf("annotations %v: want io.containerd.image.name docker.io/library/disco:dev", d.Annotations)
	}
	if d.Platform == nil || d.Platform.OS != "linux" || d.Platform.Architecture != "amd64" {
		t.Errorf("platform %+v, want linux/amd64", d.Platform)
	}
	if _, err := idx.Image(d.Digest); err != nil {
		t.Errorf("image blobs incomplete: %v", err)
	}
	again, _ := testDiscoImage(t).Digest()
	if again != want {
		t.Errorf("rebuilding gave digest %s, first build %s", again, want)
	}
}

func untar(t *testing.T, archive, dir string) {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		if h.Typeflag == tar.TypeDir {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestContainerdName(t *testing.T) {
	for in, want := range map[string]string{
		"disco:dev":                    "docker.io/library/disco:dev",
		"disco":                        "docker.io/library/disco:latest",
		"me/disco:1":                   "docker.io/me/disco:1",
		"docker.io/library/disco:dev":  "docker.io/library/disco:dev",
		"disco.local/pause:dev":        "disco.local/pause:dev",
		"localhost:5000/disco:v1.2.3":  "localhost:5000/disco:v1.2.3",
		"registry.k8s.io/pause:3.10.1": "registry.k8s.io/pause:3.10.1",
	} {
		got, err := containerdName(in)
		if err != nil || got != want {
			t.Errorf("containerdName(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "Disco:dev", "disco:dev tag", "disco::dev"} {
		if got, err := containerdName(bad); err == nil {
			t.Errorf("containerdName(%q) = %q, want an error", bad, got)
		}
	}
}

func TestSourceDateEpoch(t *testing.T) {
	if got, err := sourceDateEpoch(""); err != nil || !got.Equal(epoch) {
		t.Errorf("unset: %v %v, want the Unix epoch", got, err)
	}
	if got, err := sourceDateEpoch("1700000000"); err != nil || got.Unix() != 1700000000 {
		t.Errorf("1700000000: %v %v", got, err)
	}
	for _, bad := range []string{"yesterday", "-5", "1.5"} {
		if _, err := sourceDateEpoch(bad); err == nil {
			t.Errorf("SOURCE_DATE_EPOCH=%q: want an error", bad)
		}
	}
}

// The sandbox program holds until SIGTERM or SIGINT and then exits 0, as kubelet expects of
// a pod's pause container when it stops the sandbox.
func TestPauseExitsOnSignal(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "pause")
	build := exec.Command("go", "build", "-o", bin, "./pause")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./pause: %v\n%s", err, out)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		cmd := exec.Command(bin)
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewScanner(stderr)
		// The first line is printed once its signal handlers are installed.
		if !lines.Scan() {
			t.Fatalf("pause printed nothing before its signal: %v", lines.Err())
		}
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		var rest strings.Builder
		for lines.Scan() {
			rest.WriteString(lines.Text() + "\n")
		}
		if err := cmd.Wait(); err != nil {
			t.Errorf("after %v: %v, want exit 0", sig, err)
		}
		if !strings.Contains(rest.String(), "Shutting down, got signal") {
			t.Errorf("after %v it printed %q", sig, rest.String())
		}
	}
}
