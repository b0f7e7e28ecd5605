package apiserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/blob"
	"github.com/discolab/disco/internal/ids"
)

// tenantProfileKey is where the controller stores a dataset's profile.
func tenantProfileKey(tenantID string, ds *discov1.Dataset) string {
	return blob.DatasetProfileKey(tenantID, ds.Namespace, ds.Name, string(ds.UID))
}

func datasetObject(t *testing.T, ns, datasetID string) *discov1.Dataset {
	t.Helper()
	var ds discov1.Dataset
	if err := env.direct.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: ids.ToName(datasetID)}, &ds); err != nil {
		t.Fatal(err)
	}
	return &ds
}

// setDatasetStatus writes a dataset's status and waits for the facade's cache to see it.
func setDatasetStatus(t *testing.T, ds *discov1.Dataset, status discov1.DatasetStatus) {
	t.Helper()
	ctx := context.Background()
	fresh := datasetObject(t, ds.Namespace, ids.FromName(ds.Name))
	fresh.Status = status
	if err := env.direct.Status().Update(ctx, fresh); err != nil {
		t.Fatal(err)
	}
	inFacadeCache(t, fresh)
}

func TestDatasetKeysAreTenantScoped(t *testing.T) {
	ctx := context.Background()
	key := env.adminA
	pid := mustProject(t, key, nil)
	did := upload(t, key, pid, "d.csv", csvData(20), `{"name": "d", "format": "csv"}`).expect(t, 201).str("id")
	ds := datasetObject(t, nsA(), did)
	if want := blob.DatasetKey(env.tenantA, nsA(), pid, did); ds.Spec.BlobKey != want {
		t.Fatalf("blob key %q, want %q", ds.Spec.BlobKey, want)
	}
	if blob.UnderDatasetPrefix(env.tenantB, "disco-"+ids.ToName(env.tenantB), ds.Spec.BlobKey) {
		t.Fatal("tenant A's upload is under tenant B's prefix")
	}

	profile := func(body string) string {
		return `{"row_count": 7, "column_count": 1, "columns": [{"name": "` + body + `", "dtype": "float64", "mean": 1, "std": 0, "null_count": 0}],
			"quality": {"completeness": 1, "duplicate_rows": 0, "outlier_fraction": 0}}`
	}
	now := metav1.Now()
	serve := func(profileKey, column string) *response {
		t.Helper()
		if err := env.blob.Put(ctx, profileKey, []byte(profile(column))); err != nil {
			t.Fatal(err)
		}
		setDatasetStatus(t, ds, discov1.DatasetStatus{Phase: discov1.DatasetReady, Rows: 7, Columns: 1, Variables: []string{column},
			ProfileKey: profileKey, ProfiledAt: &now})
		return call(t, "GET", "/v1/projects/"+pid+"/datasets/"+did+"/profile", key, nil)
	}
	// Its own key, and the earlier layout's key of this very dataset, are served.
	if r := serve(tenantProfileKey(env.tenantA, ds), "own").expect(t, 200); r.JSON["row_count"] != 7.0 {
		t.Fatalf("own profile: %s", r.Raw)
	}
	serve(blob.LegacyDatasetProfileKey(ds.Name), "legacy").expect(t, 200)
	// A status naming tenant B's profile, or another dataset's legacy one, is not read.
	victim := &discov1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: ds.Name, Namespace: "disco-" + ids.ToName(env.tenantB), UID: "victim"}}
	for _, foreign := range []string{tenantProfileKey(env.tenantB, victim), blob.LegacyDatasetProfileKey(ids.ToName(ids.New(ids.Dataset)))} {
		r := serve(foreign, "secret").expect(t, 404, "not_found")
		if strings.Contains(string(r.Raw), "secret") {
			t.Fatalf("foreign profile served: %s", r.Raw)
		}
	}
}

// wideCSVFile has n columns and one row.
func wideCSVFile(n int) []byte {
	names, ones := make([]string, n), make([]string, n)
	for j := range n {
		names[j], ones[j] = fmt.Sprintf("c%d", j), "1"
	}
	return []byte(strings.Join(names, ",") + "\n" + strings.Join(ones, ",") + "\n")
}

