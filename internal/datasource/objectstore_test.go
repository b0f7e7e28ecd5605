package datasource_test

import (
	"crypto"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/datasource"
)

// recorder keeps the Authorization header of each request a fake store served.
type recorder struct {
	mu   sync.Mutex
	auth []string
}

func (r *recorder) add(a string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.auth = append(r.auth, a)
}

func (r *recorder) last() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.auth) == 0 {
		return "<no request>"
	}
	return r.auth[len(r.auth)-1]
}

func secretsOf(objs ...client.Object) client.Reader {
	return fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(objs...).Build()
}

func secret(ns, name string, data map[string]string) *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Data: map[string][]byte{}}
	for k, v := range data {
		s.Data[k] = []byte(v)
	}
	return s
}

// errCase is a source of namespace team-a that fails: refused for good, or tried again.
type errCase struct {
	src     *discov1.DatasetSource
	refused bool
	want    string
}

func wantErrors(t *testing.T, o datasource.Opener, cases []errCase) {
	t.Helper()
	for _, c := range cases {
		_, err := read(t, o, "team-a", c.src)
		if c.refused {
			wantRefused(t, err, c.want)
		} else {
			wantRetry(t, err, c.want)
		}
	}
}

// src is a URL source with the credentials of the Secret named secret, or none for "".
func src(u, secret string) *discov1.DatasetSource {
	s := &discov1.DatasetSource{URL: u}
	if secret != "" {
		s.SecretRef = &discov1.ObjectRef{Name: secret}
	}
	return s
}

// serviceAccountKey is a service account key file for email, as Google issues them. Its
// token_uri points at tokenURI: a self-signed JWT must never call it.
func serviceAccountKey(t *testing.T, email, tokenURI string) (string, *rsa.PublicKey) {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(map[string]string{
		"type": "service_account", "project_id": "lab", "private_key_id": "k1", "client_id": "1",
		"private_key":  string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email": email, "token_uri": tokenURI,
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(js), &k.PublicKey
}

// bearerOf reports whether a is a JWT of iss signed with pub (RS256, RFC 7515).
func bearerOf(a, iss string, pub *rsa.PublicKey) bool {
	tok, ok := strings.CutPrefix(a, "Bearer ")
	parts := strings.Split(tok, ".")
	if !ok || len(parts) != 3 {
		return false
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return false
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if rsa.VerifyPKCS1v15(pub, crypto.SHA256, sum[:], sig) != nil {
		return false
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	var claims struct{ Iss string }
	return err == nil && json.Unmarshal(payload, &claims) == nil && claims.Iss == iss
}

// fakeGCS serves Cloud Storage's XML download (GET /bucket/object), the request
// gcsblob's reader makes: lab/runs/sachs.csv for the service account email signed with
// pub, open/sachs.csv to anyone.
func fakeGCS(t *testing.T, email string, pub *rsa.PublicKey) (*httptest.Server, *recorder) {
	rec := &recorder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := r.Header.Get("Authorization")
		rec.add(a)
		switch {
		case r.Method != http.MethodGet:
			w.WriteHeader(http.StatusMethodNotAllowed)
		case r.URL.Path == "/open/sachs.csv":
			_, _ = io.WriteString(w, table)
		case r.URL.Path != "/lab/runs/sachs.csv":
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `<?xml version="1.0"?><Error><Code>NoSuchKey</Code></Error>`)
		case a == "":
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `<?xml version="1.0"?><Error><Code>AccessDenied</Code><Message>Anonymous caller does not have storage.objects.get access</Message></Error>`)
		case !bearerOf(a, email, pub):
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, `<?xml version="1.0"?><Error><Code>AccessDenied</Code></Error>`)
		default:
			_, _ = io.WriteString(w, table)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, rec
}

func TestGCSSourcesUseTheTenantsServiceAccountOrNone(t *testing.T) {
	var tokenCalls atomic.Int32
	tokenSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { tokenCalls.Add(1) }))
	defer tokenSrv.Close()
	const email = "reader@lab.iam.gserviceaccount.com"
	key, pub := serviceAccountKey(t, email, tokenSrv.URL)
	otherKey, _ := serviceAccountKey(t, email, tokenSrv.URL) // the same account, a key GCS does not know
	srv, rec := fakeGCS(t, email, pub)
	c := secretsOf(
		secret("team-a", "gcs", map[string]string{datasource.GCSKeyServiceAccount: key}),
		secret("team-a", "revoked", map[string]string{datasource.GCSKeyServiceAccount: otherKey}),
		secret("team-a", "s3-keys", map[string]string{"AWS_ACCESS_KEY_ID": "AKIA", "AWS_SECRET_ACCESS_KEY": "x"}),
		secret("team-a", "user-creds", map[string]string{datasource.GCSKeyServiceAccount: `{"type":"authorized_user","client_id":"x","client_secret":"y","refresh_token":"z"}`}),
		secret("team-b", "gcs-b", map[string]string{datasource.GCSKeyServiceAccount: key}),
	)
	o := datasource.Opener{Reader: c, GCSEndpoints: []string{srv.URL}}
	u := "gs://lab/runs/sachs.csv?endpoint=" + srv.URL

	if got, err := read(t, o, "team-a", src(u, "gcs")); err != nil || got != table {
		t.Fatalf("with the service account: %q, %v", got, err)
	}
	if !bearerOf(rec.last(), email, pub) {
		t.Errorf("the request did not carry a JWT of the tenant's service account: %q", rec.last())
	}
	if got, err := read(t, o, "team-a", src("gs://open/sachs.csv?endpoint="+srv.URL, "")); err != nil || got != table {
		t.Fatalf("anonymous, public object: %q, %v", got, err)
	}
	if a := rec.last(); a != "" {
		t.Errorf("an anonymous source sent Authorization %q", a)
	}
	if n := tokenCalls.Load(); n != 0 {
		t.Errorf("the key's token_uri was called %d times; a self-signed JWT needs no token endpoint", n)
	}

	wantErrors(t, o, []errCase{
		{src(u, "revoked"), false, "refused the credentials of the Secret revoked"},
		{src(u, ""), false, "name a Secret with credentials"},
		{src(strings.Replace(u, "sachs.csv", "gone.csv", 1), "gcs"), false, "does not exist (yet)"},
		// A secretRef is namespace-local: team-a cannot use team-b's Secret.
		{src(u, "gcs-b"), false, "Secret gcs-b does not exist in namespace team-a"},
		{src(u, "s3-keys"), true, "needs the key service_account.json"},
		{src(u, "user-creds"), true, "not a usable service account key"},
		{src(u+"&credentials_file=/var/run/secrets/key.json", "gcs"), true, `"credentials_file" is not supported`},
		{src("gs://lab", "gcs"), true, "must be gs://bucket/key"},
	})
	wantErrors(t, datasource.Opener{Reader: c}, []errCase{{src(u, "gcs"), true, "--dataset-source-gcs-endpoints"}})
}

