package datasource

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"cloud.google.com/go/storage"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"gocloud.dev/blob"
	"gocloud.dev/blob/azureblob"
	"gocloud.dev/blob/gcsblob"
	"gocloud.dev/gcerrors"
	"golang.org/x/oauth2/google"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// The keys of a source.secretRef Secret, per object store.
const (
	// GCSKeyServiceAccount holds a Google Cloud service account key (the JSON file of
	// `gcloud iam service-accounts keys create`, "type": "service_account").
	GCSKeyServiceAccount = "service_account.json"
	// AzureKeyAccount is the Azure storage account's name (or ?storage_account= in the URL).
	AzureKeyAccount = "AZURE_STORAGE_ACCOUNT"
	// AzureKeyAccountKey is one of the storage account's access keys (base64), for
	// Shared Key authorization.
	AzureKeyAccountKey = "AZURE_STORAGE_KEY"
	// AzureKeySASToken is a shared access signature (the query string, without "?"), an
	// alternative to AzureKeyAccountKey.
	AzureKeySASToken = "AZURE_STORAGE_SAS_TOKEN"
)

var (
	// Bucket names: https://cloud.google.com/storage/docs/buckets#naming (dots allowed).
	gcsBucketName = regexp.MustCompile(`^[a-z0-9][-_.a-z0-9]{1,220}[a-z0-9]$`)
	// https://learn.microsoft.com/azure/storage/common/storage-account-overview#storage-account-name
	// The name becomes the host <account>.blob.core.windows.net, so nothing else may pass.
	azureAccountName = regexp.MustCompile(`^[a-z0-9]{3,24}$`)
	// https://learn.microsoft.com/rest/api/storageservices/naming-and-referencing-containers--blobs--and-metadata
	azureContainerName = regexp.MustCompile(`^[a-z0-9](-?[a-z0-9]){2,}$`)
)

// gcsReadAttempts bounds the storage client's retries of one read, which otherwise retries
// transient errors until the context ends.
const gcsReadAttempts = 3

// gcs opens gs://bucket/key through gocloud.dev/blob/gcsblob. With source.secretRef the
// requests carry a self-signed JWT of the Secret's service account key (AIP-4111), so that
// no token endpoint named in the key is ever called; without one they are anonymous. The
// manager's Application Default Credentials are never consulted. ?endpoint= must be one of
// GCSEndpoints.
func (o Opener) gcs(ctx context.Context, namespace string, u *url.URL, secretRef *discov1.ObjectRef) (io.ReadCloser, error) {
	key := strings.TrimPrefix(u.Path, "/")
	if !gcsBucketName.MatchString(u.Host) || key == "" {
		return nil, refused("source.url %s must be gs://bucket/key, with a Cloud Storage bucket name", u.Redacted())
	}
	q := u.Query()
	if err := onlyParams(q, "endpoint"); err != nil {
		return nil, err
	}
	// Client metrics would be exported to Cloud Monitoring with the manager's credentials.
	opts := []option.ClientOption{option.WithoutAuthentication(), storage.WithDisabledClientMetrics()}
	if ep := q.Get("endpoint"); ep != "" {
		if err := allowedEndpoint(ep, o.GCSEndpoints, "--dataset-source-gcs-endpoints"); err != nil {
			return nil, err
		}
		opts = append(opts, option.WithEndpoint(strings.TrimSuffix(ep, "/")+"/storage/v1/"))
	}
	if secretRef != nil {
		s, err := o.secret(ctx, namespace, secretRef)
		if err != nil {
			return nil, err
		}
		js := s.Data[GCSKeyServiceAccount]
		if len(js) == 0 {
			return nil, refused("the Secret %s needs the key %s: a Google Cloud service account key (JSON)", secretRef.Name, GCSKeyServiceAccount)
		}
		ts, err := google.JWTAccessTokenSourceWithScope(js, storage.ScopeReadOnly)
		if err != nil {
			return nil, refused("the key %s of the Secret %s is not a usable service account key: %v", GCSKeyServiceAccount, secretRef.Name, err)
		}
		opts[0] = option.WithTokenSource(ts)
	}
	c, err := storage.NewClient(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("connecting to Cloud Storage: %w", err)
	}
	c.SetRetry(storage.WithMaxAttempts(gcsReadAttempts))
	bucket, err := gcsblob.OpenBucket(ctx, nil, u.Host, &gcsblob.Options{Client: c})
	if err != nil {
		_ = c.Close() // nothing was read
		return nil, fmt.Errorf("opening the bucket %s: %w", u.Host, err)
	}
	return openObject(ctx, bucket, u, key, secretRef, c)
}

