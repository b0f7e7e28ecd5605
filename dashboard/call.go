package dashboard

import (
	"context"
	"crypto/sha256"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/discolab/disco/dashboard/api"
)

// errSignedOut means the session cannot be used any more: the user signs in again.
var errSignedOut = errors.New("dashboard: the session has ended")

// call is one browser request of a signed-in user: every API call it makes carries the
// user's session token.
type call struct {
	d *Dashboard
	w http.ResponseWriter
	r *http.Request
	s session
}

// refreshResult remembers the tokens a refresh token was exchanged for, for a minute, so
// requests that arrive together with the same cookie all get the new tokens instead of
// presenting the used refresh token again (which revokes the whole grant).
type refreshResult struct {
	s   session
	err error
	at  time.Time
}

const refreshMemory = time.Minute

// refresh exchanges the refresh token (the tokens rotate) and writes the new cookie.
func (c *call) refresh() error {
	d := c.d
	key := sha256.Sum256([]byte(c.s.Refresh))
	k := string(key[:])
	d.refreshMu.Lock()
	defer d.refreshMu.Unlock()
	now := d.now()
	for old, res := range d.refreshed {
		if now.Sub(res.at) > refreshMemory {
			delete(d.refreshed, old)
		}
	}
	res, ok := d.refreshed[k]
	if !ok {
		res = refreshResult{at: now}
		form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {c.s.Refresh}, "client_id": {c.s.Client}}
		var tok api.Token
		err := d.api.Do(c.r.Context(), api.Request{Method: http.MethodPost, Path: "/auth/token", Body: strings.NewReader(form.Encode()),
			ContentType: "application/x-www-form-urlencoded", RemoteAddr: c.r.RemoteAddr}, &tok)
		if err != nil {
			res.err = errSignedOut
			if st := api.StatusOf(err); st == 0 || st >= 500 || st == http.StatusTooManyRequests {
				res.err = err // the service's trouble, not the session's end
			}
		} else {
			res.s = c.s
			res.s.Access, res.s.Refresh = tok.AccessToken, tok.RefreshToken
			res.s.Expires = now.Add(time.Duration(tok.ExpiresIn) * time.Second)
		}
		if res.err == nil || errors.Is(res.err, errSignedOut) {
			d.refreshed[k] = res
		}
	}
	if res.err != nil {
		return res.err
	}
	c.s = res.s
	return d.setSession(c.w, &c.s)
}

// do calls the API as the user. An expired access token is refreshed first; a 401 is
// answered by one refresh and one retry when the body can be sent again.
func (c *call) do(req api.Request, out any) error {
	if c.d.now().After(c.s.Expires.Add(-time.Minute)) {
		if err := c.refresh(); err != nil {
			return err
		}
	}
	req.Token = c.s.Access
	req.RemoteAddr = c.r.RemoteAddr
	err := c.d.api.Do(c.ctx(), req, out)
	if api.StatusOf(err) == http.StatusUnauthorized && req.Body == nil {
		if rerr := c.refresh(); rerr != nil {
			return rerr
		}
		req.Token = c.s.Access
		err = c.d.api.Do(c.ctx(), req, out)
		if api.StatusOf(err) == http.StatusUnauthorized {
			return errSignedOut
		}
	} else if api.StatusOf(err) == http.StatusUnauthorized {
		return errSignedOut
	}
	return err
}

func (c *call) ctx() context.Context {
	return api.WithDeadlines(c.r.Context(), http.NewResponseController(c.w))
}

func (c *call) get(path string, q url.Values, out any) error {
	return c.do(api.Request{Method: http.MethodGet, Path: path, Query: q}, out)
}

func (c *call) send(method, path string, in, out any) error {
	return c.do(api.Request{Method: method, Path: path, JSON: in}, out)
}

// authed serves h for a signed-in user; anyone else goes to the sign-in page and back.
func (d *Dashboard) authed(h func(c *call) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c := &call{d: d, w: w, r: r}
		if !d.readCookie(r, sessionCookie, &c.s) || c.s.Access == "" {
			d.toSignIn(w, r)
			return
		}
		if err := h(c); err != nil {
			d.fail(c, err)
		}
	}
}

// toSignIn sends the browser to the sign-in page, coming back to this page (a GET) after.
func (d *Dashboard) toSignIn(w http.ResponseWriter, r *http.Request) {
	next := r.URL.RequestURI()
	if r.Method != http.MethodGet || r.Header.Get("HX-Request") != "" {
		next = r.Header.Get("HX-Current-URL")
		if u, err := url.Parse(next); err == nil {
			next = u.RequestURI()
		}
	}
	target := "/signin?next=" + url.QueryEscape(localPath(next))
	if r.Header.Get("HX-Request") != "" {
		w.Header().Set("HX-Redirect", target)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}

// fail answers an error of a page handler: a session that ended goes to sign-in, an API
// refusal is shown with its status and message.
func (d *Dashboard) fail(c *call, err error) {
	if errors.Is(err, errSignedOut) {
		d.clearCookie(c.w, sessionCookie)
		d.toSignIn(c.w, c.r)
		return
	}
	if e, ok := api.AsError(err); ok {
		switch e.Status {
		case http.StatusNotFound:
			d.renderError(c.w, c.r, c, http.StatusNotFound, "Not found: this page's object does not exist, or it is not in your tenant.")
		default:
			d.renderError(c.w, c.r, c, e.Status, e.Message)
		}
		return
	}
	if errors.Is(err, context.Canceled) {
		return
	}
	d.log.Error(err, "dashboard: page failed", "path", c.r.URL.Path)
	d.renderError(c.w, c.r, c, http.StatusBadGateway, "The service did not answer as expected; try again.")
}

// messageOf is the message to show for an API error.
func messageOf(err error) string {
	if e, ok := api.AsError(err); ok {
		return e.Message
	}
	return "the service did not answer"
}