// azureKey is a storage account key (Azure issues 64 random bytes, base64).
var azureKey = base64.StdEncoding.EncodeToString([]byte(strings.Repeat("k3y", 22)))

// sharedKeySignature signs r as the Blob service's Shared Key authorization does
// (https://learn.microsoft.com/rest/api/storageservices/authorize-with-shared-key).
func sharedKeySignature(r *http.Request, account, key string) string {
	h := func(name string) string { return r.Header.Get(name) }
	length := h("Content-Length")
	if length == "0" {
		length = ""
	}
	var msHeaders []string
	for k := range r.Header {
		if lk := strings.ToLower(k); strings.HasPrefix(lk, "x-ms-") {
			msHeaders = append(msHeaders, lk+":"+strings.Join(r.Header.Values(k), ","))
		}
	}
	slices.Sort(msHeaders)
	resource := "/" + account + r.URL.EscapedPath()
	q := r.URL.Query()
	names := make([]string, 0, len(q))
	for n := range q {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		v := q[n]
		slices.Sort(v)
		resource += "\n" + strings.ToLower(n) + ":" + strings.Join(v, ",")
	}
	toSign := strings.Join([]string{r.Method, h("Content-Encoding"), h("Content-Language"), length, h("Content-MD5"),
		h("Content-Type"), "", h("If-Modified-Since"), h("If-Match"), h("If-None-Match"), h("If-Unmodified-Since"),
		h("Range"), strings.Join(msHeaders, "\n"), resource}, "\n")
	k, _ := base64.StdEncoding.DecodeString(key)
	mac := hmac.New(sha256.New, k)
	_, _ = mac.Write([]byte(toSign))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// fakeAzure serves the Blob service's Get Blob and Get Blob Properties for the account
// labacct, path style (as Azurite): container lab, blob runs/sachs.csv, for a request
// signed with azureKey (Shared Key) or carrying the SAS signature "good"; container open
// to anyone.
func fakeAzure(t *testing.T) (*httptest.Server, *recorder) {
	rec := &recorder{}
	fail := func(w http.ResponseWriter, status int, code string) {
		w.Header().Set("x-ms-error-code", code)
		w.WriteHeader(status)
		_, _ = io.WriteString(w, `<?xml version="1.0" encoding="utf-8"?><Error><Code>`+code+`</Code><Message>fake</Message></Error>`)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := r.Header.Get("Authorization")
		rec.add(a)
		authorized := a == "SharedKey labacct:"+sharedKeySignature(r, "labacct", azureKey) || r.URL.Query().Get("sig") == "good"
		switch {
		case r.Method != http.MethodGet && r.Method != http.MethodHead:
			fail(w, http.StatusMethodNotAllowed, "UnsupportedHttpVerb")
			return
		case r.URL.Path != "/labacct/lab/runs/sachs.csv" && r.URL.Path != "/labacct/open/sachs.csv":
			fail(w, http.StatusNotFound, "BlobNotFound")
			return
		case r.URL.Path == "/labacct/lab/runs/sachs.csv" && a == "" && r.URL.Query().Get("sig") == "":
			fail(w, http.StatusNotFound, "ResourceNotFound") // Azure hides private containers from anonymous callers
			return
		case r.URL.Path == "/labacct/lab/runs/sachs.csv" && !authorized:
			fail(w, http.StatusForbidden, "AuthenticationFailed")
			return
		}
		w.Header().Set("Content-Type", "text/csv")
		w.Header().Set("Content-Length", "12")
		w.Header().Set("Last-Modified", time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC).Format(http.TimeFormat))
		w.Header().Set("ETag", `"0x1"`)
		w.Header().Set("x-ms-blob-type", "BlockBlob")
		w.Header().Set("x-ms-version", "2025-01-05")
		if r.Method == http.MethodGet {
			_, _ = io.WriteString(w, table)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, rec
}

func TestAzureSourcesUseTheTenantsKeyOrSASOrNone(t *testing.T) {
	srv, rec := fakeAzure(t)
	ep := srv.URL + "/labacct"
	c := secretsOf(
		secret("team-a", "az", map[string]string{datasource.AzureKeyAccount: "labacct", datasource.AzureKeyAccountKey: azureKey}),
		secret("team-a", "az-sas", map[string]string{datasource.AzureKeyAccount: "labacct", datasource.AzureKeySASToken: "sv=2025-01-05&sr=c&sp=r&sig=good"}),
		secret("team-a", "az-wrong", map[string]string{datasource.AzureKeyAccount: "labacct",
			datasource.AzureKeyAccountKey: base64.StdEncoding.EncodeToString([]byte("not the account's key"))}),
		secret("team-a", "az-nokey", map[string]string{datasource.AzureKeyAccount: "labacct"}),
		secret("team-a", "az-notbase64", map[string]string{datasource.AzureKeyAccount: "labacct", datasource.AzureKeyAccountKey: "%%%"}),
		secret("team-a", "az-hostile", map[string]string{datasource.AzureKeyAccount: "evil.example/x?", datasource.AzureKeyAccountKey: azureKey}),
		secret("team-b", "az-b", map[string]string{datasource.AzureKeyAccount: "labacct", datasource.AzureKeyAccountKey: azureKey}),
	)
	o := datasource.Opener{Reader: c, AzureEndpoints: []string{ep}}
	u := "azblob://lab/runs/sachs.csv?endpoint=" + url.QueryEscape(ep)

	if got, err := read(t, o, "team-a", src(u, "az")); err != nil || got != table {
		t.Fatalf("with the account key: %q, %v", got, err)
	}
	if a := rec.last(); !strings.HasPrefix(a, "SharedKey labacct:") {
		t.Errorf("the request was not signed with the tenant's Shared Key: %q", a)
	}
	if got, err := read(t, o, "team-a", src(u, "az-sas")); err != nil || got != table {
		t.Fatalf("with a SAS token: %q, %v", got, err)
	}
	if got, err := read(t, o, "team-a", src("azblob://open/sachs.csv?storage_account=labacct&endpoint="+url.QueryEscape(ep), "")); err != nil || got != table {
		t.Fatalf("anonymous, public container: %q, %v", got, err)
	}
	if a := rec.last(); a != "" {
		t.Errorf("an anonymous source sent Authorization %q", a)
	}

	wantErrors(t, o, []errCase{
		{src(u, "az-wrong"), false, "refused the credentials of the Secret az-wrong for azblob://lab/runs/sachs.csv (HTTP 403 AuthenticationFailed)"},
		{src(u+"&storage_account=labacct", ""), false, "does not exist (yet)"},
		{src(strings.Replace(u, "sachs.csv", "gone.csv", 1), "az"), false, "does not exist (yet)"},
		// A secretRef is namespace-local: team-a cannot use team-b's Secret.
		{src(u, "az-b"), false, "Secret az-b does not exist in namespace team-a"},
		{src(u, "az-nokey"), true, "needs the key AZURE_STORAGE_KEY"},
		{src(u, "az-notbase64"), true, "not a storage account key"},
		{src(u+"&storage_account=otheracct", "az"), true, "holds labacct's credentials"},
		{src(u, ""), true, "needs its storage account"},
		{src(u+"&localemu=true", "az"), true, `"localemu" is not supported`},
		{src("azblob://Lab_Data/x.csv?storage_account=labacct", ""), true, "must be azblob://container/key"},
	})
	wantErrors(t, datasource.Opener{Reader: c}, []errCase{
		// The account name becomes a host name: nothing but a storage account name may pass.
		{src("azblob://lab/runs/sachs.csv", "az-hostile"), true, "is not a storage account name"},
		{src(u, "az"), true, "--dataset-source-azblob-endpoints"},
	})
}
