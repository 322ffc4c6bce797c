package client

// The administrator session, a credential: the login (POST /login) and its token in
// every place a platform may put it, the session's side of the credential seam
// (adminCredential, request_credential.go), and the session's status (CheckSession).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Session is the administrator session status (GET /checksession).
type Session struct {
	Valid     bool      `json:"valid"`
	User      string    `json:"user"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// UnmarshalJSON reads expiresAt in every RFC 3339 form (flexTime): a timestamp that
// cannot be read is no expiry, never an unreadable answer; and valid as a boolean or
// a string holding one (flexBool, rule 22).
func (s *Session) UnmarshalJSON(b []byte) error {
	var doc struct {
		Valid     flexBool `json:"valid"`
		User      string   `json:"user"`
		ExpiresAt flexTime `json:"expiresAt"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return err
	}
	*s = Session{Valid: bool(doc.Valid), User: doc.User, ExpiresAt: doc.ExpiresAt.Time}
	return nil
}

// adminSession returns the shared administrator session, logging in when
// there is none.
func (c *Client) adminSession(ctx context.Context) (string, error) {
	base, err := c.adminBase()
	if err != nil {
		return "", err
	}
	return c.session.get(ctx, once(func(ctx context.Context) (string, error) {
		return c.adminLogin(ctx, base)
	}))
}

// adminCredential is the shared administrator session, as the pipeline uses it
// (credential).
type adminCredential struct{ c *Client }

func (a adminCredential) get(ctx context.Context) (string, error) { return a.c.adminSession(ctx) }

func (adminCredential) set(h http.Header, session string) { h.Set("token", session) }

func (adminCredential) loadName() string { return "administrator login" }

// drop forgets session unless another call replaced it already.
func (a adminCredential) drop(session string) bool {
	a.c.session.resetIf(func(s string) bool { return s == session })
	return true
}

// forbidden: a 403 to a session held before the request says it expired (the
// specification shows neither 401 nor 403; a platform may answer an expired session
// with 403).
func (adminCredential) forbidden(context.Context, string) bool { return true }

// adminLogin creates a session. A refused login (401, in any body form) is held
// for the process (credentialsRejected) and not retried; a login lost in transit may be, since a spare session only
// idles out.
func (c *Client) adminLogin(ctx context.Context, base string) (string, error) {
	resp, err := c.do(ctx, &request{
		method: http.MethodPost,
		url:    base + "/login",
		form: url.Values{
			"user": {c.cfg.AdminUsername},
			"pass": {c.cfg.AdminPassword},
			"r":    {"createsession"},
		},
		retrySafe:  true,
		textAnswer: true,
	}, nil)
	token := ""
	if err == nil {
		token, err = sessionToken(resp.body, resp.header)
	}
	// A 401 to the login refuses admin_username's credentials, in whatever words its
	// body says it (the platform's INVALID_CREDENTIALS, RFC 9457, plain text); so does
	// a 400, the login's only arguments being the credentials, unless a TLS port said
	// it was sent plain HTTP.
	var apiErr *APIError
	if errors.As(err, &apiErr) && !apiErr.HTML && !apiErr.HTTPSOnly && (apiErr.Status == http.StatusUnauthorized ||
		apiErr.Status == http.StatusBadRequest || apiErr.Name() == "INVALID_CREDENTIALS") {
		// A server may echo the form, password included, in its message.
		apiErr.Message = c.maskText(apiErr.Message)
		err = &AdminLoginRefusedError{Err: apiErr, Spaced: c.cfg.spacedSettings("admin_username", "admin_password")}
	}
	// The login path always exists on the platform: only a wrong admin_url answers 404.
	err = c.addressError("admin_url", base, "/login", err)
	if err != nil {
		return "", fmt.Errorf("administrator login to %s as %q failed: %w", redactURL(base), c.cfg.AdminUsername, err)
	}
	c.credLoads.loaded()
	logDebug(ctx, "administrator login succeeded", map[string]any{"user": c.cfg.AdminUsername})
	return token, nil
}

// sessionToken reads the session token from a login answer in any of the forms the
// specification allows ("Response: A session token", fields not shown; contract §V5;
// the reading table's rule 18): the contract's {"token": …}, a JSON string, or the
// bare token as the whole body; and when the body holds none, the response header
// `token`, the header later calls send it in (OpenStack Swift's v1 auth answers so).
// Its errors describe the answer without quoting any of it.
func sessionToken(body []byte, header http.Header) (string, error) {
	text, err := bodySessionToken(body)
	if text == "" {
		if h := strings.TrimSpace(header.Get("token")); h != "" {
			text, err = h, nil
		}
	}
	if err != nil {
		return "", err
	}
	if text == "" {
		return "", errors.New("the login answer holds no session token, neither in its body nor in the header token")
	}
	if len(text) > 4096 || strings.ContainsFunc(text, func(r rune) bool { return r <= ' ' || r >= 0x7f }) {
		return "", fmt.Errorf("the login answer is not a session token (%d bytes, not one printable word)", len(text))
	}
	return text, nil
}

// bodySessionToken reads the session token from a login answer's body; "" when it
// holds none. Its errors describe the body without quoting any of it.
func bodySessionToken(body []byte) (string, error) {
	body = bytes.TrimSpace(body)
	var doc struct {
		Token string `json:"token"`
	}
	var text string
	switch {
	case len(body) == 0:
		return "", errors.New("the login answer is empty: it holds no session token, neither in a body nor in the header token")
	case body[0] == '{':
		if err := json.Unmarshal(body, &doc); err != nil {
			return "", fmt.Errorf("the login answer cannot be read: %s", jsonProblem(err))
		}
		text = doc.Token
	case body[0] == '"':
		if err := json.Unmarshal(body, &text); err != nil {
			return "", fmt.Errorf("the login answer cannot be read: %s", jsonProblem(err))
		}
	default:
		text = string(body)
	}
	return text, nil
}

// CheckSession reports the status of the administrator session, logging in
// first when the client holds none.
func (c *Client) CheckSession(ctx context.Context) (*Session, error) {
	base, err := c.adminBase()
	if err != nil {
		return nil, err
	}
	var out Session
	if _, err := c.do(ctx, &request{method: http.MethodGet, url: base + "/checksession", auth: authAdmin}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// AdminLoginRefusedError is the administrator API refusing the login of
// admin_username: a 401 to its login, or INVALID_CREDENTIALS, in any body form.
type AdminLoginRefusedError struct {
	// Err is the login's answer.
	Err *APIError
	// Spaced are admin_username and admin_password when they were sent starting or
	// ending with whitespace.
	Spaced []SpacedSetting
}

// Error is the login's answer.
func (e *AdminLoginRefusedError) Error() string {
	return e.Err.Error() + " (the login was refused)" + spacedNote(e.Spaced)
}

// Unwrap returns the login's answer.
func (e *AdminLoginRefusedError) Unwrap() error { return e.Err }
