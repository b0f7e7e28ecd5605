package datasource_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/datasource"
)

const table = "x,y\n1,2\n3,4\n"

func read(t *testing.T, o datasource.Opener, ns string, src *discov1.DatasetSource) (string, error) {
	t.Helper()
	rc, err := o.Open(context.Background(), ns, src)
	if err != nil {
		return "", err
	}
	defer func() { _ = rc.Close() }()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), nil
}

func wantRefused(t *testing.T, err error, contains string) {
	t.Helper()
	var e *datasource.Error
	if !errors.As(err, &e) || !strings.Contains(err.Error(), contains) {
		t.Errorf("error %v: want a refusal that says %q", err, contains)
	}
}

func wantRetry(t *testing.T, err error, contains string) {
	t.Helper()
	var e *datasource.Error
	if err == nil || errors.As(err, &e) || !strings.Contains(err.Error(), contains) {
		t.Errorf("error %v: want an error tried again that says %q", err, contains)
	}
}

func TestConfigMapSourcesAreReadFromTheDatasetsNamespaceOnly(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "sachs", Namespace: "team-a"},
			Data: map[string]string{"sachs.csv": table}, BinaryData: map[string][]byte{"raw.csv": []byte(table)}},
	).Build()
	o := datasource.Opener{Reader: c}
	ref := func(name, key string) *discov1.DatasetSource {
		return &discov1.DatasetSource{ConfigMapRef: &discov1.ConfigMapKeyRef{Name: name, Key: key}}
	}
	for _, key := range []string{"sachs.csv", "raw.csv"} {
		if got, err := read(t, o, "team-a", ref("sachs", key)); err != nil || got != table {
			t.Errorf("key %s: %q, %v", key, got, err)
		}
	}
	_, err := read(t, o, "team-b", ref("sachs", "sachs.csv"))
	wantRetry(t, err, "does not exist in namespace team-b")
	_, err = read(t, o, "team-a", ref("sachs", "other.csv"))
	wantRetry(t, err, `no key "other.csv"`)
}

func TestFileSourcesStayInTheNamespacesDirectory(t *testing.T) {
	root := t.TempDir()
	for _, ns := range []string{"team-a", "team-b"} {
		if err := os.MkdirAll(filepath.Join(root, ns), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, ns, "data.csv"), []byte(table+ns), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(root, "team-b", "data.csv"), filepath.Join(root, "team-a", "link.csv")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(root, "team-a", "passwd")); err != nil {
		t.Fatal(err)
	}
	o := datasource.Opener{FileRoot: root}
	url := func(u string) *discov1.DatasetSource { return &discov1.DatasetSource{URL: u} }

	if got, err := read(t, o, "team-a", url("file://"+root+"/team-a/data.csv")); err != nil || got != table+"team-a" {
		t.Errorf("own file: %q, %v", got, err)
	}
	for _, u := range []string{
		"file://" + root + "/team-b/data.csv",               // another namespace's file
		"file://" + root + "/team-a/../team-b/data.csv",     // climbing out
		"file:///etc/passwd",                                // outside the root
		"file://" + root + "/team-a/",                       // no file
		"file://" + root + "/team-a",                        // the directory itself
		"file://" + root + "/team-a-other/data.csv",         // a sibling with the namespace as prefix
		"file://" + root + "/team-a/%2e%2e/team-b/data.csv", // escaped dots
	} {
		_, err := read(t, o, "team-a", url(u))
		wantRefused(t, err, "is not a file under")
	}
	for _, link := range []string{"link.csv", "passwd"} {
		_, err := read(t, o, "team-a", url("file://"+root+"/team-a/"+link))
		wantRefused(t, err, "outside namespace team-a's directory")
	}
	_, err := read(t, o, "team-a", url("file://"+root+"/team-a/later.csv"))
	wantRetry(t, err, "does not exist (yet)")
	_, err = read(t, o, "team-c", url("file://"+root+"/team-c/data.csv"))
	wantRetry(t, err, "does not exist (yet)")
	_, err = read(t, o, "team-a", url("file://otherhost"+root+"/team-a/data.csv"))
	wantRefused(t, err, "names host")
	_, err = read(t, datasource.Opener{}, "team-a", url("file://"+root+"/team-a/data.csv"))
	wantRefused(t, err, "--dataset-source-root")
}

// fakeS3 serves GET /bucket/key (path style) and records each request's Authorization.
func fakeS3(t *testing.T) (*httptest.Server, *[]string) {
	var auth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = append(auth, r.Header.Get("Authorization"))
		if r.Method != http.MethodGet || r.URL.Path != "/lab/runs/sachs.csv" {
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `<?xml version="1.0"?><Error><Code>NoSuchKey</Code><Message>no</Message></Error>`)
			return
		}
		_, _ = io.WriteString(w, table)
	}))
	t.Cleanup(srv.Close)
	return srv, &auth
}

func TestS3SourcesUseTheTenantsCredentialsOrNone(t *testing.T) {
	srv, auth := fakeS3(t)
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s3-creds", Namespace: "team-a"},
			Data: map[string][]byte{"AWS_ACCESS_KEY_ID": []byte("AKIATEAMA"), "AWS_SECRET_ACCESS_KEY": []byte("secret")}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "empty", Namespace: "team-a"}},
	).Build()
	o := datasource.Opener{Reader: c, S3Endpoints: []string{srv.URL}}
	u := "s3://lab/runs/sachs.csv?region=eu-west-1&use_path_style=true&endpoint=" + srv.URL

	if got, err := read(t, o, "team-a", &discov1.DatasetSource{URL: u, SecretRef: &discov1.ObjectRef{Name: "s3-creds"}}); err != nil || got != table {
		t.Fatalf("with credentials: %q, %v", got, err)
	}
	if n := len(*auth); n == 0 || !strings.Contains((*auth)[n-1], "Credential=AKIATEAMA/") {
		t.Errorf("the request was not signed with the tenant's key: %q", *auth)
	}
	if got, err := read(t, o, "team-a", &discov1.DatasetSource{URL: u}); err != nil || got != table {
		t.Fatalf("anonymous: %q, %v", got, err)
	}
	if a := (*auth)[len(*auth)-1]; a != "" {
		t.Errorf("an anonymous source sent Authorization %q", a)
	}

	_, err := read(t, o, "team-a", &discov1.DatasetSource{URL: strings.Replace(u, "sachs.csv", "gone.csv", 1)})
	wantRetry(t, err, "does not exist (yet)")
	_, err = read(t, o, "team-b", &discov1.DatasetSource{URL: u, SecretRef: &discov1.ObjectRef{Name: "s3-creds"}})
	wantRetry(t, err, "Secret s3-creds does not exist in namespace team-b")
	_, err = read(t, o, "team-a", &discov1.DatasetSource{URL: u, SecretRef: &discov1.ObjectRef{Name: "empty"}})
	wantRefused(t, err, "AWS_ACCESS_KEY_ID")
	_, err = read(t, datasource.Opener{Reader: c}, "team-a", &discov1.DatasetSource{URL: u})
	wantRefused(t, err, "--dataset-source-s3-endpoints")
	_, err = read(t, o, "team-a", &discov1.DatasetSource{URL: u + "&profile=admin"})
	wantRefused(t, err, `"profile" is not supported`)
	_, err = read(t, o, "team-a", &discov1.DatasetSource{URL: "https://lab.example/sachs.csv"})
	wantRefused(t, err, "use s3://, gs://, azblob:// or file://")
}
