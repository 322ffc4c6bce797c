package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
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

// ExternalAuthentication is the administrator API's external authentication
// settings document.
type ExternalAuthentication struct {
	// DomainName is the domain of external authentication (domainName).
	DomainName string
	// Enabled switches external authentication on or off
	// (externalAuthenticationEnabled).
	Enabled bool
	// Servers are the numbered server sets serverN/portN/enabledN, in order.
	Servers []AuthServer
	// Raw is the document as the API returned it (ignored when writing).
	Raw json.RawMessage
	// Extra are the members of the document that this client does not model (any
	// but domainName, externalAuthenticationEnabled and the numbered serverN, portN,
	// enabledN), as the API returned them. A PUT replaces the whole document, so they
	// are written back as they are: send the Extra of a fresh read to keep what
	// another client set. Nil when there are none.
	Extra map[string]json.RawMessage
}

// AuthServer is one external authentication server.
type AuthServer struct {
	// Address is the host name or IP address (serverN).
	Address string
	// Port is the TCP port (portN, a decimal string on the wire).
	Port int
	// Enabled switches the entry on or off (enabledN; always written, and read as
	// false when the platform leaves it out).
	Enabled bool
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
	// body says it (the platform's INVALID_CREDENTIALS, RFC 9457, plain text).
	var apiErr *APIError
	if errors.As(err, &apiErr) && !apiErr.HTML && (apiErr.Status == http.StatusUnauthorized || apiErr.Name() == "INVALID_CREDENTIALS") {
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

// GetExternalAuthentication reads the external authentication settings.
func (c *Client) GetExternalAuthentication(ctx context.Context) (*ExternalAuthentication, error) {
	base, err := c.adminBase()
	if err != nil {
		return nil, err
	}
	resp, err := c.do(ctx, &request{method: http.MethodGet, url: base + "/externalauth", auth: authAdmin}, nil)
	if err != nil {
		return nil, c.addressError("admin_url", base, "/externalauth", err)
	}
	return parseExternalAuthentication(resp.body)
}

// PutExternalAuthentication replaces the external authentication settings
// with s (server sets not given are removed) and returns the stored settings.
func (c *Client) PutExternalAuthentication(ctx context.Context, s ExternalAuthentication) (*ExternalAuthentication, error) {
	base, err := c.adminBase()
	if err != nil {
		return nil, err
	}
	resp, err := c.do(ctx, &request{method: http.MethodPut, url: base + "/externalauth", auth: authAdmin, body: s.document()}, nil)
	if err != nil {
		return nil, c.addressError("admin_url", base, "/externalauth", err)
	}
	if len(bytes.TrimSpace(resp.body)) == 0 {
		// The response bodies of the administrator API are not shown: a platform may
		// store the settings and answer nothing (204). Read back what it stored.
		return c.GetExternalAuthentication(ctx)
	}
	return parseExternalAuthentication(resp.body)
}

// document returns the wire form with numbered server sets, and the members the
// client does not model as they were read.
func (s ExternalAuthentication) document() map[string]any {
	doc := map[string]any{}
	for k, v := range s.Extra {
		if !modelledSettingsMember(k) {
			doc[k] = v
		}
	}
	doc["domainName"] = s.DomainName
	doc["externalAuthenticationEnabled"] = s.Enabled
	for i, srv := range s.Servers {
		n := strconv.Itoa(i)
		doc["server"+n] = srv.Address
		doc["port"+n] = strconv.Itoa(srv.Port)
		doc["enabled"+n] = srv.Enabled
	}
	return doc
}

// numberedMember matches the members of a server set; the number has no leading
// zero (a platform's "server01" is a member the client does not model).
var numberedMember = regexp.MustCompile(`^(server|port|enabled)(0|[1-9][0-9]*)$`)

// modelledSettingsMember reports whether the client reads and writes the member k of
// the settings document itself.
func modelledSettingsMember(k string) bool {
	return k == "domainName" || k == "externalAuthenticationEnabled" || numberedMember.MatchString(k)
}

// parseExternalAuthentication reads the settings document. A member that is absent,
// null or empty ("") holds its type's zero value, as the platforms that leave out
// default values (omitempty, protojson) or list every slot write them: an absent
// enabledN is false, and a set whose serverN is empty is no server, wherever it stands.
// A boolean may come as a string ("true", rule 22), as the ports do.
// Server sets are collected by number, so a document with gaps still yields every
// server.
func parseExternalAuthentication(body []byte) (*ExternalAuthentication, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("decoding external authentication settings: %w", err)
	}
	s := &ExternalAuthentication{Raw: json.RawMessage(body)}
	if err := zeroOrString(doc, "domainName", &s.DomainName); err != nil {
		return nil, err
	}
	s.Enabled = zeroOrBool(doc, "externalAuthenticationEnabled")
	var numbers []int
	for k, v := range doc {
		m := numberedMember.FindStringSubmatch(k)
		if m == nil {
			if !modelledSettingsMember(k) {
				if s.Extra == nil {
					s.Extra = map[string]json.RawMessage{}
				}
				s.Extra[k] = v
			}
			continue
		}
		if n, err := strconv.Atoi(m[2]); err == nil && m[1] == "server" {
			numbers = append(numbers, n)
		}
	}
	sort.Ints(numbers)
	for _, n := range numbers {
		idx := strconv.Itoa(n)
		var srv AuthServer
		if err := zeroOrString(doc, "server"+idx, &srv.Address); err != nil {
			return nil, err
		}
		if srv.Address == "" {
			continue // an empty slot
		}
		if v, ok := doc["port"+idx]; ok {
			// A decimal string on the wire, or a number; in any integer form (flexInt).
			var port flexInt
			_ = port.UnmarshalJSON(v)
			srv.Port = int(port)
		}
		srv.Enabled = zeroOrBool(doc, "enabled"+idx)
		s.Servers = append(s.Servers, srv)
	}
	return s, nil
}

// zeroMember reports whether a member's value is null or the empty string, both of
// which stand for the zero value of the member's type.
func zeroMember(v json.RawMessage) bool {
	t := string(bytes.TrimSpace(v))
	return t == "null" || t == `""`
}

// zeroOrString reads the string member k of doc into dst; absent, null or "" is "".
func zeroOrString(doc map[string]json.RawMessage, k string, dst *string) error {
	if v, ok := doc[k]; ok && !zeroMember(v) {
		if err := json.Unmarshal(v, dst); err != nil {
			return fmt.Errorf("decoding %s: %w", k, err)
		}
	}
	return nil
}

// zeroOrBool reads the boolean member k of doc: true or false, or a string holding
// one in any case (rule 22); absent, null, "" or any other value is false (rule 1),
// never an unreadable document.
func zeroOrBool(doc map[string]json.RawMessage, k string) bool {
	return booleanValue(doc[k])
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
