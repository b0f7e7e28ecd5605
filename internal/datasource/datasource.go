// Package datasource opens the file a Dataset declares in spec.source (issue 14, item 7):
// an object in an S3, Google Cloud Storage or Azure Blob Storage bucket, a file under the
// manager's source root, or a key of a ConfigMap. Every source is confined to the
// dataset's tenant: ConfigMaps and Secrets are read from the dataset's own namespace, file
// paths from the namespace's own directory under the root (symbolic links cannot leave
// it), and an object store request goes to the cloud's public endpoint or to an endpoint
// the cluster admin allows, with the tenant's credentials or none, never the manager's
// (a tenant must not read what the manager may; OWASP SSRF prevention: destinations come
// from an allow-list).
package datasource

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"gocloud.dev/blob/s3blob"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// Opener opens dataset sources.
type Opener struct {
	// Reader reads ConfigMaps and Secrets; the manager's uncached API reader, so that it
	// needs get on them and never list or watch.
	Reader client.Reader
	// FileRoot is the directory file:// sources are read from: a dataset in namespace ns
	// may read files below FileRoot/ns only. "" refuses file:// sources.
	FileRoot string
	// S3Endpoints are the endpoints (scheme://host[:port]) an s3:// URL may name with
	// ?endpoint=; a URL without one goes to AWS.
	S3Endpoints []string
	// GCSEndpoints are the endpoints (scheme://host[:port]) a gs:// URL may name with
	// ?endpoint=; a URL without one goes to storage.googleapis.com.
	GCSEndpoints []string
	// AzureEndpoints are the blob service URLs (scheme://host[:port][/account]) an
	// azblob:// URL may name with ?endpoint=; a URL without one goes to
	// https://<account>.blob.core.windows.net.
	AzureEndpoints []string
}

// Error is a source that can never be read as written. Other errors may pass (a missing
// ConfigMap may be applied later) and the caller tries again.
type Error struct{ Message string }

func (e *Error) Error() string { return e.Message }

func refused(format string, args ...any) error { return &Error{Message: fmt.Sprintf(format, args...)} }

// Open opens the source of a dataset in namespace. The caller closes the reader and bounds
// how much it reads.
func (o Opener) Open(ctx context.Context, namespace string, src *discov1.DatasetSource) (io.ReadCloser, error) {
	switch {
	case src == nil:
		return nil, refused("the dataset has no source")
	case src.ConfigMapRef != nil:
		return o.configMap(ctx, namespace, *src.ConfigMapRef)
	case src.PersistentVolumeClaim != nil:
		return nil, refused("persistentVolumeClaim sources are not implemented yet")
	}
	u, err := url.Parse(src.URL)
	if err != nil {
		return nil, refused("source.url is not a URL: %v", err)
	}
	switch u.Scheme {
	case "file":
		if src.SecretRef != nil {
			return nil, refused("source.secretRef is for object store sources; a file:// source needs none")
		}
		return o.file(namespace, u)
	case "s3":
		return o.s3(ctx, namespace, u, src.SecretRef)
	case "gs":
		return o.gcs(ctx, namespace, u, src.SecretRef)
	case "azblob":
		return o.azure(ctx, namespace, u, src.SecretRef)
	}
	return nil, refused("source.url scheme %q is not supported: use s3://, gs://, azblob:// or file://", u.Scheme)
}

func (o Opener) configMap(ctx context.Context, namespace string, ref discov1.ConfigMapKeyRef) (io.ReadCloser, error) {
	cm := &corev1.ConfigMap{}
	if err := o.Reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: ref.Name}, cm); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("the ConfigMap %s does not exist in namespace %s (yet)", ref.Name, namespace)
		}
		return nil, fmt.Errorf("reading the ConfigMap %s: %w", ref.Name, err)
	}
	if s, ok := cm.Data[ref.Key]; ok {
		return io.NopCloser(strings.NewReader(s)), nil
	}
	if b, ok := cm.BinaryData[ref.Key]; ok {
		return io.NopCloser(bytes.NewReader(b)), nil
	}
	return nil, fmt.Errorf("the ConfigMap %s has no key %q in data or binaryData", ref.Name, ref.Key)
}