// azure opens azblob://container/key through gocloud.dev/blob/azureblob, with the Secret's
// Shared Key or SAS token, or anonymously without source.secretRef. The storage account is
// the Secret's AZURE_STORAGE_ACCOUNT or ?storage_account=; the service is
// https://<account>.blob.core.windows.net unless ?endpoint= names one of AzureEndpoints.
func (o Opener) azure(ctx context.Context, namespace string, u *url.URL, secretRef *discov1.ObjectRef) (io.ReadCloser, error) {
	key := strings.TrimPrefix(u.Path, "/")
	if !azureContainerName.MatchString(u.Host) || len(u.Host) > 63 || key == "" {
		return nil, refused("source.url %s must be azblob://container/key, with a Blob Storage container name", u.Redacted())
	}
	q := u.Query()
	if err := onlyParams(q, "storage_account", "endpoint"); err != nil {
		return nil, err
	}
	account := q.Get("storage_account")
	var cred *container.SharedKeyCredential
	var sasToken string
	if secretRef != nil {
		s, err := o.secret(ctx, namespace, secretRef)
		if err != nil {
			return nil, err
		}
		if a := string(s.Data[AzureKeyAccount]); a != "" {
			if account != "" && account != a {
				return nil, refused("source.url names the storage account %s but the Secret %s holds %s's credentials", account, secretRef.Name, a)
			}
			account = a
		}
		accountKey, sas := string(s.Data[AzureKeyAccountKey]), string(s.Data[AzureKeySASToken])
		switch {
		case accountKey != "" && sas != "":
			return nil, refused("the Secret %s holds both %s and %s; keep one", secretRef.Name, AzureKeyAccountKey, AzureKeySASToken)
		case accountKey != "":
			if cred, err = container.NewSharedKeyCredential(account, accountKey); err != nil {
				return nil, refused("the key %s of the Secret %s is not a storage account key (base64): %v", AzureKeyAccountKey, secretRef.Name, err)
			}
		case sas != "":
			v, err := url.ParseQuery(strings.TrimPrefix(sas, "?"))
			if err != nil || v.Get("sig") == "" {
				return nil, refused("the key %s of the Secret %s is not a shared access signature (the query string with sv=...&sig=...)", AzureKeySASToken, secretRef.Name)
			}
			sasToken = v.Encode()
		default:
			return nil, refused("the Secret %s needs the key %s (with %s) or %s", secretRef.Name, AzureKeyAccountKey, AzureKeyAccount, AzureKeySASToken)
		}
	}
	if account == "" {
		return nil, refused("an azblob:// source needs its storage account: %s in the Secret of source.secretRef, or ?storage_account= in source.url", AzureKeyAccount)
	}
	if !azureAccountName.MatchString(account) {
		return nil, refused("%q is not a storage account name (3 to 24 lowercase letters and digits)", account)
	}
	service := "https://" + account + ".blob.core.windows.net"
	if ep := q.Get("endpoint"); ep != "" {
		if err := allowedEndpoint(ep, o.AzureEndpoints, "--dataset-source-azblob-endpoints"); err != nil {
			return nil, err
		}
		service = strings.TrimSuffix(ep, "/")
	}
	containerURL := service + "/" + u.Host
	var c *container.Client
	var err error
	if cred != nil {
		c, err = container.NewClientWithSharedKeyCredential(containerURL, cred, nil)
	} else {
		if sasToken != "" {
			containerURL += "?" + sasToken
		}
		c, err = container.NewClientWithNoCredential(containerURL, nil)
	}
	if err != nil {
		return nil, refused("the storage service %s/%s cannot be addressed: %v", service, u.Host, err)
	}
	bucket, err := azureblob.OpenBucket(ctx, c, nil)
	if err != nil {
		return nil, fmt.Errorf("opening the container %s: %w", u.Host, err)
	}
	return openObject(ctx, bucket, u, key, secretRef)
}

