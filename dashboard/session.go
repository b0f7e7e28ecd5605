package dashboard

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"time"
)

// Cookie names. The session cookie holds the user's tokens sealed with AES-256-GCM
// (NIST SP 800-38D); the browser can neither read nor forge it, and no token ever reaches
// the page's JavaScript (HttpOnly).
const (
	sessionCookie = "disco_dash"
	flowCookie    = "disco_dash_flow"
)

// session is what the session cookie seals.
type session struct {
	Access  string    `json:"a"`
	Refresh string    `json:"r"`
	Expires time.Time `json:"e"` // of the access token
	Tenant  string    `json:"t"`
	Client  string    `json:"c"`
}

// flow is the state of one sign-in between the redirect to the login page and the
// callback: the OAuth state and the PKCE verifier (RFC 7636), and where to go after.
type flow struct {
	State    string    `json:"s"`
	Verifier string    `json:"v"`
	Next     string    `json:"n"`
	Tenant   string    `json:"t"`
	Client   string    `json:"c"`
	Created  time.Time `json:"at"`
}

// sealer seals and opens cookie values. Each cookie name gets its own key (HKDF,
// RFC 5869), and the name is the additional data, so one cookie cannot stand in for
// another.
type sealer struct{ key []byte }

func newSealer(secret []byte) (*sealer, error) {
	if len(secret) < 32 {
		return nil, errors.New("dashboard: the cookie key must have at least 32 bytes")
	}
	return &sealer{key: secret}, nil
}

func (s *sealer) aead(name string) (cipher.AEAD, error) {
	k, err := hkdf.Key(sha256.New, s.key, nil, "disco dashboard cookie "+name, 32)
	if err != nil {
		return nil, err
	}
	b, err := aes.NewCipher(k)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(b)
}

func (s *sealer) seal(name string, v any) (string, error) {
	plain, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	a, err := s.aead(name)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, a.NonceSize())
	_, _ = rand.Read(nonce)
	return base64.RawURLEncoding.EncodeToString(a.Seal(nonce, nonce, plain, []byte(name))), nil
}

func (s *sealer) open(name, value string, v any) error {
	raw, err := base64.RawURLEncoding.DecodeString(value)
	if err != nil {
		return err
	}
	a, err := s.aead(name)
	if err != nil {
		return err
	}
	if len(raw) < a.NonceSize() {
		return errors.New("dashboard: short cookie")
	}
	plain, err := a.Open(nil, raw[:a.NonceSize()], raw[a.NonceSize():], []byte(name))
	if err != nil {
		return err
	}
	return json.Unmarshal(plain, v)
}

// setCookie writes a sealed cookie: HttpOnly, SameSite=Lax (sent on top-level navigation
// back from the login page, not on cross-site subrequests), Secure when served over TLS.
func (d *Dashboard) setCookie(w http.ResponseWriter, name string, v any, maxAge time.Duration) error {
	val, err := d.sealer.seal(name, v)
	if err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{
		Name: name, Value: val, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode,
		Secure: d.secure, MaxAge: int(maxAge.Seconds()),
	})
	return nil
}

func (d *Dashboard) clearCookie(w http.ResponseWriter, name string) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode,
		Secure: d.secure, MaxAge: -1})
}

func (d *Dashboard) readCookie(r *http.Request, name string, v any) bool {
	c, err := r.Cookie(name)
	if err != nil || c.Value == "" || len(c.Value) > 4096 {
		return false
	}
	return d.sealer.open(name, c.Value, v) == nil
}