// file opens file:///<FileRoot>/<namespace>/<name> through os.Root, which refuses any
// name, symbolic links included, that resolves outside the namespace's directory.
func (o Opener) file(namespace string, u *url.URL) (io.ReadCloser, error) {
	if o.FileRoot == "" {
		return nil, refused("this disco installation reads no file:// sources; the cluster admin enables them with the manager's --dataset-source-root")
	}
	if u.Host != "" && u.Host != "localhost" {
		return nil, refused("source.url %s names host %q; a file:// source is on the manager's disk (file:///path)", u.Redacted(), u.Host)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, refused("a file:// source takes no query or fragment")
	}
	dir := path.Join(o.FileRoot, namespace)
	name, ok := strings.CutPrefix(path.Clean("/"+u.Path), strings.TrimSuffix(dir, "/")+"/")
	if !ok || name == "" {
		return nil, refused("source.url %s is not a file under %s/, the directory of namespace %s under the dataset source root", u.Redacted(), dir, namespace)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("the directory for namespace %s under the dataset source root does not exist (yet)", namespace)
	}
	f, err := OpenRegularFile(dir, name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("the file %s does not exist (yet) in namespace %s's directory of the dataset source root", name, namespace)
	case errors.Is(err, ErrOutside):
		return nil, refused("the file %s lies outside namespace %s's directory of the dataset source root", name, namespace)
	case errors.Is(err, ErrNotRegular):
		return nil, refused("the source %s is not a regular file", name)
	case err != nil:
		return nil, fmt.Errorf("opening the source file %s: %w", name, err)
	}
	return f, nil
}

// s3 opens s3://bucket/key. Query parameters: region, endpoint (one of S3Endpoints) and
// use_path_style, as gocloud.dev/blob/s3blob reads them.
func (o Opener) s3(ctx context.Context, namespace string, u *url.URL, secretRef *discov1.ObjectRef) (io.ReadCloser, error) {
	key := strings.TrimPrefix(u.Path, "/")
	if u.Host == "" || key == "" {
		return nil, refused("source.url %s must be s3://bucket/key", u.Redacted())
	}
	q := u.Query()
	if err := onlyParams(q, "region", "endpoint", "use_path_style"); err != nil {
		return nil, err
	}
	opts := s3.Options{Region: q.Get("region"), Credentials: aws.AnonymousCredentials{}}
	if opts.Region == "" {
		opts.Region = "us-east-1"
	}
	if ep := q.Get("endpoint"); ep != "" {
		if err := allowedEndpoint(ep, o.S3Endpoints, "--dataset-source-s3-endpoints"); err != nil {
			return nil, err
		}
		opts.BaseEndpoint = aws.String(ep)
	}
	opts.UsePathStyle = q.Get("use_path_style") == "true"
	if secretRef != nil {
		s, err := o.secret(ctx, namespace, secretRef)
		if err != nil {
			return nil, err
		}
		id, secret := string(s.Data["AWS_ACCESS_KEY_ID"]), string(s.Data["AWS_SECRET_ACCESS_KEY"])
		if id == "" || secret == "" {
			return nil, refused("the Secret %s needs the keys AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY", secretRef.Name)
		}
		opts.Credentials = credentials.NewStaticCredentialsProvider(id, secret, string(s.Data["AWS_SESSION_TOKEN"]))
	}
	bucket, err := s3blob.OpenBucket(ctx, s3.New(opts), u.Host, nil)
	if err != nil {
		return nil, fmt.Errorf("opening the bucket %s: %w", u.Host, err)
	}
	return openObject(ctx, bucket, u, key, secretRef)
}