// secret reads the Secret ref names from the dataset's own namespace: a secretRef is
// namespace-local, so a Secret of another tenant is never read. A missing Secret may be
// applied later, so the caller tries again.
func (o Opener) secret(ctx context.Context, namespace string, ref *discov1.ObjectRef) (*corev1.Secret, error) {
	s := &corev1.Secret{}
	if err := o.Reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: ref.Name}, s); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("the Secret %s does not exist in namespace %s (yet)", ref.Name, namespace)
		}
		return nil, fmt.Errorf("reading the Secret %s: %w", ref.Name, err)
	}
	return s, nil
}

// onlyParams refuses a query parameter outside allowed: gocloud.dev's URL openers read
// more of them (credentials files, profiles), which a tenant must not set.
func onlyParams(q url.Values, allowed ...string) error {
	for k := range q {
		if !slices.Contains(allowed, k) {
			return refused("source.url query parameter %q is not supported (%s are)", k, strings.Join(allowed, ", "))
		}
	}
	return nil
}

// allowedEndpoint refuses an endpoint the cluster admin has not listed with flag, so that
// a tenant cannot make the manager send requests, signed or not, to any host it names.
func allowedEndpoint(ep string, allowed []string, flag string) error {
	if !slices.Contains(allowed, strings.TrimSuffix(ep, "/")) {
		return refused("the endpoint %s is not one this installation allows for dataset sources; the cluster admin lists them in the manager's %s", ep, flag)
	}
	return nil
}

// openObject opens key in bucket, closing bucket and closers with the reader, and says why
// the store would not give it in words a person can act on. Those errors are tried again:
// an object may be uploaded and a Secret's credentials fixed after the Dataset is applied.
func openObject(ctx context.Context, bucket *blob.Bucket, u *url.URL, key string, secretRef *discov1.ObjectRef, closers ...io.Closer) (io.ReadCloser, error) {
	closers = append([]io.Closer{bucket}, closers...)
	r, err := bucket.NewReader(ctx, key, nil)
	if err == nil {
		return readCloser{r, closers}, nil
	}
	for _, c := range closers {
		_ = c.Close() // nothing was read
	}
	where := fmt.Sprintf("%s://%s/%s", u.Scheme, u.Host, key)
	status, code := httpStatus(err)
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden || gcerrors.Code(err) == gcerrors.PermissionDenied:
		if secretRef == nil {
			return nil, fmt.Errorf("the store refused an anonymous read of %s (HTTP %d %s): the object is not public; "+
				"name a Secret with credentials that may read it in source.secretRef", where, status, code)
		}
		return nil, fmt.Errorf("the store refused the credentials of the Secret %s for %s (HTTP %d %s): "+
			"check that they are valid and may read the object", secretRef.Name, where, status, code)
	case status == http.StatusNotFound || gcerrors.Code(err) == gcerrors.NotFound:
		return nil, fmt.Errorf("the object %s does not exist (yet) in the bucket %s", key, u.Host)
	case status != 0:
		return nil, fmt.Errorf("the store answered HTTP %d %s for %s", status, code, where)
	}
	return nil, fmt.Errorf("reading %s: %w", where, withoutURL(err))
}

// httpStatus is the HTTP status and the store's error code of a failed request, 0 when
// the request got no answer.
func httpStatus(err error) (int, string) {
	var gerr *googleapi.Error
	var aerr *azcore.ResponseError
	var herr interface{ HTTPStatusCode() int } // aws-sdk-go-v2's ResponseError
	switch {
	case errors.As(err, &gerr):
		return gerr.Code, http.StatusText(gerr.Code)
	case errors.As(err, &aerr):
		return aerr.StatusCode, aerr.ErrorCode
	case errors.As(err, &herr):
		return herr.HTTPStatusCode(), http.StatusText(herr.HTTPStatusCode())
	}
	return 0, ""
}

// withoutURL drops the request URL from a transport error: an Azure SAS token rides in its
// query, and status messages must not carry credentials.
func withoutURL(err error) error {
	var uerr *url.Error
	if errors.As(err, &uerr) {
		return fmt.Errorf("%s: %w", uerr.Op, uerr.Err)
	}
	return err
}

// readCloser closes the bucket and what else the reader needs with it.
type readCloser struct {
	*blob.Reader
	closers []io.Closer
}

func (r readCloser) Close() error {
	errs := []error{r.Reader.Close()}
	for _, c := range r.closers {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}
