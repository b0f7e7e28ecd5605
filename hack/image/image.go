package main

import (
	"archive/tar"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The disco image mirrors the Dockerfile's final stage (gcr.io/distroless/static:nonroot plus
// /disco): the same entrypoint, command, user, working directory and environment. The
// distroless values are those of its static image definition (static/static.bzl and
// common/BUILD.bazel in GoogleContainerTools/distroless). TestDiscoImageMatchesDockerfile keeps
// the two in step.
const (
	nonrootUID  = 65532
	discoBinary = "/disco"
	caBundle    = "/etc/ssl/certs/ca-certificates.crt"
	nonrootHome = "/home/nonroot"
	tmpDir      = "/tmp"
)

var discoConfig = v1.Config{
	Entrypoint: []string{discoBinary},
	Cmd:        []string{"manager"},
	User:       fmt.Sprintf("%d:%d", nonrootUID, nonrootUID),
	WorkingDir: nonrootHome,
	Env: []string{
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"SSL_CERT_FILE=" + caBundle,
	},
}

// The sandbox image follows Kubernetes' build/pause/Dockerfile: /pause as the entrypoint, run
// as uid and gid 65535.
const pauseBinary = "/pause"

var pauseConfig = v1.Config{
	Entrypoint: []string{pauseBinary},
	User:       "65535:65535",
}

// file is one entry of an image layer. Every entry is owned by root and has no write bit for
// group or others, so the image's user (never root) can write nothing in it: only mounted
// volumes are writable (issue 13). The one exception is /tmp, 01777 as in distroless and
// every Linux root file system (FHS 3.0, 3.18): runc gives a tmpfs mounted there the mode of
// the directory under it, so a root-only /tmp would make `--read-only --tmpfs /tmp`
// unwritable for the user. With a read-only root file system the image's /tmp is not
// writable either; pods mount a volume there.
type file struct {
	name string // absolute path in the image
	mode int64  // permission bits; directories get tar.TypeDir
	dir  bool
	data []byte
}

// discoFiles returns the disco image's file system: the binary, the CA bundle, and the user
// database and resolver order Go's os/user and net packages read.
func discoFiles(binary, caCerts []byte) []file {
	return []file{
		{name: "/etc", mode: 0o755, dir: true},
		{name: "/etc/group", mode: 0o444, data: []byte(
			"root:x:0:\nnobody:x:65534:\ntty:x:5:\nstaff:x:50:\nnonroot:x:65532:\n")},
		{name: "/etc/passwd", mode: 0o444, data: []byte(
			"root:x:0:0:root:/root:/sbin/nologin\n" +
				"nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n" +
				"nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n")},
		{name: "/etc/nsswitch.conf", mode: 0o444, data: []byte("hosts: files dns\n")},
		{name: "/etc/ssl", mode: 0o755, dir: true},
		{name: "/etc/ssl/certs", mode: 0o755, dir: true},
		{name: caBundle, mode: 0o444, data: caCerts},
		{name: "/home", mode: 0o755, dir: true},
		{name: nonrootHome, mode: 0o755, dir: true},
		{name: tmpDir, mode: 0o1777, dir: true},
		{name: discoBinary, mode: 0o555, data: binary},
	}
}

func pauseFiles(binary []byte) []file {
	return []file{{name: pauseBinary, mode: 0o555, data: binary}}
}

// layerTar writes files as one uncompressed tar stream with fixed owners and times, so the
// same inputs give the same layer digest (reproducible, as ko builds).
func layerTar(files []file, mtime time.Time) ([]byte, error) {
	sorted := append([]file(nil), files...)
	slices.SortFunc(sorted, func(a, b file) int { return cmp.Compare(a.name, b.name) })
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range sorted {
		if !path.IsAbs(f.name) || path.Clean(f.name) != f.name {
			return nil, fmt.Errorf("image file %q: want a clean absolute path", f.name)
		}
		h := &tar.Header{
			Name:    strings.TrimPrefix(f.name, "/"),
			Mode:    f.mode,
			ModTime: mtime,
			Uname:   "root",
			Gname:   "root",
			Format:  tar.FormatPAX,
		}
		if f.dir {
			h.Typeflag = tar.TypeDir
			h.Name += "/"
		} else {
			h.Typeflag = tar.TypeReg
			h.Size = int64(len(f.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// buildImage assembles a one-layer OCI image for linux/arch from files and cfg.
func buildImage(files []file, cfg v1.Config, arch string, created time.Time) (v1.Image, error) {
	raw, err := layerTar(files, created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(raw)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	base := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	base = mutate.ConfigMediaType(base, types.OCIConfigJSON)
	img, err := mutate.Append(base, mutate.Addendum{
		Layer:     layer,
		MediaType: types.OCILayer,
		History:   v1.History{Created: v1.Time{Time: created}, CreatedBy: "disco hack/image", Comment: "files of the image"},
	})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS = "linux"
	cf.Architecture = arch
	cf.Created = v1.Time{Time: created}
	cf.Config = cfg
	return mutate.ConfigFile(img, cf)
}

// writeOCIArchive writes img as an OCI image layout in a tar file at out, with the image's name
// in the index annotations that `ctr images import` (containerd's io.containerd.image.name) and
// OCI tools (org.opencontainers.image.ref.name) read.
func writeOCIArchive(img v1.Image, imageName, arch, out string) error {
	dir, err := os.MkdirTemp(filepath.Dir(out), ".oci-layout-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	if err := p.AppendImage(img,
		layout.WithPlatform(v1.Platform{OS: "linux", Architecture: arch}),
		layout.WithAnnotations(map[string]string{
			"io.containerd.image.name":          imageName,
			"org.opencontainers.image.ref.name": imageName,
		})); err != nil {
		return err
	}
	tmp := out + ".tmp"
	if err := tarDir(dir, tmp); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, out)
}

// tarDir writes the regular files and directories under dir into a tar file, in name order.
func tarDir(dir, out string) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(f)
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		h := &tar.Header{Name: filepath.ToSlash(rel), Mode: 0o644, ModTime: time.Unix(0, 0), Format: tar.FormatPAX}
		if d.IsDir() {
			h.Typeflag, h.Name, h.Mode = tar.TypeDir, h.Name+"/", 0o755
			return tw.WriteHeader(h)
		}
		h.Typeflag, h.Size = tar.TypeReg, info.Size()
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		src, err := os.Open(p)
		if err != nil {
			return err
		}
		defer src.Close()
		_, err = io.Copy(tw, src)
		return err
	})
	if err == nil {
		err = tw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
