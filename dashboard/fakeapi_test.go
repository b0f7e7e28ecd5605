package dashboard

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeAPI stands in for the REST API where the real one cannot be driven cheaply (a
// 512 MiB upload, an expired access token).
type fakeAPI struct {
	mu       sync.Mutex
	access   string // the access token the API accepts
	refresh  string // the refresh token it exchanges
	refreshN int
	upload   []string // the parts of the last upload, in order
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.URL.Path == "/v1/auth/token":
		_ = r.ParseForm()
		if r.PostForm.Get("grant_type") != "refresh_token" || r.PostForm.Get("refresh_token") != f.refresh {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"error":{"code":"invalid_grant","message":"the refresh token was used","status":400}}`)
			return
		}
		f.refreshN++
		f.access, f.refresh = "disco_session_new", "disco_refresh_new"
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": f.access, "refresh_token": f.refresh, "expires_in": 86400, "token_type": "Bearer"})
	case r.Header.Get("Authorization") != "Bearer "+f.access:
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"error":{"code":"unauthenticated","message":"expired","status":401}}`)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/datasets"):
		mr, err := r.MultipartReader()
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		f.upload = nil
		for {
			p, err := mr.NextPart()
			if err != nil {
				break
			}
			f.upload = append(f.upload, p.FormName())
			if p.FormName() == "file" {
				w.WriteHeader(http.StatusRequestEntityTooLarge)
				_, _ = io.WriteString(w, `{"error":{"code":"payload_too_large","message":"the file is larger than 512 MiB","status":413}}`)
				return
			}
		}
	case r.URL.Path == "/v1/projects":
		_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"proj_a","name":"alpha"}],"has_more":false}`)
	default:
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"error":{"code":"not_found","message":"not found","status":404}}`)
	}
}

func newTestDashboard(t *testing.T, f *fakeAPI) *Dashboard {
	t.Helper()
	d, err := New(Options{API: f, BaseURL: "http://127.0.0.1:8080/v1", CookieKey: bytes.Repeat([]byte{1}, 32),
		ClientFor: func(context.Context, string) (string, error) { return "cli_x", nil }})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func sessionCookieFor(t *testing.T, d *Dashboard, s session) *http.Cookie {
	t.Helper()
	v, err := d.sealer.seal(sessionCookie, s)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Cookie{Name: sessionCookie, Value: v}
}

// An upload the API refuses as too large shows the API's message with its status; the
// metadata part goes before the file, as the API reads them.
func TestUploadTooLargeShowsTheMessage(t *testing.T) {
	f := &fakeAPI{access: "disco_session_a"}
	d := newTestDashboard(t, f)
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("name", "big")
	fw, _ := mw.CreateFormFile("file", "big.csv")
	_, _ = fw.Write(bytes.Repeat([]byte("1,2\n"), 1<<16))
	_ = mw.Close()
	req := httptest.NewRequest(http.MethodPost, "/projects/proj_a/datasets", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("HX-Request", "true")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.AddCookie(sessionCookieFor(t, d, session{Access: "disco_session_a", Expires: time.Now().Add(time.Hour), Client: "cli_x"}))
	rec := httptest.NewRecorder()
	d.ServeHTTP(rec, req)
	if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(rec.Body.String(), "The file is too large: the file is larger than 512 MiB") {
		t.Fatalf("answer %d %q", rec.Code, rec.Body.String())
	}
	if strings.Join(f.upload, ",") != "metadata,file" {
		t.Errorf("the API got the parts %v", f.upload)
	}
}

// An expired access token is refreshed once (the refresh token rotates) even when
// several requests arrive with the same cookie, and the new tokens go into the cookie.
func TestExpiredSessionRefreshesOnceAndRotates(t *testing.T) {
	f := &fakeAPI{access: "disco_session_old", refresh: "disco_refresh_old"}
	d := newTestDashboard(t, f)
	cookie := sessionCookieFor(t, d, session{Access: "disco_session_old", Refresh: "disco_refresh_old",
		Expires: time.Now().Add(-time.Minute), Client: "cli_x"})
	f.access = "disco_session_revoked_by_expiry"
	var wg sync.WaitGroup
	codes := make([]int, 4)
	cookies := make([]*http.Cookie, 4)
	for i := range codes {
		wg.Go(func() {
			req := httptest.NewRequest(http.MethodGet, "/projects", nil)
			req.AddCookie(cookie)
			rec := httptest.NewRecorder()
			d.ServeHTTP(rec, req)
			codes[i] = rec.Code
			for _, c := range rec.Result().Cookies() {
				if c.Name == sessionCookie {
					cookies[i] = c
				}
			}
		})
	}
	wg.Wait()
	for i, code := range codes {
		if code != http.StatusOK || cookies[i] == nil {
			t.Fatalf("request %d: %d, new cookie %v", i, code, cookies[i] != nil)
		}
		var s session
		if err := d.sealer.open(sessionCookie, cookies[i].Value, &s); err != nil || s.Access != "disco_session_new" || s.Refresh != "disco_refresh_new" {
			t.Errorf("request %d: cookie holds %+v (%v)", i, s, err)
		}
	}
	if f.refreshN != 1 {
		t.Errorf("the refresh token was exchanged %d times", f.refreshN)
	}
}

// A session whose refresh fails (revoked, reused) goes to sign-in, and its cookie is
// cleared.
func TestEndedSessionGoesToSignIn(t *testing.T) {
	f := &fakeAPI{access: "disco_session_other", refresh: "disco_refresh_other"}
	d := newTestDashboard(t, f)
	req := httptest.NewRequest(http.MethodGet, "/projects/proj_a/claims?tier=validate", nil)
	req.AddCookie(sessionCookieFor(t, d, session{Access: "disco_session_gone", Refresh: "disco_refresh_gone",
		Expires: time.Now().Add(time.Hour), Client: "cli_x"}))
	rec := httptest.NewRecorder()
	d.ServeHTTP(rec, req)
	if loc := rec.Header().Get("Location"); rec.Code != http.StatusSeeOther || loc != "/signin?next=%2Fprojects%2Fproj_a%2Fclaims%3Ftier%3Dvalidate" {
		t.Fatalf("answer %d, Location %q", rec.Code, loc)
	}
	if c := rec.Result().Cookies(); len(c) != 1 || c[0].Name != sessionCookie || c[0].MaxAge >= 0 {
		t.Errorf("the cookie is not cleared: %v", c)
	}
}

// A cross-origin form post is refused before it reaches the API.
func TestCrossOriginPostIsRefused(t *testing.T) {
	f := &fakeAPI{access: "disco_session_a"}
	d := newTestDashboard(t, f)
	req := httptest.NewRequest(http.MethodPost, "/projects", strings.NewReader("name=x"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.AddCookie(sessionCookieFor(t, d, session{Access: "disco_session_a", Expires: time.Now().Add(time.Hour)}))
	rec := httptest.NewRecorder()
	d.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Fatalf("a cross-site post answered %d", rec.Code)
	}
}