// wideParquetFile has n optional double columns and one row.
func wideParquetFile(t *testing.T, n int) []byte {
	t.Helper()
	fields := parquet.Group{}
	for j := range n {
		fields[fmt.Sprintf("v%04d", j)] = parquet.Optional(parquet.Leaf(parquet.DoubleType))
	}
	var buf bytes.Buffer
	w := parquet.NewWriter(&buf, parquet.NewSchema("wide", fields))
	row := parquet.Row{}
	for j := range n {
		row = append(row, parquet.DoubleValue(float64(j)).Level(0, 1, j))
	}
	if _, err := w.WriteRows([]parquet.Row{row}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestDatasetUploadRefusesWideFiles(t *testing.T) {
	key := env.adminA
	pid := mustProject(t, key, nil)
	for _, c := range []struct {
		format string
		file   func(n int) []byte
	}{
		{"csv", wideCSVFile},
		{"parquet", func(n int) []byte { return wideParquetFile(t, n) }},
	} {
		meta := `{"name": "wide", "format": "` + c.format + `"}`
		r := upload(t, key, pid, "wide."+c.format, c.file(4097), meta).expect(t, 422, "dataset_too_wide")
		if d := r.errDetails(); d["columns"] != 4097.0 || d["limit"] != 4096.0 {
			t.Fatalf("%s details: %s", c.format, r.Raw)
		}
		if msg := r.JSON["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "4096") {
			t.Errorf("%s message %q does not name the limit", c.format, msg)
		}
		upload(t, key, pid, "ok."+c.format, c.file(4096), meta).expect(t, 201)
	}
	var list discov1.DatasetList
	if err := env.direct.List(context.Background(), &list, client.InNamespace(nsA()), client.MatchingLabels{discov1.LabelProject: pid}); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 2 {
		t.Fatalf("%d datasets stored, want the two at the limit", len(list.Items))
	}
}

func TestDatasetUploadToArchivedProject(t *testing.T) {
	key := env.adminA
	pid := mustProject(t, key, nil)
	call(t, "PATCH", "/v1/projects/"+pid, key, map[string]any{"status": "archived"}).expect(t, 200)
	eventually(t, func() error {
		r := upload(t, key, pid, "d.csv", csvData(20), `{"name": "d", "format": "csv"}`)
		if r.Status != http.StatusConflict {
			return fmt.Errorf("upload to an archived project: %d %s", r.Status, r.Raw)
		}
		if r.errCode() != "conflict" || r.errDetails()["status"] != "archived" {
			t.Fatalf("archived: %s", r.Raw)
		}
		return nil
	})
}

// TestDatasetUploadTruncatedBody: an upload whose body ends before its Content-Length is
// the client's fault, 400 malformed_request, not 500.
func TestDatasetUploadTruncatedBody(t *testing.T) {
	pid := mustProject(t, env.adminA, nil)
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	writeUpload(t, mw, `{"name": "cut", "format": "csv"}`, "d.csv", csvData(200))
	must(t, mw.Close())
	sent := body.Bytes()[:body.Len()/2]

	addr := env.http.Listener.Addr().String()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	must(t, conn.SetDeadline(time.Now().Add(30*time.Second)))
	_, err = fmt.Fprintf(conn, "POST /v1/projects/%s/datasets HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n",
		pid, addr, env.adminA, mw.FormDataContentType(), body.Len())
	must(t, err)
	_, err = conn.Write(sent)
	must(t, err)
	must(t, conn.(*net.TCPConn).CloseWrite())
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var envelope struct {
		Error struct{ Code string } `json:"error"`
	}
	raw, _ := io.ReadAll(res.Body)
	_ = json.Unmarshal(raw, &envelope)
	if res.StatusCode != http.StatusBadRequest || envelope.Error.Code != "malformed_request" {
		t.Fatalf("truncated upload: %d %s", res.StatusCode, raw)
	}
}

// scratchServer starts a facade whose uploads are spooled in dir.
func scratchServer(t *testing.T, dir string) string {
	t.Helper()
	hs := httptest.NewUnstartedServer(nil)
	url := "http://" + hs.Listener.Addr().String() + "/v1"
	s, err := New(Options{Client: env.client, APIReader: env.direct, Store: env.store, Ledger: env.ledger, Blob: env.blob,
		BaseURL: url, MaxUploadBytes: 1 << 20, ScratchDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for tier := range s.front.Limits.Requests {
		s.front.Limits.Requests[tier] = 1 << 20
	}
	hs.Config.Handler = s.Handler()
	hs.Start()
	t.Cleanup(hs.Close)
	return strings.TrimSuffix(url, "/v1")
}

func uploadFiles(t *testing.T, dir string) []os.FileInfo {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []os.FileInfo
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "upload-") {
			info, err := e.Info()
			if err == nil {
				out = append(out, info)
			}
		}
	}
	return out
}

// TestDatasetUploadScratchFiles (issue 17): uploads are spooled to 0600 files in the
// configured private directory, removed afterwards, and files a killed process left
// there are deleted when the facade starts.
func TestDatasetUploadScratchFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "scratch")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	orphan := filepath.Join(dir, "upload-1234")
	if err := os.WriteFile(orphan, bytes.Repeat([]byte("x"), 1<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join(dir, "run-data")
	if err := os.WriteFile(keep, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	base := scratchServer(t, dir)
	if _, err := os.Stat(orphan); !os.IsNotExist(err) {
		t.Fatalf("orphaned upload file survived the start: %v", err)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Fatalf("a file that is not an upload was deleted: %v", err)
	}
	if info, _ := os.Stat(dir); info.Mode().Perm() != 0o700 {
		t.Fatalf("scratch dir mode %v, want 0700", info.Mode().Perm())
	}

	// Send the metadata and part of the file, look at the spool, then finish.
	pid := mustProject(t, env.adminA, nil)
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	done := make(chan *http.Response, 1)
	go func() {
		req, _ := http.NewRequest("POST", base+"/v1/projects/"+pid+"/datasets", pr)
		req.Header.Set("Authorization", "Bearer "+env.adminA)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			pr.CloseWithError(err)
			done <- nil
			return
		}
		done <- res
	}()
	// The file part is sent in two halves; the first is spooled before the second comes.
	data := csvData(2000)
	fw := writeUpload(t, mw, `{"name": "spooled", "format": "csv"}`, "d.csv", data[:len(data)/2])
	eventually(t, func() error {
		files := uploadFiles(t, dir)
		if len(files) != 1 {
			return fmt.Errorf("%d upload files in the scratch dir", len(files))
		}
		if files[0].Mode().Perm() != 0o600 {
			t.Fatalf("upload file mode %v, want 0600", files[0].Mode().Perm())
		}
		return nil
	})
	_, err := fw.Write(data[len(data)/2:])
	must(t, err)
	must(t, mw.Close())
	pw.Close()
	res := <-done
	if res == nil || res.StatusCode != http.StatusCreated {
		t.Fatalf("spooled upload: %v", res)
	}
	res.Body.Close()
	if files := uploadFiles(t, dir); len(files) != 0 {
		t.Fatalf("%d upload files left after the upload", len(files))
	}
	if !strings.HasPrefix(env.server.opts.ScratchDir, os.TempDir()) {
		t.Errorf("default scratch dir %q is not under the OS temp dir", env.server.opts.ScratchDir)
	}
	if info, err := os.Stat(env.server.opts.ScratchDir); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("default scratch dir: %v %v", info, err)
	}
}

// TestDatasetMessagesHideServerPaths (issue 17): a status message that names a server
// path (as profiling failures did) reaches clients without it.
func TestDatasetMessagesHideServerPaths(t *testing.T) {
	key := env.adminA
	pid := mustProject(t, key, nil)
	did := upload(t, key, pid, "d.csv", csvData(20), `{"name": "d", "format": "csv"}`).expect(t, 201).str("id")
	msg := "cannot open dataset file: open /var/lib/disco/tmp/profile-123/data.csv: no such file or directory"
	setDatasetStatus(t, datasetObject(t, nsA(), did), discov1.DatasetStatus{Phase: discov1.DatasetFailed, Message: msg})
	g := call(t, "GET", "/v1/projects/"+pid+"/datasets/"+did, key, nil).expect(t, 200)
	p := call(t, "GET", "/v1/projects/"+pid+"/datasets/"+did+"/profile", key, nil).expect(t, 409, "dataset_not_ready")
	l := call(t, "GET", "/v1/projects/"+pid+"/datasets", key, nil).expect(t, 200)
	for _, r := range []*response{g, p, l} {
		if strings.Contains(string(r.Raw), "/var/lib") || strings.Contains(string(r.Raw), "profile-123") {
			t.Errorf("server path in %s", r.Raw)
		}
		if !strings.Contains(string(r.Raw), "no such file or directory") {
			t.Errorf("the rest of the message is lost: %s", r.Raw)
		}
	}
}
