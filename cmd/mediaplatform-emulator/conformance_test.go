package main

// A black-box conformance suite for the emulator program. It starts the built
// binary (see TestMain in main_test.go) as a separate process, reads the three base
// addresses from its first line and walks the wire contract
// (shared/contract/platform.md) row by row with plain net/http. It knows nothing of
// the emulator's implementation: every path except the fixed entry points
// (admin_url, GET /auth, the registry, publishing_url, /_emulator/) is discovered
// from responses, and the registry's templates are expanded as RFC 6570 templates.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os/exec"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/yosida95/uritemplate/v3"
)

// ---------------------------------------------------------------------------
// Running the program

// lineWriter hands the first line written to it to ch and discards the rest.
type lineWriter struct {
	mu   sync.Mutex
	buf  []byte
	sent bool
	ch   chan string
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.sent {
		w.buf = append(w.buf, p...)
		if i := bytes.IndexByte(w.buf, '\n'); i >= 0 {
			w.sent = true
			w.ch <- string(w.buf[:i+1])
			w.buf = nil
		}
	}
	return len(p), nil
}

// lockedBuffer is a bytes.Buffer safe for the process's stderr copier and the test.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// emu is one running program and a client for it.
type emu struct {
	addresses
	client *http.Client

	mu          sync.Mutex
	ropcHref    string // discovered password-grant target
	tokenHref   string // discovered auth:token "current"
	templates   map[string]string
	tokenByUser map[string]string
}

// startEmulator runs the program with -listen 127.0.0.1:0 and extra flags. It stops
// with SIGTERM when the test (and its subtests) end.
func startEmulator(t *testing.T, extra ...string) *emu {
	t.Helper()
	if binary == "" {
		t.Fatal("the program was not built:", buildErr)
	}
	args := append([]string{"-listen", "127.0.0.1:0"}, extra...)
	cmd := execCommand(t, args)
	lines := &lineWriter{ch: make(chan string, 1)}
	stderr := &lockedBuffer{}
	cmd.Stdout = lines
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Wait()
		if t.Failed() && stderr.String() != "" {
			t.Logf("emulator stderr:\n%s", stderr.String())
		}
	})
	var line string
	select {
	case line = <-lines.ch:
	case <-time.After(30 * time.Second):
		t.Fatalf("no first line within 30s; stderr %s", stderr.String())
	}
	var a addresses
	if err := json.Unmarshal([]byte(line), &a); err != nil || a.AdminURL == "" || a.PlatformURL == "" || a.PublishingURL == "" {
		t.Fatalf("first line %q: %v", line, err)
	}
	return &emu{
		addresses:   a,
		client:      &http.Client{Timeout: 10 * time.Second},
		tokenByUser: map[string]string{},
	}
}

// ---------------------------------------------------------------------------
// HTTP helpers

// reply is a response read to the end.
type reply struct {
	method, url string
	status      int
	header      http.Header
	cookies     []*http.Cookie
	body        []byte
	elapsed     time.Duration
}

func (r *reply) String() string {
	return fmt.Sprintf("%s %s → %d %s", r.method, r.url, r.status, bytes.TrimSpace(r.body))
}

// form is a body sent as application/x-www-form-urlencoded.
type form = url.Values

// raw is a body sent as is with the given content type.
type raw struct {
	ctype, body string
}

// do sends one request. body is nil (none), form, raw or anything else (JSON).
// hdr holds header name/value pairs.
func (e *emu) do(t *testing.T, method, u string, body any, hdr ...string) *reply {
	t.Helper()
	var rd io.Reader
	ctype := ""
	switch b := body.(type) {
	case nil:
	case form:
		rd, ctype = strings.NewReader(b.Encode()), "application/x-www-form-urlencoded"
	case raw:
		rd, ctype = strings.NewReader(b.body), b.ctype
	default:
		data, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd, ctype = bytes.NewReader(data), "application/json"
	}
	req, err := http.NewRequestWithContext(t.Context(), method, u, rd)
	if err != nil {
		t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	req.Header.Set("Accept", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	start := time.Now()
	res, err := e.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, u, err)
	}
	return &reply{method: method, url: u, status: res.StatusCode, header: res.Header,
		cookies: res.Cookies(), body: data, elapsed: time.Since(start)}
}

func bearer(tok string) []string { return []string{"Authorization", "Bearer " + tok} }

func cookie(tok string) []string { return []string{"Cookie", "serviceAccessToken=" + tok} }

func adminToken(tok string) []string { return []string{"token", tok} }

// mediaType is the response's media type without parameters.
func (r *reply) mediaType() string {
	mt, _, err := mime.ParseMediaType(r.header.Get("Content-Type"))
	if err != nil {
		return r.header.Get("Content-Type")
	}
	return mt
}

// want checks the status and, for JSON, the content type; it fails the test at once
// on a wrong status.
func (r *reply) want(t *testing.T, status int) *reply {
	t.Helper()
	if r.status != status {
		t.Fatalf("%s: want status %d", r, status)
	}
	if len(r.body) > 0 && (status < 300) {
		if mt := r.mediaType(); mt != "application/json" && mt != "application/hal+json" && !strings.HasPrefix(mt, "text/") {
			t.Errorf("%s: Content-Type %q, want application/json or application/hal+json", r, r.header.Get("Content-Type"))
		}
	}
	return r
}

// obj decodes a JSON object body.
func (r *reply) obj(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(r.body))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("%s: body is not a JSON object: %v", r, err)
	}
	return m
}

// problem checks an application/problem+json error: status, code, message, params.
// field, when not empty, must equal params.field.
func (r *reply) problem(t *testing.T, status int, code, field string) {
	t.Helper()
	if r.status != status {
		t.Errorf("%s: want status %d (%s)", r, status, code)
		return
	}
	if mt := r.mediaType(); mt != "application/problem+json" {
		t.Errorf("%s: Content-Type %q, want application/problem+json", r, r.header.Get("Content-Type"))
	}
	var p struct {
		Code    *string         `json:"code"`
		Message *string         `json:"message"`
		Params  map[string]any  `json:"params"`
		Status  json.RawMessage `json:"status"`
	}
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Errorf("%s: problem body: %v", r, err)
		return
	}
	switch {
	case p.Code == nil || *p.Code != code:
		t.Errorf("%s: want code %q", r, code)
	case p.Message == nil || *p.Message == "":
		t.Errorf("%s: problem without message", r)
	case p.Params == nil:
		t.Errorf("%s: problem without params object", r)
	case string(p.Status) != strconv.Itoa(status):
		t.Errorf("%s: problem status %s, want %d", r, p.Status, status)
	}
	if field != "" && p.Params != nil && p.Params["field"] != field {
		t.Errorf("%s: want params.field %q", r, field)
	}
}

// oauthError checks an OAuth 2.0 error response (RFC 6749 §5.2).
func (r *reply) oauthError(t *testing.T, status int, code string) {
	t.Helper()
	if r.status != status {
		t.Errorf("%s: want status %d (%s)", r, status, code)
		return
	}
	if mt := r.mediaType(); mt != "application/json" {
		t.Errorf("%s: Content-Type %q, want application/json", r, r.header.Get("Content-Type"))
	}
	var body struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal(r.body, &body); err != nil || body.Error != code {
		t.Errorf("%s: want error %q (%v)", r, code, err)
	}
}

// ---------------------------------------------------------------------------
// JSON helpers

// at walks v along path: strings index objects, ints index arrays. nil when absent.
func at(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k < 0 || k >= len(a) {
				return nil
			}
			v = a[k]
		default:
			panic(fmt.Sprintf("bad path element %T", p))
		}
	}
	return v
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func arr(v any) []any {
	a, _ := v.([]any)
	return a
}

func objOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// num returns a JSON number as int64; ok is false for anything else.
func num(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}

func has(m map[string]any, key string) bool {
	_, ok := m[key]
	return ok
}

func keys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

var timestampRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)

// timestamp checks an RFC 3339 UTC millisecond timestamp and parses it.
func timestamp(t *testing.T, what string, v any) time.Time {
	t.Helper()
	s, ok := v.(string)
	if !ok || !timestampRE.MatchString(s) {
		t.Errorf("%s = %#v, want an RFC 3339 UTC timestamp with milliseconds", what, v)
		return time.Time{}
	}
	ts, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Errorf("%s = %q: %v", what, s, err)
	}
	return ts
}

// linkArray checks that rel is an array of link objects with absolute hrefs and
// returns them.
func linkArray(t *testing.T, links any, rel string) []map[string]any {
	t.Helper()
	a, ok := at(links, rel).([]any)
	if !ok || len(a) == 0 {
		t.Errorf("_links[%q] = %#v, want a non-empty array of link objects", rel, at(links, rel))
		return nil
	}
	out := make([]map[string]any, 0, len(a))
	for _, l := range a {
		m := objOf(l)
		if m == nil || str(m["href"]) == "" {
			t.Errorf("_links[%q] entry %#v has no href", rel, l)
			continue
		}
		out = append(out, m)
	}
	return out
}

// selfLink checks that self is a single link object and returns its href. It also
// checks that every other relation of links is an array of link objects (section 0).
func selfLink(t *testing.T, links any) string {
	t.Helper()
	for rel, v := range objOf(links) {
		if rel == "self" {
			continue
		}
		if a, ok := v.([]any); !ok || len(a) == 0 {
			t.Errorf("_links[%q] = %#v, want an array of link objects", rel, v)
		}
		for _, l := range arr(v) {
			if str(at(l, "href")) == "" {
				t.Errorf("_links[%q] entry %#v has no href", rel, l)
			}
		}
	}
	self := objOf(at(links, "self"))
	if self == nil || str(self["href"]) == "" {
		t.Errorf("_links.self = %#v, want one link object", at(links, "self"))
		return ""
	}
	return str(self["href"])
}

// absoluteOn checks that href is an absolute URL on the emulator's listener.
func (e *emu) absoluteOn(t *testing.T, href string) {
	t.Helper()
	u, err := url.Parse(href)
	p, _ := url.Parse(e.PlatformURL)
	if err != nil || !u.IsAbs() || u.Host != p.Host {
		t.Errorf("href %q is not an absolute URL on %s", href, e.PlatformURL)
	}
}

// ---------------------------------------------------------------------------
// Flows used by many tests

// discover follows GET /auth and the identity providers, once.
func (e *emu) discover(t *testing.T) (ropc, current string) {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ropcHref != "" {
		return e.ropcHref, e.tokenHref
	}
	root := e.do(t, http.MethodGet, e.PlatformURL+"/auth", nil).want(t, http.StatusOK).obj(t)
	var idp string
	for _, l := range linkArray(t, at(root, "_links"), "auth:identity-providers") {
		idp = str(l["href"])
	}
	for _, l := range linkArray(t, at(root, "_links"), "auth:token") {
		if l["name"] == "current" {
			e.tokenHref = str(l["href"])
		}
	}
	if idp == "" || e.tokenHref == "" {
		t.Fatalf("GET /auth: no identity providers or current token link: %v", root)
	}
	providers := arr(at(e.do(t, http.MethodGet, idp, nil).want(t, http.StatusOK).obj(t), "_embedded", "auth:identity-provider"))
	for _, p := range providers {
		if at(p, "kind") != "oauth" {
			continue
		}
		if l := arr(at(p, "_links", "auth:ropc-default")); len(l) > 0 {
			e.ropcHref = str(at(l[0], "href"))
			break
		}
	}
	if e.ropcHref == "" {
		t.Fatalf("no oauth provider with auth:ropc-default in %v", providers)
	}
	return e.ropcHref, e.tokenHref
}

var basicTerraform = "Basic " + base64.StdEncoding.EncodeToString([]byte("terraform:terraform-secret"))

// grant runs the password grant.
func (e *emu) grant(t *testing.T, user, pass string) *reply {
	t.Helper()
	ropc, _ := e.discover(t)
	return e.do(t, http.MethodPost, ropc, form{"grant_type": {"password"}, "username": {user}, "password": {pass}},
		"Authorization", basicTerraform)
}

// newToken returns a fresh access token for user.
func (e *emu) newToken(t *testing.T, user string) string {
	t.Helper()
	r := e.grant(t, user, user+"-secret").want(t, http.StatusOK)
	tok := str(r.obj(t)["access_token"])
	if tok == "" {
		t.Fatalf("%s: no access_token", r)
	}
	return tok
}

// token returns a cached access token for user (for tests that never invalidate it).
func (e *emu) token(t *testing.T, user string) string {
	t.Helper()
	e.mu.Lock()
	tok := e.tokenByUser[user]
	e.mu.Unlock()
	if tok != "" {
		return tok
	}
	tok = e.newToken(t, user)
	e.mu.Lock()
	e.tokenByUser[user] = tok
	e.mu.Unlock()
	return tok
}

// adminLogin logs in to the administrator API and returns the session token.
func (e *emu) adminLogin(t *testing.T, user, pass string) string {
	t.Helper()
	r := e.do(t, http.MethodPost, e.AdminURL+"/login", form{"user": {user}, "pass": {pass}, "r": {"createsession"}}).want(t, http.StatusOK)
	m := r.obj(t)
	if str(m["token"]) == "" || m["user"] != user {
		t.Fatalf("%s: want {token, user: %q}", r, user)
	}
	return str(m["token"])
}

// template expands a registry template (fetched once) with vars.
func (e *emu) template(t *testing.T, rel string, vars map[string]string) string {
	t.Helper()
	e.mu.Lock()
	tmpls := e.templates
	e.mu.Unlock()
	if tmpls == nil {
		tok := e.token(t, "alice")
		root := e.do(t, http.MethodGet, e.PlatformURL+"/apis/registry;version=0/serviceroots", nil, bearer(tok)...).want(t, http.StatusOK).obj(t)
		tmpls = map[string]string{}
		for rel, v := range objOf(root["resources"]) {
			if h := str(at(v, 0, "href")); h != "" {
				tmpls[rel] = h
			}
		}
		e.mu.Lock()
		e.templates = tmpls
		e.mu.Unlock()
	}
	href, ok := tmpls[rel]
	if !ok {
		t.Fatalf("the registry has no %q", rel)
	}
	tmpl, err := uritemplate.New(href)
	if err != nil {
		t.Fatalf("registry %q href %q: %v", rel, href, err)
	}
	values := uritemplate.Values{}
	for k, v := range vars {
		values.Set(k, uritemplate.String(v))
	}
	u, err := tmpl.Expand(values)
	if err != nil {
		t.Fatalf("expanding %q: %v", href, err)
	}
	return u
}

// control posts to the emulator's control surface.
func (e *emu) control(t *testing.T, what string, body any) *reply {
	t.Helper()
	return e.do(t, http.MethodPost, e.PlatformURL+"/_emulator/"+what, body)
}

// eventually polls f every 10 ms until it returns true or d passes.
func eventually(d time.Duration, f func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if f() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// execCommand prepares the program; it gets SIGTERM (then SIGKILL after 3 s) when
// the test's context ends, just before the test's cleanups run.
func execCommand(t *testing.T, args []string) *exec.Cmd {
	cmd := exec.CommandContext(t.Context(), binary, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 3 * time.Second
	return cmd
}

// ---------------------------------------------------------------------------
// §A Administrator API

func TestConformanceAdminLogin(t *testing.T) {
	t.Parallel()
	e := startEmulator(t)
	login := e.AdminURL + "/login"

	t.Run("bad arguments", func(t *testing.T) {
		for _, tc := range []struct {
			name  string
			f     form
			field string
		}{
			{"no user", form{"pass": {"admin-secret"}, "r": {"createsession"}}, "user"},
			{"no pass", form{"user": {"admin"}, "r": {"createsession"}}, "pass"},
			{"no r", form{"user": {"admin"}, "pass": {"admin-secret"}}, "r"},
			{"r not createsession", form{"user": {"admin"}, "pass": {"admin-secret"}, "r": {"deletesession"}}, "r"},
		} {
			e.do(t, http.MethodPost, login, tc.f).problem(t, http.StatusBadRequest, "admin/BAD_ARGUMENT", tc.field)
		}
	})
	t.Run("invalid credentials", func(t *testing.T) {
		for _, f := range []form{
			{"user": {"admin"}, "pass": {"wrong"}, "r": {"createsession"}},
			{"user": {"nobody"}, "pass": {"admin-secret"}, "r": {"createsession"}},
			// alice has no administrator API account (user table, section G).
			{"user": {"alice"}, "pass": {"alice-secret"}, "r": {"createsession"}},
		} {
			e.do(t, http.MethodPost, login, f).problem(t, http.StatusUnauthorized, "admin/INVALID_CREDENTIALS", "")
		}
	})
	t.Run("session lifecycle", func(t *testing.T) {
		// Unknown form fields are ignored.
		r := e.do(t, http.MethodPost, login, form{"user": {"admin"}, "pass": {"admin-secret"}, "r": {"createsession"}, "extra": {"x"}}).want(t, http.StatusOK)
		m := r.obj(t)
		tok := str(m["token"])
		if tok == "" || m["user"] != "admin" {
			t.Fatalf("%s: want {token, user: admin}", r)
		}
		check := e.do(t, http.MethodGet, e.AdminURL+"/checksession", nil, adminToken(tok)...).want(t, http.StatusOK).obj(t)
		if check["valid"] != true || check["user"] != "admin" {
			t.Errorf("checksession = %v, want valid true, user admin", check)
		}
		exp := timestamp(t, "checksession expiresAt", check["expiresAt"])
		if d := time.Until(exp); d < 29*time.Minute || d > 31*time.Minute {
			t.Errorf("checksession expiresAt %v is not ~30 min ahead (default idle expiry)", exp)
		}
		// The token travels in the header token, not as a Bearer credential.
		e.do(t, http.MethodGet, e.AdminURL+"/checksession", nil, bearer(tok)...).problem(t, http.StatusUnauthorized, "admin/UNAUTHORIZED", "")
		e.do(t, http.MethodGet, e.AdminURL+"/checksession", nil).problem(t, http.StatusUnauthorized, "admin/UNAUTHORIZED", "")
		e.do(t, http.MethodGet, e.AdminURL+"/checksession", nil, adminToken("not-a-token")...).problem(t, http.StatusUnauthorized, "admin/UNAUTHORIZED", "")

		out := e.do(t, http.MethodGet, e.AdminURL+"/logout", nil, adminToken(tok)...).want(t, http.StatusOK).obj(t)
		if len(out) != 1 || out["loggedOut"] != true {
			t.Errorf("logout = %v, want {loggedOut: true}", out)
		}
		e.do(t, http.MethodGet, e.AdminURL+"/checksession", nil, adminToken(tok)...).problem(t, http.StatusUnauthorized, "admin/UNAUTHORIZED", "")
		e.do(t, http.MethodGet, e.AdminURL+"/externalauth", nil, adminToken(tok)...).problem(t, http.StatusUnauthorized, "admin/UNAUTHORIZED", "")
		e.do(t, http.MethodGet, e.AdminURL+"/logout", nil, adminToken(tok)...).problem(t, http.StatusUnauthorized, "admin/UNAUTHORIZED", "")
		e.do(t, http.MethodGet, e.AdminURL+"/logout", nil).problem(t, http.StatusUnauthorized, "admin/UNAUTHORIZED", "")
	})
	t.Run("viewer", func(t *testing.T) {
		tok := e.adminLogin(t, "viewer", "viewer-secret")
		check := e.do(t, http.MethodGet, e.AdminURL+"/checksession", nil, adminToken(tok)...).want(t, http.StatusOK).obj(t)
		if check["valid"] != true || check["user"] != "viewer" {
			t.Errorf("checksession = %v", check)
		}
		e.do(t, http.MethodGet, e.AdminURL+"/externalauth", nil, adminToken(tok)...).problem(t, http.StatusForbidden, "admin/FORBIDDEN", "")
		e.do(t, http.MethodPut, e.AdminURL+"/externalauth",
			map[string]any{"domainName": "X", "externalAuthenticationEnabled": false}, adminToken(tok)...).problem(t, http.StatusForbidden, "admin/FORBIDDEN", "")
	})
}

// TestConformanceAdminSessionIdle: sessions expire after the idle period and every
// authenticated request renews them.
func TestConformanceAdminSessionIdle(t *testing.T) {
	t.Parallel()
	// Margins of seconds, not milliseconds: a request on a loaded machine may take one.
	const idle = 4 * time.Second
	e := startEmulator(t, "-session-idle", idle.String())
	tok := e.adminLogin(t, "admin", "admin-secret")
	var last time.Time
	for i := range 3 { // 3 × 0.6 idle > idle: only renewal keeps it alive
		time.Sleep(idle * 6 / 10)
		if i == 1 { // any authenticated request renews the session
			e.do(t, http.MethodGet, e.AdminURL+"/externalauth", nil, adminToken(tok)...).want(t, http.StatusOK)
			continue
		}
		m := e.do(t, http.MethodGet, e.AdminURL+"/checksession", nil, adminToken(tok)...).want(t, http.StatusOK).obj(t)
		exp := timestamp(t, "expiresAt", m["expiresAt"])
		if d := time.Until(exp); d < idle*8/10 || d > idle*11/10 {
			t.Errorf("checksession expiresAt is %v ahead, want ~%v (idle expiry renewed)", d, idle)
		}
		if !exp.After(last) {
			t.Errorf("checksession expiresAt %v did not move past %v", exp, last)
		}
		last = exp
	}
	time.Sleep(idle * 13 / 10)
	e.do(t, http.MethodGet, e.AdminURL+"/checksession", nil, adminToken(tok)...).problem(t, http.StatusUnauthorized, "admin/UNAUTHORIZED", "")
}

func TestConformanceExternalAuth(t *testing.T) {
	t.Parallel()
	e := startEmulator(t)
	u := e.AdminURL + "/externalauth"
	tok := e.adminLogin(t, "admin", "admin-secret")
	put := func(t *testing.T, doc any) *reply {
		t.Helper()
		return e.do(t, http.MethodPut, u, doc, adminToken(tok)...)
	}
	get := func(t *testing.T) map[string]any {
		t.Helper()
		return e.do(t, http.MethodGet, u, nil, adminToken(tok)...).want(t, http.StatusOK).obj(t)
	}
	equalDoc := func(t *testing.T, what string, got map[string]any, want string) {
		t.Helper()
		var w map[string]any
		dec := json.NewDecoder(strings.NewReader(want))
		dec.UseNumber()
		if err := dec.Decode(&w); err != nil {
			t.Fatal(err)
		}
		g, _ := json.Marshal(got)
		ws, _ := json.Marshal(w)
		if !bytes.Equal(g, ws) {
			t.Errorf("%s = %s, want %s", what, g, ws)
		}
	}

	// Order matters here: the initial state first.
	equalDoc(t, "initial GET", get(t), `{"domainName": "", "externalAuthenticationEnabled": false}`)
	e.do(t, http.MethodGet, u, nil).problem(t, http.StatusUnauthorized, "admin/UNAUTHORIZED", "")
	e.do(t, http.MethodPut, u, map[string]any{"domainName": "X", "externalAuthenticationEnabled": true}).problem(t, http.StatusUnauthorized, "admin/UNAUTHORIZED", "")

	t.Run("bad documents", func(t *testing.T) {
		for _, tc := range []struct {
			name  string
			doc   any
			field string
		}{
			{"no domainName", map[string]any{"externalAuthenticationEnabled": true}, "domainName"},
			{"empty domainName", map[string]any{"domainName": "", "externalAuthenticationEnabled": true}, "domainName"},
			{"domainName not a string", map[string]any{"domainName": 7, "externalAuthenticationEnabled": true}, "domainName"},
			{"no externalAuthenticationEnabled", map[string]any{"domainName": "CORP"}, "externalAuthenticationEnabled"},
			{"externalAuthenticationEnabled not a boolean", map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": "true"}, "externalAuthenticationEnabled"},
			{"gap at 1", map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": true, "server1": "dc2"}, "server1"},
			{"gap at 2", map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": true, "server0": "dc1", "server2": "dc3"}, "server2"},
			{"port 0", map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": true, "server0": "dc1", "port0": "0"}, "port0"},
			{"port 65536", map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": true, "server0": "dc1", "port0": "65536"}, "port0"},
			{"port not decimal", map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": true, "server0": "dc1", "port0": "ldap"}, "port0"},
			{"port as a number", map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": true, "server0": "dc1", "port0": 389}, "port0"},
			{"port of set 1", map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": true, "server0": "dc1", "server1": "dc2", "port1": "-1"}, "port1"},
			{"enabled not a boolean", map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": true, "server0": "dc1", "enabled0": "yes"}, "enabled0"},
			{"server not a string", map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": true, "server0": 1}, "server0"},
			{"nine sets", func() map[string]any {
				m := map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": true}
				for i := range 9 {
					m[fmt.Sprintf("server%d", i)] = fmt.Sprintf("dc%d", i)
				}
				return m
			}(), "server8"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				put(t, tc.doc).problem(t, http.StatusBadRequest, "admin/BAD_ARGUMENT", tc.field)
			})
		}
		put(t, raw{"application/json", `{"domainName": "CORP",`}).problem(t, http.StatusBadRequest, "admin/BAD_ARGUMENT", "")
		put(t, raw{"application/json", `["domainName"]`}).problem(t, http.StatusBadRequest, "admin/BAD_ARGUMENT", "")
		// Nothing was stored by the failures.
		equalDoc(t, "GET after failures", get(t), `{"domainName": "", "externalAuthenticationEnabled": false}`)
	})

	t.Run("replace", func(t *testing.T) {
		r := put(t, map[string]any{
			"domainName": "CORP", "externalAuthenticationEnabled": true,
			"server0": "dc1.corp.example", "port0": "389",
			"server1": "10.0.0.2", "port1": "636", "enabled1": false,
			"server2": "dc3.corp.example", "port2": "1", "enabled2": true,
			"unknownField": "ignored",
		}).want(t, http.StatusOK)
		want := `{"domainName": "CORP", "externalAuthenticationEnabled": true,
			"server0": "dc1.corp.example", "port0": "389", "enabled0": true,
			"server1": "10.0.0.2", "port1": "636", "enabled1": false,
			"server2": "dc3.corp.example", "port2": "1", "enabled2": true}`
		equalDoc(t, "PUT response", r.obj(t), want)
		equalDoc(t, "GET", get(t), want)

		// All eight sets, port 65535.
		all := map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": false}
		for i := range 8 {
			all[fmt.Sprintf("server%d", i)] = fmt.Sprintf("dc%d", i)
			all[fmt.Sprintf("port%d", i)] = "65535"
		}
		doc := put(t, all).want(t, http.StatusOK).obj(t)
		if len(doc) != 2+3*8 || doc["enabled7"] != true || doc["port7"] != "65535" {
			t.Errorf("PUT of 8 sets returned %v", doc)
		}

		// Sets not sent are removed.
		r = put(t, map[string]any{"domainName": "OTHER", "externalAuthenticationEnabled": false, "server0": "dc9"}).want(t, http.StatusOK)
		equalDoc(t, "PUT response", r.obj(t), `{"domainName": "OTHER", "externalAuthenticationEnabled": false, "server0": "dc9", "enabled0": true}`)
		equalDoc(t, "GET", get(t), `{"domainName": "OTHER", "externalAuthenticationEnabled": false, "server0": "dc9", "enabled0": true}`)
		put(t, map[string]any{"domainName": "OTHER", "externalAuthenticationEnabled": true}).want(t, http.StatusOK)
		equalDoc(t, "GET", get(t), `{"domainName": "OTHER", "externalAuthenticationEnabled": true}`)
	})
}

// ---------------------------------------------------------------------------
// §B Platform token flow

func TestConformanceAuthDiscovery(t *testing.T) {
	t.Parallel()
	e := startEmulator(t)
	r := e.do(t, http.MethodGet, e.PlatformURL+"/auth", nil).want(t, http.StatusOK)
	root := r.obj(t)
	links := root["_links"]
	if self := selfLink(t, links); self != e.PlatformURL+"/auth" {
		t.Errorf("GET /auth self = %q, want %q", self, e.PlatformURL+"/auth")
	}
	idps := linkArray(t, links, "auth:identity-providers")
	var current string
	for _, l := range linkArray(t, links, "auth:token") {
		e.absoluteOn(t, str(l["href"]))
		if l["name"] == "current" {
			current = str(l["href"])
		}
	}
	if len(idps) == 0 || current == "" {
		t.Fatalf("GET /auth = %s: want auth:identity-providers and an auth:token named current", r.body)
	}
	e.absoluteOn(t, str(idps[0]["href"]))

	pr := e.do(t, http.MethodGet, str(idps[0]["href"]), nil).want(t, http.StatusOK)
	providers := arr(at(pr.obj(t), "_embedded", "auth:identity-provider"))
	if len(providers) < 2 {
		t.Fatalf("%s: want at least two providers", pr)
	}
	if at(providers[0], "kind") == "oauth" {
		t.Errorf("first provider %v is oauth; the emulator lists a non-oauth provider first", providers[0])
	}
	var ropc string
	for _, p := range providers {
		if at(p, "kind") == "oauth" {
			if l := linkArray(t, at(p, "_links"), "auth:ropc-default"); len(l) > 0 {
				ropc = str(l[0]["href"])
				break
			}
		}
	}
	if ropc == "" {
		t.Fatalf("%s: no oauth provider with auth:ropc-default", pr)
	}
	e.absoluteOn(t, ropc)
}

func TestConformancePasswordGrant(t *testing.T) {
	t.Parallel()
	e := startEmulator(t)
	ropc, current := e.discover(t)
	valid := func() form {
		return form{"grant_type": {"password"}, "username": {"alice"}, "password": {"alice-secret"}}
	}
	without := func(k string) form { f := valid(); f.Del(k); return f }
	with := func(k, v string) form { f := valid(); f.Set(k, v); return f }
	wrongBasic := "Basic " + base64.StdEncoding.EncodeToString([]byte("terraform:wrong"))
	unknownClient := "Basic " + base64.StdEncoding.EncodeToString([]byte("other:terraform-secret"))

	for _, tc := range []struct {
		name   string
		f      form
		auth   string
		status int
		code   string
	}{
		{"no Basic header", valid(), "", 401, "invalid_client"},
		{"wrong client secret", valid(), wrongBasic, 401, "invalid_client"},
		{"unknown client", valid(), unknownClient, 401, "invalid_client"},
		{"Basic not base64", valid(), "Basic %%%", 401, "invalid_client"},
		{"Bearer instead of Basic", valid(), "Bearer dGVycmFmb3JtOnRlcnJhZm9ybS1zZWNyZXQ=", 401, "invalid_client"},
		{"no username", without("username"), basicTerraform, 400, "invalid_request"},
		{"no password", without("password"), basicTerraform, 400, "invalid_request"},
		{"grant_type client_credentials", with("grant_type", "client_credentials"), basicTerraform, 400, "unsupported_grant_type"},
		{"no grant_type", without("grant_type"), basicTerraform, 400, "unsupported_grant_type"},
		{"wrong password", with("password", "nope"), basicTerraform, 400, "invalid_grant"},
		{"unknown user", with("username", "mallory"), basicTerraform, 400, "invalid_grant"},
		// admin has no platform account (user table, section G).
		{"admin API account", form{"grant_type": {"password"}, "username": {"admin"}, "password": {"admin-secret"}}, basicTerraform, 400, "invalid_grant"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hdr []string
			if tc.auth != "" {
				hdr = []string{"Authorization", tc.auth}
			}
			r := e.do(t, http.MethodPost, ropc, tc.f, hdr...)
			r.oauthError(t, tc.status, tc.code)
			if len(r.cookies) > 0 {
				t.Errorf("%s: a failed grant set cookies %v", r, r.cookies)
			}
		})
	}

	for _, user := range []string{"alice", "viewer"} {
		// Unknown form fields are ignored.
		r := e.do(t, http.MethodPost, ropc, form{"grant_type": {"password"}, "username": {user}, "password": {user + "-secret"}, "extra": {"x"}},
			"Authorization", basicTerraform).want(t, http.StatusOK)
		if mt := r.mediaType(); mt != "application/json" {
			t.Errorf("token response Content-Type %q", mt)
		}
		m := r.obj(t)
		tok := str(m["access_token"])
		if n, ok := num(m["expires_in"]); tok == "" || m["token_type"] != "Bearer" || !ok || n != 900 || m["scope"] != "openid" {
			t.Errorf("token response = %s, want access_token, token_type Bearer, expires_in 900, scope openid", r.body)
		}
		var found bool
		for _, c := range r.cookies {
			if c.Name == "serviceAccessToken" {
				found = true
				if c.Value != tok || c.Path != "/" || !c.HttpOnly {
					t.Errorf("Set-Cookie %q, want serviceAccessToken=<token>; Path=/; HttpOnly", c.Raw)
				}
			}
		}
		if !found {
			t.Errorf("token response sets no serviceAccessToken cookie: %v", r.header.Values("Set-Cookie"))
		}
		// The token works as Bearer and as cookie.
		e.do(t, http.MethodGet, current, nil, bearer(tok)...).want(t, http.StatusOK)
		e.do(t, http.MethodGet, current, nil, cookie(tok)...).want(t, http.StatusOK)
	}
}

func TestConformanceTokenInfo(t *testing.T) {
	t.Parallel()
	e := startEmulator(t)
	_, current := e.discover(t)
	tok := e.newToken(t, "alice")

	info := func(t *testing.T, r *reply) (exp time.Time, extend, removal string) {
		t.Helper()
		m := r.want(t, http.StatusOK).obj(t)
		if m["accessToken"] != tok {
			t.Errorf("accessToken = %v, want the token", m["accessToken"])
		}
		exp = timestamp(t, "expiresAt", m["expiresAt"])
		n, ok := num(m["expiresIn"])
		if !ok || n < 890 || n > 900 {
			t.Errorf("expiresIn = %v, want an integer just under 900", m["expiresIn"])
		}
		if d := time.Until(exp); d < 880*time.Second || d > 901*time.Second {
			t.Errorf("expiresAt %v is not ~900 s ahead", exp)
		}
		links := m["_links"]
		if s := selfLink(t, links); s != current {
			t.Errorf("self = %q, want %q", s, current)
		}
		if l := linkArray(t, links, "auth-token:extend"); len(l) > 0 {
			extend = str(l[0]["href"])
			e.absoluteOn(t, extend)
		}
		if l := linkArray(t, links, "auth-token:removal"); len(l) > 0 {
			removal = str(l[0]["href"])
			e.absoluteOn(t, removal)
		}
		return exp, extend, removal
	}

	exp1, extend, removal := info(t, e.do(t, http.MethodGet, current, nil, bearer(tok)...))
	info(t, e.do(t, http.MethodGet, current, nil, cookie(tok)...))

	e.do(t, http.MethodGet, current, nil).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
	e.do(t, http.MethodGet, current, nil, bearer("unknown")...).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
	e.do(t, http.MethodGet, current, nil, cookie("unknown")...).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
	e.do(t, http.MethodPost, extend, nil).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
	e.do(t, http.MethodDelete, removal, nil).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")

	time.Sleep(20 * time.Millisecond) // timestamps have millisecond resolution
	exp2, _, _ := info(t, e.do(t, http.MethodPost, extend, nil, bearer(tok)...))
	if !exp2.After(exp1) {
		t.Errorf("extend: expiresAt %v did not move past %v", exp2, exp1)
	}
	time.Sleep(20 * time.Millisecond)
	exp3, _, _ := info(t, e.do(t, http.MethodPost, extend, nil, cookie(tok)...))
	if !exp3.After(exp2) {
		t.Errorf("extend by cookie: expiresAt %v did not move past %v", exp3, exp2)
	}
	exp4, _, _ := info(t, e.do(t, http.MethodGet, current, nil, bearer(tok)...))
	if !exp4.Equal(exp3) {
		t.Errorf("GET after extend: expiresAt %v, want %v", exp4, exp3)
	}

	r := e.do(t, http.MethodDelete, removal, nil, bearer(tok)...)
	if r.status != http.StatusNoContent || len(r.body) != 0 {
		t.Errorf("%s: want 204 without body", r)
	}
	e.do(t, http.MethodGet, current, nil, bearer(tok)...).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
	e.do(t, http.MethodPost, extend, nil, bearer(tok)...).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
	e.do(t, http.MethodDelete, removal, nil, bearer(tok)...).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
	e.do(t, http.MethodGet, e.PublishingURL+"/core/health", nil, bearer(tok)...).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")

	// Removal by cookie works too.
	tok2 := e.newToken(t, "viewer")
	if r := e.do(t, http.MethodDelete, removal, nil, cookie(tok2)...); r.status != http.StatusNoContent {
		t.Errorf("%s: want 204", r)
	}
	e.do(t, http.MethodGet, current, nil, cookie(tok2)...).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
}

// TestConformanceTokenLifetime: a token expires after expires_in seconds and an
// expired token cannot be extended.
func TestConformanceTokenLifetime(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, "-token-lifetime", "1s")
	_, current := e.discover(t)
	r := e.grant(t, "alice", "alice-secret").want(t, http.StatusOK)
	m := r.obj(t)
	tok := str(m["access_token"])
	if n, _ := num(m["expires_in"]); n != 1 {
		t.Errorf("expires_in = %v, want 1", m["expires_in"])
	}
	info := e.do(t, http.MethodGet, current, nil, bearer(tok)...).want(t, http.StatusOK).obj(t)
	extend := str(at(info, "_links", "auth-token:extend", 0, "href"))
	time.Sleep(1200 * time.Millisecond)
	e.do(t, http.MethodGet, current, nil, bearer(tok)...).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
	e.do(t, http.MethodPost, extend, nil, bearer(tok)...).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
}

// TestConformanceUnauthenticated: every authenticated platform call (areas C–F, the
// registry) answers 401 auth/UNAUTHORIZED without a valid token, and accepts both
// the Bearer header and the cookie.
func TestConformanceUnauthenticated(t *testing.T) {
	t.Parallel()
	e := startEmulator(t)
	tok := e.token(t, "alice")
	cmd := e.control(t, "commands", map[string]any{"type": "publishing:purge", "creator": "alice",
		"steps": []any{map[string]any{"lifecycle": "finished", "progress": 100}}})
	var cmdURL string
	if cmd.status < 300 {
		cmdURL = str(at(cmd.obj(t), "_links", "self", "href"))
	}
	calls := []struct {
		method, url string
		body        any
	}{
		{http.MethodGet, e.PlatformURL + "/apis/registry;version=0/serviceroots", nil},
		{http.MethodGet, e.PublishingURL + "/core/health", nil},
		{http.MethodPost, e.PublishingURL + "/scores", map[string]any{"scoreUrl": "https://cdn.example/a.sib"}},
		{http.MethodGet, e.PublishingURL + "/scores", nil},
		{http.MethodPost, e.PublishingURL + "/scores/count", map[string]any{}},
		{http.MethodGet, e.PublishingURL + "/scores/count", nil},
		{http.MethodGet, e.PublishingURL + "/scores/x", nil},
		{http.MethodDelete, e.PublishingURL + "/scores/x", nil},
		{http.MethodPost, e.PublishingURL + "/scores/x/view", map[string]any{}},
		{http.MethodGet, e.template(t, "datamodel:system-model", map[string]string{"systemType": "interplay-pam", "systemID": "pam-1"}), nil},
		{http.MethodGet, e.template(t, "datamodel:asset-model-by-id", map[string]string{"systemType": "interplay-pam", "systemID": "pam-1", "assetId": "clip-1"}), nil},
		{http.MethodGet, e.template(t, "datamodel:asset-model-by-type", map[string]string{"systemType": "interplay-pam", "systemID": "pam-1", "assetType": "sequence"}), nil},
		{http.MethodGet, e.template(t, "command:command-by-id", map[string]string{"id": "nope"}), nil},
	}
	if cmdURL != "" {
		calls = append(calls, struct {
			method, url string
			body        any
		}{http.MethodGet, cmdURL, nil})
	} else {
		t.Errorf("%s: cannot create a command", cmd)
	}
	for _, c := range calls {
		e.do(t, c.method, c.url, c.body).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
		e.do(t, c.method, c.url, c.body, bearer("bogus")...).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
		e.do(t, c.method, c.url, c.body, cookie("bogus")...).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
		e.do(t, c.method, c.url, c.body, "token", tok).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
		if c.method == http.MethodGet {
			for _, hdr := range [][]string{bearer(tok), cookie(tok)} {
				if r := e.do(t, c.method, c.url, c.body, hdr...); r.status == http.StatusUnauthorized {
					t.Errorf("%s with %s: 401", r, hdr[0])
				}
			}
		}
	}
	// The admin API does not take platform tokens, nor the platform admin sessions.
	sess := e.adminLogin(t, "admin", "admin-secret")
	e.do(t, http.MethodGet, e.AdminURL+"/checksession", nil, adminToken(tok)...).problem(t, http.StatusUnauthorized, "admin/UNAUTHORIZED", "")
	e.do(t, http.MethodGet, e.PublishingURL+"/core/health", nil, bearer(sess)...).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
}

// ---------------------------------------------------------------------------
// §C Score publishing

var uuidV4RE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// checkScore checks the score object's shape.
func checkScore(t *testing.T, s map[string]any, scoreURL, alias, user string, transpose bool) {
	t.Helper()
	if !uuidV4RE.MatchString(str(s["id"])) {
		t.Errorf("score id %v is not a UUID v4", s["id"])
	}
	if s["scoreUrl"] != scoreURL {
		t.Errorf("scoreUrl = %v, want %q", s["scoreUrl"], scoreURL)
	}
	pub := objOf(s["publisher"])
	if alias == "" {
		if has(pub, "scoreId") {
			t.Errorf("publisher = %v: scoreId present without an alias", pub)
		}
	} else if pub["scoreId"] != alias {
		t.Errorf("publisher.scoreId = %v, want %q", pub["scoreId"], alias)
	}
	if at(pub, "identity", "user") != user {
		t.Errorf("publisher.identity.user = %v, want %q", at(pub, "identity", "user"), user)
	}
	if at(s, "options", "transpose") != transpose {
		t.Errorf("options.transpose = %v, want %v", at(s, "options", "transpose"), transpose)
	}
	switch s["status"] {
	case "pending", "rendering", "idle", "error":
	default:
		t.Errorf("status = %v", s["status"])
	}
	created := timestamp(t, "createdAt", s["createdAt"])
	updated := timestamp(t, "updatedAt", s["updatedAt"])
	if updated.Before(created) {
		t.Errorf("updatedAt %v before createdAt %v", updated, created)
	}
	if _, ok := s["renderings"].([]any); !ok {
		t.Errorf("renderings = %#v, want an array", s["renderings"])
	}
}

func TestConformancePublish(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, "-render-delay", "100ms")
	tok := e.token(t, "alice")
	scores := e.PublishingURL + "/scores"
	publish := func(t *testing.T, body any) *reply {
		t.Helper()
		return e.do(t, http.MethodPost, scores, body, bearer(tok)...)
	}

	t.Run("health", func(t *testing.T) {
		r := e.do(t, http.MethodGet, e.PublishingURL+"/core/health", nil, bearer(tok)...).want(t, http.StatusOK)
		got, _ := json.Marshal(r.obj(t))
		if string(got) != `{"service":{"healthStatus":"ok","healthVerifier":"default"}}` {
			t.Errorf("health = %s", got)
		}
		e.do(t, http.MethodGet, e.PublishingURL+"/core/health", nil, cookie(tok)...).want(t, http.StatusOK)
		e.do(t, http.MethodGet, e.PublishingURL+"/core/health", nil).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
	})

	t.Run("bad arguments", func(t *testing.T) {
		long := strings.Repeat("a", 129)
		for _, tc := range []struct {
			name  string
			body  any
			field string
		}{
			{"no scoreUrl", map[string]any{}, "scoreUrl"},
			{"empty scoreUrl", map[string]any{"scoreUrl": ""}, "scoreUrl"},
			{"relative scoreUrl", map[string]any{"scoreUrl": "/score.sib"}, "scoreUrl"},
			{"ftp scoreUrl", map[string]any{"scoreUrl": "ftp://cdn.example/score.sib"}, "scoreUrl"},
			{"scoreUrl without host", map[string]any{"scoreUrl": "https:///score.sib"}, "scoreUrl"},
			{"scoreUrl not a string", map[string]any{"scoreUrl": 5}, "scoreUrl"},
			{"scoreUrl not a URL", map[string]any{"scoreUrl": "not a url"}, "scoreUrl"},
			{"scoreUrl with a bad host", map[string]any{"scoreUrl": "https://cdn example/a.sib"}, "scoreUrl"},
			{"options not an object", map[string]any{"scoreUrl": "https://cdn.example/a.sib", "options": "transpose"}, "options"},
			{"alias too long", map[string]any{"scoreUrl": "https://cdn.example/a.sib", "scoreId": long}, "scoreId"},
			{"alias empty", map[string]any{"scoreUrl": "https://cdn.example/a.sib", "scoreId": ""}, "scoreId"},
			{"alias with a space", map[string]any{"scoreUrl": "https://cdn.example/a.sib", "scoreId": "a b"}, "scoreId"},
			{"alias with a slash", map[string]any{"scoreUrl": "https://cdn.example/a.sib", "scoreId": "a/b"}, "scoreId"},
			{"alias not ASCII", map[string]any{"scoreUrl": "https://cdn.example/a.sib", "scoreId": "scoré"}, "scoreId"},
			{"alias is a UUID", map[string]any{"scoreUrl": "https://cdn.example/a.sib", "scoreId": "4f0c6d1e-2b3a-4c5d-8e9f-0a1b2c3d4e5f"}, "scoreId"},
			{"alias not a string", map[string]any{"scoreUrl": "https://cdn.example/a.sib", "scoreId": 12}, "scoreId"},
			{"transpose not a boolean", map[string]any{"scoreUrl": "https://cdn.example/a.sib", "options": map[string]any{"transpose": "yes"}}, "options.transpose"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				publish(t, tc.body).problem(t, http.StatusBadRequest, "publishing/BAD_ARGUMENT", tc.field)
			})
		}
		publish(t, raw{"application/json", `{"scoreUrl":`}).problem(t, http.StatusBadRequest, "publishing/BAD_ARGUMENT", "")
		publish(t, raw{"application/json", `["https://cdn.example/a.sib"]`}).problem(t, http.StatusBadRequest, "publishing/BAD_ARGUMENT", "")
	})

	t.Run("publish get delete", func(t *testing.T) {
		// Without an alias; unknown fields ignored; default transpose false.
		r := publish(t, map[string]any{"scoreUrl": "https://cdn.example/one.sib", "unknown": map[string]any{"x": 1}}).want(t, http.StatusOK)
		body := r.obj(t)
		if len(body) != 1 {
			t.Errorf("publish response keys %v, want only score", keys(body))
		}
		one := objOf(body["score"])
		checkScore(t, one, "https://cdn.example/one.sib", "", "alice", false)
		if one["status"] != "pending" {
			t.Errorf("new score status %v, want pending", one["status"])
		}
		if at(one, "renderings") == nil || len(arr(one["renderings"])) != 0 {
			t.Errorf("new score renderings = %v, want []", one["renderings"])
		}
		id := str(one["id"])

		// With alias and transpose; the viewer is the publisher.
		vtok := e.token(t, "viewer")
		r = e.do(t, http.MethodPost, scores, map[string]any{"scoreUrl": "http://cdn.example/two.sib", "scoreId": "my.Great_score-2",
			"options": map[string]any{"transpose": true}}, bearer(vtok)...).want(t, http.StatusOK)
		two := objOf(r.obj(t)["score"])
		checkScore(t, two, "http://cdn.example/two.sib", "my.Great_score-2", "viewer", true)
		publish(t, map[string]any{"scoreUrl": "https://cdn.example/other.sib", "scoreId": "my.Great_score-2"}).problem(t, http.StatusConflict, "publishing/CONFLICT", "")
		// A 128-character alias is fine.
		publish(t, map[string]any{"scoreUrl": "https://cdn.example/a.sib", "scoreId": strings.Repeat("x", 128)}).want(t, http.StatusOK)

		// Parameters in the query string; the body wins over the query.
		q := scores + "?" + url.Values{"scoreUrl": {"https://cdn.example/query.sib"}, "scoreId": {"fromQuery"}}.Encode()
		r = e.do(t, http.MethodPost, q, nil, bearer(tok)...).want(t, http.StatusOK)
		checkScore(t, objOf(r.obj(t)["score"]), "https://cdn.example/query.sib", "fromQuery", "alice", false)
		q = scores + "?" + url.Values{"scoreUrl": {"https://cdn.example/query.sib"}, "scoreId": {"queryLoses"}}.Encode()
		r = e.do(t, http.MethodPost, q, map[string]any{"scoreUrl": "https://cdn.example/body.sib", "scoreId": "bodyWins"}, bearer(tok)...).want(t, http.StatusOK)
		checkScore(t, objOf(r.obj(t)["score"]), "https://cdn.example/body.sib", "bodyWins", "alice", false)

		// Get by UUID and by alias.
		for _, ref := range []string{id, str(two["id"]), "my.Great_score-2"} {
			g := e.do(t, http.MethodGet, scores+"/"+ref, nil, bearer(tok)...).want(t, http.StatusOK).obj(t)
			if len(g) != 1 || g["score"] == nil {
				t.Errorf("GET %s keys %v, want only score", ref, keys(g))
			}
		}
		g := objOf(e.do(t, http.MethodGet, scores+"/my.Great_score-2", nil, cookie(tok)...).want(t, http.StatusOK).obj(t)["score"])
		if g["id"] != two["id"] {
			t.Errorf("GET by alias returned %v, want %v", g["id"], two["id"])
		}
		checkScore(t, g, "http://cdn.example/two.sib", "my.Great_score-2", "viewer", true)
		for _, ref := range []string{"4f0c6d1e-2b3a-4c5d-8e9f-0a1b2c3d4e5f", "noSuchAlias"} {
			e.do(t, http.MethodGet, scores+"/"+ref, nil, bearer(tok)...).problem(t, http.StatusNotFound, "publishing/NOT_FOUND", "")
		}

		// Delete by UUID, by alias, with purge in the query and in the body.
		del := func(ref string, body any, query string) *reply {
			return e.do(t, http.MethodDelete, scores+"/"+ref+query, body, bearer(tok)...)
		}
		if r := del(id, nil, ""); r.status != http.StatusNoContent || len(r.body) != 0 {
			t.Errorf("%s: want 204 without body", r)
		}
		e.do(t, http.MethodGet, scores+"/"+id, nil, bearer(tok)...).problem(t, http.StatusNotFound, "publishing/NOT_FOUND", "")
		del(id, nil, "").problem(t, http.StatusNotFound, "publishing/NOT_FOUND", "")
		if r := del("my.Great_score-2", nil, "?purge=true"); r.status != http.StatusNoContent {
			t.Errorf("%s: want 204", r)
		}
		e.do(t, http.MethodGet, scores+"/"+str(two["id"]), nil, bearer(tok)...).problem(t, http.StatusNotFound, "publishing/NOT_FOUND", "")
		// The alias is free again.
		publish(t, map[string]any{"scoreUrl": "https://cdn.example/again.sib", "scoreId": "my.Great_score-2"}).want(t, http.StatusOK)
		del("my.Great_score-2", map[string]any{"purge": "sometimes"}, "").problem(t, http.StatusBadRequest, "publishing/BAD_ARGUMENT", "purge")
		del("my.Great_score-2", nil, "?purge=maybe").problem(t, http.StatusBadRequest, "publishing/BAD_ARGUMENT", "purge")
		if r := del("my.Great_score-2", map[string]any{"purge": true}, ""); r.status != http.StatusNoContent {
			t.Errorf("%s: want 204", r)
		}
		del("fromQuery", map[string]any{"purge": false}, "").want(t, http.StatusNoContent)
		del("noSuchAlias", nil, "?purge=true").problem(t, http.StatusNotFound, "publishing/NOT_FOUND", "")
	})

	t.Run("status progression", func(t *testing.T) {
		t.Parallel()
		for _, tc := range []struct {
			url, final string
		}{
			{"https://cdn.example/good.sib", "idle"},
			{"https://scores.example.invalid/bad.sib", "error"},
		} {
			r := publish(t, map[string]any{"scoreUrl": tc.url}).want(t, http.StatusOK)
			start := time.Now()
			s := objOf(r.obj(t)["score"])
			id := str(s["id"])
			seen := []string{str(s["status"])}
			var last map[string]any
			if !eventually(3*time.Second, func() bool {
				last = objOf(e.do(t, http.MethodGet, scores+"/"+id, nil, bearer(tok)...).want(t, http.StatusOK).obj(t)["score"])
				st := str(last["status"])
				if st != seen[len(seen)-1] {
					seen = append(seen, st)
					// 100 ms in each of pending and rendering (some slack for the
					// time between creation and the response).
					if earliest := map[string]time.Duration{"rendering": 70 * time.Millisecond, "idle": 170 * time.Millisecond,
						"error": 170 * time.Millisecond}[st]; time.Since(start) < earliest {
						t.Errorf("score %s reached %s after %v, want ≥ %v with -render-delay 100ms", tc.url, st, time.Since(start), earliest)
					}
				}
				if st != "idle" && len(arr(last["renderings"])) != 0 {
					t.Errorf("score %s in status %s has renderings %v", tc.url, st, last["renderings"])
				}
				return st == "idle" || st == "error"
			}) {
				t.Fatalf("score %s stays %v", tc.url, seen)
			}
			if want := []string{"pending", "rendering", tc.final}; !slices.Equal(seen, want) {
				t.Errorf("score %s went through %v, want %v", tc.url, seen, want)
			}
			checkScore(t, last, tc.url, "", "alice", false)
			if !timestamp(t, "updatedAt", last["updatedAt"]).After(timestamp(t, "createdAt", last["createdAt"])) {
				t.Errorf("updatedAt did not move on status changes: %v", last)
			}
			rend := arr(last["renderings"])
			if tc.final == "idle" {
				n, ok := num(at(rend, 0, "pages"))
				if len(rend) != 1 || at(rend, 0, "format") != "svg" || !ok || n < 1 {
					t.Errorf("idle score renderings = %v, want one {format: svg, pages: n}", last["renderings"])
				}
			}
		}
	})
}

func TestConformanceScoreList(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, "-render-delay", "0")
	tok := e.token(t, "alice")
	scores := e.PublishingURL + "/scores"

	// 55 scores: 5 with aliases, 3 that fail rendering; with no render delay they
	// settle at once.
	const total = 55
	for i := range total {
		body := map[string]any{"scoreUrl": fmt.Sprintf("https://cdn.example/%02d.sib", i)}
		if i%11 == 0 {
			body["scoreId"] = fmt.Sprintf("alias%02d", i)
		}
		if i%20 == 1 {
			body["scoreUrl"] = fmt.Sprintf("https://broken.invalid/%02d.sib", i)
		}
		e.do(t, http.MethodPost, scores, body, bearer(tok)...).want(t, http.StatusOK)
	}
	list := func(t *testing.T, query url.Values, body any) []any {
		t.Helper()
		u := scores
		if query != nil {
			u += "?" + query.Encode()
		}
		m := e.do(t, http.MethodGet, u, body, bearer(tok)...).want(t, http.StatusOK).obj(t)
		s, ok := m["scores"].([]any)
		if !ok {
			t.Fatalf("GET %s: scores = %#v, want an array", u, m["scores"])
		}
		return s
	}
	ids := func(s []any) []string {
		var out []string
		for _, x := range s {
			out = append(out, str(at(x, "id")))
		}
		return out
	}
	if !eventually(3*time.Second, func() bool {
		return len(list(t, url.Values{"limit": {"100"}, "score": {`{"status":"pending"}`}}, nil))+
			len(list(t, url.Values{"limit": {"100"}, "score": {`{"status":"rendering"}`}}, nil)) == 0
	}) {
		t.Fatal("scores do not settle with -render-delay 0")
	}

	all := list(t, url.Values{"limit": {"100"}}, nil)
	if len(all) != total {
		t.Fatalf("limit 100 returned %d scores, want %d", len(all), total)
	}
	for i := 1; i < len(all); i++ {
		a, b := objOf(all[i-1]), objOf(all[i])
		ka, kb := str(a["createdAt"])+" "+str(a["id"]), str(b["createdAt"])+" "+str(b["id"])
		if ka > kb {
			t.Errorf("list not ordered by createdAt, then id: %s before %s", ka, kb)
		}
	}
	allIDs := ids(all)

	t.Run("paging", func(t *testing.T) {
		if got := ids(list(t, nil, nil)); !slices.Equal(got, allIDs[:50]) {
			t.Errorf("default page has %d scores, want the first 50", len(got))
		}
		if got := ids(list(t, url.Values{"offset": {"50"}}, nil)); !slices.Equal(got, allIDs[50:]) {
			t.Errorf("offset 50 returned %d scores, want the last 5", len(got))
		}
		if got := ids(list(t, url.Values{"offset": {"10"}, "limit": {"3"}}, nil)); !slices.Equal(got, allIDs[10:13]) {
			t.Errorf("offset 10 limit 3 = %v, want %v", got, allIDs[10:13])
		}
		if got := list(t, url.Values{"offset": {"55"}}, nil); len(got) != 0 {
			t.Errorf("offset past the end returned %d scores", len(got))
		}
		if got := ids(list(t, url.Values{"limit": {"1"}}, nil)); !slices.Equal(got, allIDs[:1]) {
			t.Errorf("limit 1 = %v", got)
		}
		// In a JSON body; the body wins over the query.
		if got := ids(list(t, nil, map[string]any{"offset": 20, "limit": 2})); !slices.Equal(got, allIDs[20:22]) {
			t.Errorf("body offset 20 limit 2 = %v, want %v", got, allIDs[20:22])
		}
		if got := ids(list(t, url.Values{"offset": {"1"}, "limit": {"1"}}, map[string]any{"offset": 3, "limit": 4})); !slices.Equal(got, allIDs[3:7]) {
			t.Errorf("body over query = %v, want %v", got, allIDs[3:7])
		}
	})

	t.Run("criteria", func(t *testing.T) {
		errored := list(t, url.Values{"score": {`{"status":"error"}`}}, nil)
		if len(errored) != 3 {
			t.Errorf("status error matched %d scores, want 3", len(errored))
		}
		for _, s := range errored {
			if !strings.Contains(str(at(s, "scoreUrl")), ".invalid/") {
				t.Errorf("status error matched %v", s)
			}
		}
		if got := list(t, url.Values{"score": {`{"status":"idle"}`}, "limit": {"100"}}, nil); len(got) != total-3 {
			t.Errorf("status idle matched %d scores, want %d", len(got), total-3)
		}
		if got := list(t, url.Values{"score": {`{"scoreId":"alias22"}`}}, nil); len(got) != 1 || at(got, 0, "publisher", "scoreId") != "alias22" {
			t.Errorf("scoreId alias22 matched %v", got)
		}
		if got := list(t, url.Values{"score": {`{"scoreUrl":"https://cdn.example/07.sib"}`}}, nil); len(got) != 1 || at(got, 0, "scoreUrl") != "https://cdn.example/07.sib" {
			t.Errorf("scoreUrl matched %v", got)
		}
		if got := list(t, url.Values{"score": {`{"status":"idle","scoreId":"alias11"}`}}, nil); len(got) != 1 {
			t.Errorf("status+scoreId matched %d scores, want 1", len(got))
		}
		if got := list(t, url.Values{"score": {`{"status":"error","scoreId":"alias11"}`}}, nil); len(got) != 0 {
			t.Errorf("status error + scoreId alias11 matched %d scores, want 0", len(got))
		}
		if got := list(t, url.Values{"score": {`{}`}}, nil); len(got) != 50 {
			t.Errorf("empty criteria matched %d scores, want 50", len(got))
		}
		// Criteria in a JSON body, as an object; the body wins.
		if got := list(t, url.Values{"score": {`{"status":"idle"}`}}, map[string]any{"score": map[string]any{"status": "error"}}); len(got) != 3 {
			t.Errorf("body criteria matched %d scores, want 3", len(got))
		}
		if got := list(t, nil, map[string]any{"score": map[string]any{"scoreId": "alias33"}, "limit": 5}); len(got) != 1 {
			t.Errorf("body scoreId criteria matched %d scores, want 1", len(got))
		}
	})

	t.Run("bad arguments", func(t *testing.T) {
		for _, tc := range []struct {
			q     url.Values
			body  any
			field string
		}{
			{url.Values{"limit": {"0"}}, nil, "limit"},
			{url.Values{"limit": {"101"}}, nil, "limit"},
			{url.Values{"limit": {"ten"}}, nil, "limit"},
			{url.Values{"offset": {"-1"}}, nil, "offset"},
			{url.Values{"offset": {"x"}}, nil, "offset"},
			{url.Values{"score": {"status=idle"}}, nil, "score"},
			{url.Values{"score": {`["idle"]`}}, nil, "score"},
			{url.Values{"score": {`"idle"`}}, nil, "score"},
			{nil, map[string]any{"limit": 101}, "limit"},
			{nil, map[string]any{"offset": -5}, "offset"},
			{nil, map[string]any{"score": []any{"idle"}}, "score"},
			{nil, map[string]any{"score": "idle"}, "score"},
		} {
			u := scores
			if tc.q != nil {
				u += "?" + tc.q.Encode()
			}
			e.do(t, http.MethodGet, u, tc.body, bearer(tok)...).problem(t, http.StatusBadRequest, "publishing/BAD_ARGUMENT", tc.field)
		}
	})

	t.Run("count", func(t *testing.T) {
		count := func(t *testing.T, method string, q url.Values, body any) int64 {
			t.Helper()
			u := scores + "/count"
			if q != nil {
				u += "?" + q.Encode()
			}
			m := e.do(t, method, u, body, bearer(tok)...).want(t, http.StatusOK).obj(t)
			n, ok := num(m["count"])
			if !ok || len(m) != 1 {
				t.Fatalf("%s %s = %v, want {count: n}", method, u, m)
			}
			return n
		}
		for _, tc := range []struct {
			q    url.Values
			body any
			want int64
		}{
			{nil, nil, total},
			{nil, map[string]any{}, total},
			{nil, map[string]any{"score": map[string]any{"status": "error"}}, 3},
			{nil, map[string]any{"score": map[string]any{"scoreId": "alias44"}}, 1},
			{nil, map[string]any{"offset": 50}, 5},
			{nil, map[string]any{"offset": 10, "limit": 20}, 20},
			{nil, map[string]any{"offset": 50, "limit": 20}, 5},
			{nil, map[string]any{"offset": 60}, 0},
			{nil, map[string]any{"limit": 7}, 7},
			{nil, map[string]any{"score": map[string]any{"status": "error"}, "offset": 1}, 2},
			{url.Values{"score": {`{"status":"error"}`}}, nil, 3},
			{url.Values{"offset": {"50"}}, nil, 5},
			{url.Values{"offset": {"2"}, "limit": {"3"}}, nil, 3},
			{url.Values{"offset": {"2"}}, map[string]any{"offset": 54}, 1},
		} {
			for _, method := range []string{http.MethodPost, http.MethodGet} {
				if got := count(t, method, tc.q, tc.body); got != tc.want {
					t.Errorf("%s /scores/count query %v body %v = %d, want %d", method, tc.q, tc.body, got, tc.want)
				}
			}
		}
		for _, tc := range []struct {
			q     url.Values
			body  any
			field string
		}{
			{url.Values{"offset": {"-1"}}, nil, "offset"},
			{url.Values{"limit": {"-1"}}, nil, "limit"},
			{url.Values{"score": {`[1]`}}, nil, "score"},
			{url.Values{"score": {`{`}}, nil, "score"},
			{nil, map[string]any{"score": "error"}, "score"},
			{nil, map[string]any{"offset": "x"}, "offset"},
		} {
			for _, method := range []string{http.MethodPost, http.MethodGet} {
				u := scores + "/count"
				if tc.q != nil {
					u += "?" + tc.q.Encode()
				}
				e.do(t, method, u, tc.body, bearer(tok)...).problem(t, http.StatusBadRequest, "publishing/BAD_ARGUMENT", tc.field)
			}
		}
	})
}

func TestConformanceViews(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, "-render-delay", "0")
	tok := e.token(t, "alice")
	scores := e.PublishingURL + "/scores"
	score := objOf(e.do(t, http.MethodPost, scores, map[string]any{"scoreUrl": "https://cdn.example/v.sib", "scoreId": "viewed"},
		bearer(tok)...).want(t, http.StatusOK).obj(t)["score"])
	id := str(score["id"])
	view := func(t *testing.T, ref string, body any) *reply {
		t.Helper()
		return e.do(t, http.MethodPost, scores+"/"+ref+"/view", body, bearer(tok)...)
	}
	checkView := func(t *testing.T, r *reply, expiresIn int, settings map[string]any) map[string]any {
		t.Helper()
		m := r.want(t, http.StatusOK).obj(t)
		v := objOf(m["view"])
		if len(m) != 1 || v == nil {
			t.Fatalf("%s: want {view: {…}}", r)
		}
		if str(v["id"]) == "" || v["scoreId"] != id {
			t.Errorf("view %v: want an id and scoreId %q", v, id)
		}
		if v["viewerUrl"] != e.PlatformURL+"/viewer/"+str(v["id"]) {
			t.Errorf("viewerUrl = %v, want %s/viewer/<view id>", v["viewerUrl"], e.PlatformURL)
		}
		created := timestamp(t, "view createdAt", v["createdAt"])
		expires := timestamp(t, "view expiresAt", v["expiresAt"])
		if d := expires.Sub(created); d != time.Duration(expiresIn)*time.Second {
			t.Errorf("view expiresAt − createdAt = %v, want %ds", d, expiresIn)
		}
		got := objOf(v["settings"])
		for k, want := range settings {
			if got[k] != want {
				t.Errorf("settings.%s = %#v, want %#v", k, got[k], want)
			}
		}
		for _, k := range []string{"printable", "pages", "licenseString", "lang"} {
			if !has(got, k) {
				t.Errorf("settings lacks %s: %v", k, got)
			}
		}
		return v
	}
	viewer := func(t *testing.T, v map[string]any, status int) {
		t.Helper()
		r := e.do(t, http.MethodGet, str(v["viewerUrl"]), nil)
		if r.status != status {
			t.Errorf("%s: want %d", r, status)
		}
		if status == http.StatusOK && r.mediaType() != "text/html" {
			t.Errorf("%s: Content-Type %q, want text/html", r, r.header.Get("Content-Type"))
		}
	}

	t.Run("bad arguments", func(t *testing.T) {
		for _, tc := range []struct {
			name  string
			body  any
			field string
		}{
			{"expiresIn negative", map[string]any{"expiresIn": -1}, "expiresIn"},
			{"expiresIn too large", map[string]any{"expiresIn": 86401}, "expiresIn"},
			{"expiresIn not a number", map[string]any{"expiresIn": "soon"}, "expiresIn"},
			{"expiresIn fractional", map[string]any{"expiresIn": 1.5}, "expiresIn"},
			{"printable not a boolean", map[string]any{"settings": map[string]any{"printable": "yes"}}, "settings.printable"},
			{"pages zero", map[string]any{"settings": map[string]any{"pages": "0"}}, "settings.pages"},
			{"pages reversed range", map[string]any{"settings": map[string]any{"pages": "3-1"}}, "settings.pages"},
			{"pages words", map[string]any{"settings": map[string]any{"pages": "all"}}, "settings.pages"},
			{"pages empty item", map[string]any{"settings": map[string]any{"pages": "1,,2"}}, "settings.pages"},
			{"pages open range", map[string]any{"settings": map[string]any{"pages": "2-"}}, "settings.pages"},
			{"pages negative", map[string]any{"settings": map[string]any{"pages": "-2"}}, "settings.pages"},
			{"pages not a string", map[string]any{"settings": map[string]any{"pages": 3}}, "settings.pages"},
			{"pages with spaces", map[string]any{"settings": map[string]any{"pages": "1 - 3"}}, "settings.pages"},
			{"settings not an object", map[string]any{"settings": "printable"}, "settings"},
			{"expiresIn as a string", map[string]any{"expiresIn": "60"}, "expiresIn"},
			{"licenseString too long", map[string]any{"settings": map[string]any{"licenseString": strings.Repeat("L", 1025)}}, "settings.licenseString"},
			{"licenseString too many characters", map[string]any{"settings": map[string]any{"licenseString": strings.Repeat("é", 1025)}}, "settings.licenseString"},
			{"licenseString not a string", map[string]any{"settings": map[string]any{"licenseString": true}}, "settings.licenseString"},
			{"lang not BCP 47", map[string]any{"settings": map[string]any{"lang": "english please"}}, "settings.lang"},
			{"lang not a string", map[string]any{"settings": map[string]any{"lang": 1}}, "settings.lang"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				view(t, "viewed", tc.body).problem(t, http.StatusBadRequest, "publishing/BAD_ARGUMENT", tc.field)
			})
		}
		view(t, "noSuchScore", map[string]any{}).problem(t, http.StatusNotFound, "publishing/NOT_FOUND", "")
		view(t, "4f0c6d1e-2b3a-4c5d-8e9f-0a1b2c3d4e5f", map[string]any{}).problem(t, http.StatusNotFound, "publishing/NOT_FOUND", "")
	})

	t.Run("create", func(t *testing.T) {
		defaults := map[string]any{"printable": false, "licenseString": "", "lang": "en"}
		v := checkView(t, view(t, "viewed", nil), 7200, defaults)
		viewer(t, v, http.StatusOK)
		checkView(t, view(t, id, map[string]any{"expiresIn": 0}), 7200, defaults)
		checkView(t, view(t, id, map[string]any{"expiresIn": 86400, "unknown": 1}), 86400, defaults)
		full := map[string]any{"printable": true, "pages": "1-3,5,8-9", "licenseString": strings.Repeat("L", 1024), "lang": "fr-CA"}
		checkView(t, view(t, "viewed", map[string]any{"expiresIn": 60, "settings": full}), 60, full)
		// The limit counts characters, not bytes.
		wide := map[string]any{"licenseString": strings.Repeat("é", 1024)}
		checkView(t, view(t, "viewed", map[string]any{"settings": wide}), 7200, wide)
		// Query parameters; the body wins.
		q := scores + "/viewed/view?expiresIn=30&settings.lang=de"
		de := map[string]any{"printable": false, "licenseString": "", "lang": "de"}
		checkView(t, e.do(t, http.MethodPost, q, nil, bearer(tok)...), 30, de)
		checkView(t, e.do(t, http.MethodPost, q, map[string]any{"expiresIn": 40}, bearer(tok)...), 40, de)
		e.do(t, http.MethodGet, e.PlatformURL+"/viewer/no-such-view", nil).want(t, http.StatusNotFound)
	})

	t.Run("expiry and deletion", func(t *testing.T) {
		short := checkView(t, view(t, "viewed", map[string]any{"expiresIn": 1}), 1, nil)
		long := checkView(t, view(t, "viewed", map[string]any{"expiresIn": 600}), 600, nil)
		viewer(t, short, http.StatusOK)
		time.Sleep(1100 * time.Millisecond)
		viewer(t, short, http.StatusGone)
		viewer(t, long, http.StatusOK)
		e.do(t, http.MethodDelete, scores+"/viewed", nil, bearer(tok)...).want(t, http.StatusNoContent)
		viewer(t, long, http.StatusNotFound)
		viewer(t, short, http.StatusNotFound)
		view(t, "viewed", nil).problem(t, http.StatusNotFound, "publishing/NOT_FOUND", "")
	})
}

// ---------------------------------------------------------------------------
// §D Commands

// step is one step of a command script (section G).
func step(lifecycle string, progress int, duration string, state map[string]any) map[string]any {
	s := map[string]any{"lifecycle": lifecycle, "progress": progress}
	if duration != "" {
		s["duration"] = duration
	}
	if state != nil {
		s["state"] = state
	}
	return s
}

// newCommand creates a command from a script and returns its resource.
func (e *emu) newCommand(t *testing.T, script map[string]any) map[string]any {
	t.Helper()
	r := e.control(t, "commands", script)
	if r.status != http.StatusOK && r.status != http.StatusCreated {
		t.Fatalf("%s: cannot create a command", r)
	}
	return r.obj(t)
}

// checkCommand checks the command resource's shape.
func checkCommand(t *testing.T, e *emu, c map[string]any) {
	t.Helper()
	if c["version"] != "1.0" {
		t.Errorf("version = %v, want 1.0", c["version"])
	}
	cmd := objOf(c["command"])
	if str(cmd["id"]) == "" {
		t.Errorf("command without id: %v", c)
	}
	lc := str(cmd["lifecycle"])
	if !slices.Contains([]string{"pending", "running", "finished", "error", "suspended"}, lc) {
		t.Errorf("lifecycle = %q", lc)
	}
	if p, ok := num(cmd["progress"]); has(cmd, "progress") && (!ok || p < 0 || p > 100) {
		t.Errorf("progress = %v", cmd["progress"])
	}
	timestamp(t, "created", cmd["created"])
	timestamp(t, "modified", cmd["modified"])
	for _, k := range []string{"host", "serviceName", "serviceVersion", "serviceInstance"} {
		if str(cmd[k]) == "" {
			t.Errorf("command.%s = %v, want a string", k, cmd[k])
		}
	}
	if lc == "finished" || lc == "error" {
		timestamp(t, "finished", cmd["finished"])
	} else if has(cmd, "finished") {
		t.Errorf("lifecycle %s with finished %v", lc, cmd["finished"])
	}
	if lc == "error" {
		errObj := objOf(cmd["error"])
		if str(errObj["text"]) == "" || !strings.Contains(str(errObj["code"]), "/") {
			t.Errorf("error = %v, want text and a <namespace>/<NAME> code", errObj)
		}
		if c := errObj["cause"]; c != nil && !slices.Contains([]any{"runtimeError", "timeout", "canceled", "rejected"}, c) {
			t.Errorf("error.cause = %v", c)
		}
	} else if has(cmd, "error") {
		t.Errorf("lifecycle %s with error %v", lc, cmd["error"])
	}
	links := c["_links"]
	self := selfLink(t, links)
	e.absoluteOn(t, self)
	if !strings.HasSuffix(self, "/"+str(cmd["id"])) {
		t.Errorf("self %q does not end in the id %v", self, cmd["id"])
	}
	linkArray(t, links, "command:cancel")
	curies := linkArray(t, links, "curies")
	if len(curies) == 0 || curies[0]["name"] != "command" || curies[0]["templated"] != true || !strings.Contains(str(curies[0]["href"]), "{rel}") {
		t.Errorf("curies = %v, want [{name: command, href: …{rel}, templated: true}]", curies)
	}
}

func TestConformanceCommands(t *testing.T) {
	t.Parallel()
	e := startEmulator(t)
	tok := e.token(t, "alice")
	byID := func(t *testing.T, id string) *reply {
		t.Helper()
		return e.do(t, http.MethodGet, e.template(t, "command:command-by-id", map[string]string{"id": id}), nil, bearer(tok)...)
	}
	// wait polls the command until its lifecycle is one of want.
	wait := func(t *testing.T, id string, want ...string) map[string]any {
		t.Helper()
		var c map[string]any
		if !eventually(3*time.Second, func() bool {
			c = byID(t, id).want(t, http.StatusOK).obj(t)
			return slices.Contains(want, str(at(c, "command", "lifecycle")))
		}) {
			t.Fatalf("command %s: lifecycle %v, want one of %v", id, at(c, "command", "lifecycle"), want)
		}
		checkCommand(t, e, c)
		return c
	}

	t.Run("progression", func(t *testing.T) {
		t.Parallel()
		c := e.newCommand(t, map[string]any{
			"type": "publishing:purge", "creator": "alice",
			"parameters": map[string]any{"ids": []any{"a", "b"}},
			"steps": []any{
				step("pending", 0, "100ms", nil),
				step("running", 40, "150ms", map[string]any{"text": "Purging renderings", "code": "publishing/PURGING", "params": map[string]any{"done": 2}}),
				step("finished", 100, "", nil),
			},
		})
		checkCommand(t, e, c)
		id := str(at(c, "command", "id"))
		if lc := at(c, "command", "lifecycle"); lc != "pending" {
			t.Errorf("new command lifecycle %v, want pending", lc)
		}
		if at(c, "command", "type") != "publishing:purge" || at(c, "command", "creator") != "alice" {
			t.Errorf("command = %v, want type publishing:purge, creator alice", c["command"])
		}
		got := byID(t, id).want(t, http.StatusOK).obj(t)
		checkCommand(t, e, got)
		if self := str(at(got, "_links", "self", "href")); self != e.template(t, "command:command-by-id", map[string]string{"id": id}) {
			t.Errorf("self %q is not the registry's command-by-id", self)
		}
		run := wait(t, id, "running")
		state := objOf(at(run, "command", "state"))
		if p, _ := num(at(run, "command", "progress")); p != 40 || state["text"] != "Purging renderings" ||
			state["code"] != "publishing/PURGING" || at(state, "params", "done") != json.Number("2") {
			t.Errorf("running command = %v", run["command"])
		}
		if !timestamp(t, "modified", at(run, "command", "modified")).After(timestamp(t, "created", at(run, "command", "created"))) {
			t.Errorf("modified did not move: %v", run["command"])
		}
		fin := wait(t, id, "finished", "error")
		if at(fin, "command", "lifecycle") != "finished" {
			t.Errorf("command ended %v", fin["command"])
		}
		if p, _ := num(at(fin, "command", "progress")); p != 100 {
			t.Errorf("finished progress %v", at(fin, "command", "progress"))
		}
		if ids := at(fin, "payload", "command-parameters", "ids"); !slices.Equal(arr(ids), []any{"a", "b"}) {
			t.Errorf("payload.command-parameters = %v", at(fin, "payload"))
		}
		// Cancel of a finished command is forbidden.
		cancel := str(at(fin, "_links", "command:cancel", 0, "href"))
		e.do(t, http.MethodDelete, cancel, nil, bearer(tok)...).problem(t, http.StatusForbidden, "commands/FORBIDDEN", "")
	})

	t.Run("error", func(t *testing.T) {
		t.Parallel()
		c := e.newCommand(t, map[string]any{
			"type": "publishing:render", "creator": "viewer",
			"steps": []any{step("running", 10, "50ms", nil), step("error", 10, "", nil)},
			"error": map[string]any{"cause": "timeout", "httpCode": 504, "text": "rendering timed out",
				"code": "publishing/TIMEOUT", "params": map[string]any{"after": "30s"}},
		})
		id := str(at(c, "command", "id"))
		fin := wait(t, id, "error", "finished")
		errObj := objOf(at(fin, "command", "error"))
		if at(fin, "command", "lifecycle") != "error" || errObj["cause"] != "timeout" || errObj["httpCode"] != json.Number("504") ||
			errObj["text"] != "rendering timed out" || errObj["code"] != "publishing/TIMEOUT" || at(errObj, "params", "after") != "30s" {
			t.Errorf("failed command = %v", fin["command"])
		}
		if at(fin, "command", "creator") != "viewer" {
			t.Errorf("creator = %v", at(fin, "command", "creator"))
		}
		cancel := str(at(fin, "_links", "command:cancel", 0, "href"))
		e.do(t, http.MethodDelete, cancel, nil, bearer(tok)...).problem(t, http.StatusForbidden, "commands/FORBIDDEN", "")
	})

	t.Run("suspended and cancel", func(t *testing.T) {
		t.Parallel()
		c := e.newCommand(t, map[string]any{
			"type": "publishing:purge", "creator": "alice",
			"steps": []any{step("running", 20, "50ms", nil), step("suspended", 20, "", nil), step("finished", 100, "", nil)},
		})
		id := str(at(c, "command", "id"))
		wait(t, id, "suspended")
		time.Sleep(300 * time.Millisecond)
		c = byID(t, id).want(t, http.StatusOK).obj(t)
		if at(c, "command", "lifecycle") != "suspended" {
			t.Errorf("a suspended command moved on: %v", c["command"])
		}
		cancel := str(at(c, "_links", "command:cancel", 0, "href"))
		e.do(t, http.MethodDelete, cancel, nil).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
		r := e.do(t, http.MethodDelete, cancel, nil, bearer(tok)...).want(t, http.StatusOK)
		cc := r.obj(t)
		checkCommand(t, e, cc)
		if at(cc, "command", "lifecycle") != "error" || at(cc, "command", "error", "cause") != "canceled" {
			t.Errorf("canceled command = %v, want lifecycle error, cause canceled", cc["command"])
		}
		got := byID(t, id).want(t, http.StatusOK).obj(t)
		if at(got, "command", "lifecycle") != "error" || at(got, "command", "error", "cause") != "canceled" {
			t.Errorf("GET after cancel = %v", got["command"])
		}
		e.do(t, http.MethodDelete, cancel, nil, cookie(tok)...).problem(t, http.StatusForbidden, "commands/FORBIDDEN", "")
	})

	t.Run("cancel running", func(t *testing.T) {
		t.Parallel()
		c := e.newCommand(t, map[string]any{
			"type": "publishing:purge", "creator": "alice",
			"steps": []any{step("running", 30, "10s", nil), step("finished", 100, "", nil)},
		})
		id := str(at(c, "command", "id"))
		wait(t, id, "running")
		cancel := str(at(c, "_links", "command:cancel", 0, "href"))
		cc := e.do(t, http.MethodDelete, cancel, nil, cookie(tok)...).want(t, http.StatusOK).obj(t)
		if at(cc, "command", "lifecycle") != "error" || at(cc, "command", "error", "cause") != "canceled" {
			t.Errorf("canceled command = %v", cc["command"])
		}
		checkCommand(t, e, cc)
	})

	t.Run("bulk", func(t *testing.T) {
		t.Parallel()
		c := e.newCommand(t, map[string]any{
			"type": "datamodel:bulk-update", "creator": "alice",
			"steps": []any{step("running", 50, "50ms", nil), step("finished", 100, "", nil)},
			"results": []any{
				map[string]any{"success": true, "data": "asset-1"},
				map[string]any{"success": false, "data": "", "httpStatus": 409, "errorCode": "datamodel/THUMBNAIL_CHANGED", "errorMessage": "the thumbnail changed"},
				map[string]any{"success": true, "data": "asset-3"},
			},
		})
		id := str(at(c, "command", "id"))
		fin := wait(t, id, "finished", "error")
		if at(fin, "command", "lifecycle") != "finished" {
			t.Errorf("bulk command ended %v, want finished", fin["command"])
		}
		res := arr(at(fin, "payload", "result"))
		if len(res) != 3 {
			t.Fatalf("payload.result = %v, want 3 entries", at(fin, "payload", "result"))
		}
		for i, want := range []bool{true, false, true} {
			r := objOf(res[i])
			if r["success"] != want || !has(r, "data") {
				t.Errorf("result[%d] = %v", i, r)
			}
			if want && (has(r, "httpStatus") || has(r, "errorCode") || has(r, "errorMessage")) {
				t.Errorf("successful result[%d] = %v carries failure fields", i, r)
			}
		}
		if r := objOf(res[1]); r["data"] != "" || r["httpStatus"] != json.Number("409") || r["errorCode"] != "datamodel/THUMBNAIL_CHANGED" || str(r["errorMessage"]) == "" {
			t.Errorf("failed result = %v", r)
		}
		if r := objOf(res[0]); r["data"] != "asset-1" {
			t.Errorf("result[0] = %v", r)
		}
		params := objOf(at(fin, "command", "state", "params"))
		if params["totalCount"] != json.Number("3") || params["successCount"] != json.Number("2") || params["failureCount"] != json.Number("1") {
			t.Errorf("bulk state.params = %v, want totalCount 3, successCount 2, failureCount 1", params)
		}
	})

	t.Run("not found", func(t *testing.T) {
		byID(t, "no-such-command").problem(t, http.StatusNotFound, "commands/NOT_FOUND", "")
		u := e.template(t, "command:command-by-id", map[string]string{"id": "no-such-command"})
		e.do(t, http.MethodDelete, u, nil, bearer(tok)...).problem(t, http.StatusNotFound, "commands/NOT_FOUND", "")
	})
}

// ---------------------------------------------------------------------------
// §R Registry, §E/F Data models

func TestConformanceRegistry(t *testing.T) {
	t.Parallel()
	e := startEmulator(t)
	tok := e.token(t, "viewer")
	u := e.PlatformURL + "/apis/registry;version=0/serviceroots"
	root := e.do(t, http.MethodGet, u, nil, cookie(tok)...).want(t, http.StatusOK).obj(t)
	res := objOf(root["resources"])
	wantVars := map[string][]string{
		"datamodel:system-model":        {"systemType", "systemID", "insist", "lang"},
		"datamodel:asset-model-by-id":   {"systemType", "systemID", "assetId", "lang"},
		"datamodel:asset-model-by-type": {"systemType", "systemID", "assetType", "lang"},
		"command:command-by-id":         {"id"},
	}
	for rel, vars := range wantVars {
		entries := arr(res[rel])
		if len(entries) == 0 {
			t.Errorf("resources[%q] = %v, want an array", rel, res[rel])
			continue
		}
		entry := objOf(entries[0])
		href := str(entry["href"])
		if entry["templated"] != true {
			t.Errorf("%s: templated = %v", rel, entry["templated"])
		}
		tmpl, err := uritemplate.New(href)
		if err != nil {
			t.Errorf("%s: href %q is not an RFC 6570 template: %v", rel, href, err)
			continue
		}
		got := tmpl.Varnames()
		slices.Sort(got)
		slices.Sort(vars)
		if !slices.Equal(got, vars) {
			t.Errorf("%s: template variables %v, want %v", rel, got, vars)
		}
		expanded, _ := tmpl.Expand(uritemplate.Values{})
		e.absoluteOn(t, expanded)
		if strings.HasPrefix(rel, "datamodel:") {
			var systems []string
			for _, s := range arr(entry["systems"]) {
				systems = append(systems, str(at(s, "systemType"))+"/"+str(at(s, "systemID")))
			}
			slices.Sort(systems)
			if !slices.Equal(systems, []string{"interplay-mam/mam-1", "interplay-pam/pam-1"}) {
				t.Errorf("%s: systems %v, want both systems", rel, entry["systems"])
			}
		}
	}
	// Templates expand to followable addresses.
	e.do(t, http.MethodGet, e.template(t, "datamodel:system-model", map[string]string{"systemType": "interplay-pam", "systemID": "pam-1"}), nil, bearer(tok)...).want(t, http.StatusOK)
	e.do(t, http.MethodGet, u, nil).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
}

var pamCommon = []string{"creator", "durationTC", "created", "modifier", "endTC", "description", "assetTypeLabel",
	"assetType", "duration", "path", "editRate", "name", "modified", "startTC"}

var assetTypes = []string{"masterclip", "sequence", "subclip", "group", "motioneffect", "effect", "renderedeffect",
	"stereomasterclip", "stereosubclip", "archivedfile"}

var pamLayers = []string{"A1", "A2", "D1", "V1", "V2", "restrictions"}

// checkLocalized checks a map culture code → string.
func checkLocalized(t *testing.T, what string, v any, required bool) {
	t.Helper()
	if v == nil && !required {
		return
	}
	m := objOf(v)
	if m == nil || (required && len(m) == 0) {
		t.Errorf("%s = %#v, want a map culture code → string", what, v)
	}
	for k, s := range m {
		if _, ok := s.(string); !ok || k == "" {
			t.Errorf("%s[%q] = %#v", what, k, s)
		}
	}
}

func stringList(v any) ([]string, bool) {
	a, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(a))
	for _, x := range a {
		s, ok := x.(string)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// checkAttribute checks one attribute description; system says whether appliesTo is
// required (system model) or absent (asset model).
func checkAttribute(t *testing.T, where string, a any, system bool) {
	t.Helper()
	m := objOf(a)
	id := str(m["id"])
	if id == "" {
		t.Errorf("%s: attribute without id: %v", where, a)
		return
	}
	where += "." + id
	applies, ok := stringList(m["appliesTo"])
	if system && (!ok || len(applies) == 0) {
		t.Errorf("%s: appliesTo = %v, want a non-empty array of strings", where, m["appliesTo"])
	}
	if !system && has(m, "appliesTo") {
		t.Errorf("%s: asset-model attribute carries appliesTo", where)
	}
	if has(m, "flags") {
		if _, ok := stringList(m["flags"]); !ok {
			t.Errorf("%s: flags = %v, want an array of strings", where, m["flags"])
		}
	}
	if has(m, "description") {
		if _, ok := m["description"].(string); !ok {
			t.Errorf("%s: description = %v", where, m["description"])
		}
	}
	checkLocalized(t, where+".labels", m["labels"], false)
	checkLocalized(t, where+".tooltips", m["tooltips"], false)
	typ := objOf(m["type"])
	if !slices.Contains([]string{"string", "int", "float", "datetime", "list", "thesaurus", "compound", "taxonomy"}, str(typ["baseType"])) {
		t.Errorf("%s: type = %v, want a known baseType", where, m["type"])
	}
	if has(typ, "multiValue") {
		if _, ok := typ["multiValue"].(bool); !ok {
			t.Errorf("%s: multiValue = %v", where, typ["multiValue"])
		}
	}
	if has(typ, "maxLength") {
		if n, ok := num(typ["maxLength"]); !ok || n < 1 {
			t.Errorf("%s: maxLength = %v", where, typ["maxLength"])
		}
	}
	for _, sub := range arr(m["subattributes"]) {
		checkAttribute(t, where, sub, system)
	}
}

func attrIDs(v any) []string {
	var out []string
	for _, a := range arr(v) {
		out = append(out, str(at(a, "id")))
	}
	return out
}

func flagsOf(a any) []string {
	f, _ := stringList(at(a, "flags"))
	return f
}

// checkLayers checks the production system's layer definitions. Layer attributes
// are section E attribute descriptions (no appliesTo) in both models: the system
// model's time-based entries are "layer definitions as in section E".
func checkLayers(t *testing.T, where string, v any) {
	t.Helper()
	layers := arr(v)
	var ids []string
	for _, l := range layers {
		m := objOf(l)
		id := str(m["id"])
		ids = append(ids, id)
		if _, ok := m["description"].(string); !ok {
			t.Errorf("%s layer %s: description = %v", where, id, m["description"])
		}
		checkLocalized(t, where+" layer "+id+" labels", m["labels"], true)
		checkLocalized(t, where+" layer "+id+" tooltips", m["tooltips"], false)
		if m["ranged"] != true || m["gaps"] != true || m["overlap"] != true {
			t.Errorf("%s layer %s: ranged/gaps/overlap = %v/%v/%v, want true", where, id, m["ranged"], m["gaps"], m["overlap"])
		}
		if _, ok := stringList(m["flags"]); !ok {
			t.Errorf("%s layer %s: flags = %v, want an array of strings", where, id, m["flags"])
		}
		attrs := map[string]map[string]any{}
		for _, a := range arr(m["attributes"]) {
			checkAttribute(t, where+" layer "+id, a, false)
			attrs[str(at(a, "id"))] = objOf(a)
		}
		for _, name := range []string{"comment", "color"} {
			if at(attrs[name], "type", "baseType") != "string" {
				t.Errorf("%s layer %s: attribute %s = %v, want a string attribute", where, id, name, attrs[name])
			}
		}
		if id == "restrictions" {
			mod := attrs["modified"]
			if at(mod, "type", "baseType") != "datetime" || !slices.Contains(flagsOf(mod), "readonly") {
				t.Errorf("%s layer restrictions: modified = %v, want datetime, readonly", where, mod)
			}
		}
	}
	got, want := slices.Sorted(slices.Values(ids)), slices.Sorted(slices.Values(pamLayers))
	if !slices.Equal(got, want) {
		t.Errorf("%s: layers %v, want %v", where, ids, pamLayers)
	}
}

// exprStats collects what expressions use.
type exprStats struct {
	ops, clauses map[string]bool
}

// checkExpr checks an expression (spec section E) recursively.
func (s *exprStats) checkExpr(t *testing.T, where string, v any) {
	t.Helper()
	m := objOf(v)
	switch {
	case m == nil:
		t.Errorf("%s: expression %#v is not an object", where, v)
	case has(m, "and") || has(m, "or"):
		for _, k := range []string{"and", "or"} {
			if has(m, k) {
				s.clauses[k] = true
				subs, ok := m[k].([]any)
				if !ok || len(subs) == 0 || len(m) != 1 {
					t.Errorf("%s: %s clause %v", where, k, m)
				}
				for _, sub := range subs {
					s.checkExpr(t, where, sub)
				}
			}
		}
	default:
		op := str(m["op"])
		if str(m["attribute"]) == "" || op == "" {
			t.Errorf("%s: term %v without attribute or op", where, m)
		}
		s.ops[op] = true
		switch op {
		case "isSet":
		case "equals":
			if _, ok := m["value"].(string); !ok && m["value"] != nil {
				t.Errorf("%s: equals term %v: value is not a string", where, m)
			}
		case "in":
			if _, ok := stringList(m["values"]); !ok {
				t.Errorf("%s: in term %v: values is not an array of strings", where, m)
			}
		}
	}
}

// checkLayout checks an asset model's layout map and collects expression use.
func (s *exprStats) checkLayout(t *testing.T, where string, model map[string]any, pam bool) {
	t.Helper()
	layout := objOf(model["layout"])
	if layout == nil {
		t.Errorf("%s: layout = %v, want a map", where, model["layout"])
		return
	}
	for k := range layout {
		if !slices.Contains([]string{"attributeGroupLayout", "simpleTimeBasedLayout", "virtualLayersLayout"}, k) {
			t.Errorf("%s: unknown layout type %q", where, k)
		}
	}
	common := map[string]map[string]any{}
	custom := map[string]map[string]any{}
	for _, a := range arr(at(model, "attributes", "common")) {
		common[str(at(a, "id"))] = objOf(a)
	}
	for _, a := range arr(at(model, "attributes", "custom")) {
		custom[str(at(a, "id"))] = objOf(a)
	}
	var checkItem func(where string, item any, attrs map[string]map[string]any)
	checkItem = func(where string, item any, attrs map[string]map[string]any) {
		m := objOf(item)
		id := str(m["id"])
		if id == "" {
			t.Errorf("%s: item without id: %v", where, item)
			return
		}
		isCommon := m["common"] == true
		if attrs != nil {
			pool := custom
			if isCommon {
				pool = common
			}
			if pool[id] == nil {
				t.Errorf("%s: item %q (common %v) names no attribute of the model", where, id, isCommon)
			}
		}
		if has(m, "flags") {
			if _, ok := stringList(m["flags"]); !ok {
				t.Errorf("%s: item %s flags = %v", where, id, m["flags"])
			}
		}
		opts := objOf(m["options"])
		for _, k := range []string{"readOnlyExpressionRule", "visibilityExpressionRule"} {
			if has(opts, k) {
				s.checkExpr(t, where+" item "+id+" "+k, opts[k])
			}
		}
		if r, ok := opts["restrictions"]; ok {
			s.clauses["restrictions"] = true
			attr := common[id]
			if attr == nil {
				attr = custom[id]
			}
			if at(attr, "type", "multiValue") != true {
				t.Errorf("%s: restrictions on %q, which is not a multi-value attribute", where, id)
			}
			if pam {
				t.Errorf("%s: row restrictions in the production management system", where)
			}
			rm := objOf(r)
			for _, k := range []string{"noCreateRows", "noDeleteRows", "noMoveRows"} {
				if has(rm, k) {
					if _, ok := rm[k].(bool); !ok {
						t.Errorf("%s: restrictions.%s = %v", where, k, rm[k])
					}
				}
				if has(rm, k+"Expression") {
					if rm[k] == true {
						t.Errorf("%s: restrictions carry both %s true and %sExpression", where, k, k)
					}
					s.checkExpr(t, where+" restrictions "+k+"Expression", rm[k+"Expression"])
				}
			}
		}
		for _, sub := range arr(m["subitems"]) {
			checkItem(where+" item "+id, sub, nil)
		}
	}
	for _, g := range arr(layout["attributeGroupLayout"]) {
		gid := str(at(g, "id"))
		if gid == "" {
			t.Errorf("%s: group without id: %v", where, g)
		}
		checkLocalized(t, where+" group "+gid+" labels", at(g, "labels"), false)
		for _, item := range arr(at(g, "items")) {
			checkItem(where+" group "+gid, item, common)
		}
	}
	if pam {
		var ids []string
		for _, l := range arr(layout["simpleTimeBasedLayout"]) {
			ids = append(ids, str(at(l, "id")))
			if _, ok := at(l, "items").([]any); !ok {
				t.Errorf("%s: simpleTimeBasedLayout entry %v without items", where, l)
			}
			for _, item := range arr(at(l, "items")) {
				checkItem(where+" layer "+str(at(l, "id")), item, nil)
			}
		}
		slices.Sort(ids)
		if want := slices.Sorted(slices.Values(pamLayers)); !slices.Equal(ids, want) {
			t.Errorf("%s: simpleTimeBasedLayout layers %v, want %v", where, ids, want)
		}
		var virt []string
		for _, v := range arr(layout["virtualLayersLayout"]) {
			virt = append(virt, str(at(v, "id")))
			lids, ok := stringList(at(v, "layerids"))
			if !ok || len(lids) == 0 {
				t.Errorf("%s: virtual layer %v without layerids", where, v)
			}
			for _, id := range lids {
				if !slices.Contains(pamLayers, id) {
					t.Errorf("%s: virtual layer %v names unknown layer %q", where, at(v, "id"), id)
				}
			}
		}
		slices.Sort(virt)
		if !slices.Equal(virt, []string{"markers", "restrictions"}) {
			t.Errorf("%s: virtual layers %v, want markers and restrictions", where, virt)
		}
	}
}

func TestConformanceDataModel(t *testing.T) {
	t.Parallel()
	e := startEmulator(t)
	alice, viewer := e.token(t, "alice"), e.token(t, "viewer")
	systemModel := func(t *testing.T, tok, typ, id string, extra map[string]string) *reply {
		t.Helper()
		vars := map[string]string{"systemType": typ, "systemID": id}
		for k, v := range extra {
			vars[k] = v
		}
		return e.do(t, http.MethodGet, e.template(t, "datamodel:system-model", vars), nil, bearer(tok)...)
	}
	assetModel := func(t *testing.T, tok, rel string, vars map[string]string) *reply {
		t.Helper()
		return e.do(t, http.MethodGet, e.template(t, rel, vars), nil, bearer(tok)...)
	}

	t.Run("system model pam", func(t *testing.T) {
		t.Parallel()
		r := systemModel(t, alice, "interplay-pam", "pam-1", nil).want(t, http.StatusOK)
		m := r.obj(t)
		if at(m, "base", "systemType") != "interplay-pam" || at(m, "base", "systemID") != "pam-1" {
			t.Errorf("base = %v", m["base"])
		}
		selfLink(t, m["_links"])
		for _, c := range linkArray(t, m["_links"], "curies") {
			if str(c["name"]) == "" || c["templated"] != true {
				t.Errorf("curie %v, want name, href, templated", c)
			}
		}
		for _, a := range arr(at(m, "attributes", "common")) {
			checkAttribute(t, "pam common", a, true)
		}
		for _, a := range arr(at(m, "attributes", "custom")) {
			checkAttribute(t, "pam custom", a, true)
		}
		common := attrIDs(at(m, "attributes", "common"))
		for _, id := range pamCommon {
			if !slices.Contains(common, id) {
				t.Errorf("pam common attributes %v lack %s", common, id)
			}
		}
		if len(arr(at(m, "attributes", "custom"))) == 0 {
			t.Error("pam has no custom attributes")
		}
		var types []string
		for _, typ := range arr(m["asset-types"]) {
			types = append(types, str(at(typ, "id")))
			checkLocalized(t, "asset type "+str(at(typ, "id"))+" labels", at(typ, "labels"), true)
		}
		if !slices.Equal(slices.Sorted(slices.Values(types)), slices.Sorted(slices.Values(assetTypes))) {
			t.Errorf("asset-types %v, want %v", types, assetTypes)
		}
		if has(m, "time-based") {
			t.Errorf("time-based present without insist")
		}
		tb := systemModel(t, alice, "interplay-pam", "pam-1", map[string]string{"insist": "time-based"}).want(t, http.StatusOK).obj(t)
		checkLayers(t, "pam system model", tb["time-based"])
		for _, lang := range []string{"en", "fr", "de-DE"} {
			systemModel(t, alice, "interplay-pam", "pam-1", map[string]string{"lang": lang}).want(t, http.StatusOK)
		}
		systemModel(t, alice, "interplay-pam", "pam-1", map[string]string{"lang": "not a language"}).problem(t, http.StatusBadRequest, "datamodel/BAD_ARGUMENT", "lang")
		// The aggregated model is the same for every user.
		if v := systemModel(t, viewer, "interplay-pam", "pam-1", map[string]string{"insist": "time-based"}).want(t, http.StatusOK); !jsonEqual(v.obj(t), tb) {
			t.Errorf("the viewer's system model differs from alice's")
		}
	})

	t.Run("system model mam", func(t *testing.T) {
		t.Parallel()
		m := systemModel(t, alice, "interplay-mam", "mam-1", nil).want(t, http.StatusOK).obj(t)
		if at(m, "base", "systemType") != "interplay-mam" || at(m, "base", "systemID") != "mam-1" {
			t.Errorf("base = %v", m["base"])
		}
		selfLink(t, m["_links"])
		linkArray(t, m["_links"], "curies")
		for _, a := range arr(at(m, "attributes", "common")) {
			checkAttribute(t, "mam common", a, true)
		}
		common := attrIDs(at(m, "attributes", "common"))
		if !slices.Contains(common, "name") || !slices.Contains(common, "modified") {
			t.Errorf("mam common attributes %v, want name and modified", common)
		}
		lists := 0
		for _, a := range arr(at(m, "attributes", "custom")) {
			checkAttribute(t, "mam custom", a, true)
			if at(a, "type", "baseType") == "list" {
				lists++
			}
		}
		if lists == 0 {
			t.Errorf("mam custom attributes have no list types: %v", at(m, "attributes", "custom"))
		}
		// Time-based metadata is not supported: insist is ignored.
		tb := systemModel(t, alice, "interplay-mam", "mam-1", map[string]string{"insist": "time-based"}).want(t, http.StatusOK).obj(t)
		if has(tb, "time-based") {
			t.Errorf("mam returned time-based %v", tb["time-based"])
		}
	})

	t.Run("system model not found", func(t *testing.T) {
		t.Parallel()
		for _, s := range [][2]string{{"interplay-pam", "pam-2"}, {"interplay-xyz", "pam-1"}, {"interplay-mam", "pam-1"}, {"interplay-pam", "mam-1"}} {
			systemModel(t, alice, s[0], s[1], nil).problem(t, http.StatusNotFound, "datamodel/NOT_FOUND", "")
		}
	})

	t.Run("asset models", func(t *testing.T) {
		t.Parallel()
		stats := &exprStats{ops: map[string]bool{}, clauses: map[string]bool{}}
		type model struct {
			rel  string
			vars map[string]string
			pam  bool
		}
		var models []model
		for _, id := range []string{"clip-1", "seq-1"} {
			models = append(models, model{"datamodel:asset-model-by-id", map[string]string{"systemType": "interplay-pam", "systemID": "pam-1", "assetId": id}, true})
		}
		models = append(models, model{"datamodel:asset-model-by-id", map[string]string{"systemType": "interplay-mam", "systemID": "mam-1", "assetId": "asset-1"}, false})
		for _, typ := range assetTypes {
			models = append(models, model{"datamodel:asset-model-by-type", map[string]string{"systemType": "interplay-pam", "systemID": "pam-1", "assetType": typ}, true})
		}
		for _, md := range models {
			where := fmt.Sprint(md.vars)
			m := assetModel(t, alice, md.rel, md.vars).want(t, http.StatusOK).obj(t)
			// "No link relations": as in the system model, only self and curies.
			if has(m, "_links") {
				selfLink(t, m["_links"])
			}
			for rel := range objOf(m["_links"]) {
				if rel != "self" && rel != "curies" {
					t.Errorf("%s: asset model has link relation %q", where, rel)
				}
			}
			for _, part := range []string{"common", "custom"} {
				if _, ok := at(m, "attributes", part).([]any); !ok {
					t.Errorf("%s: attributes.%s = %v, want an array", where, part, at(m, "attributes", part))
				}
				for _, a := range arr(at(m, "attributes", part)) {
					checkAttribute(t, where+" "+part, a, false)
				}
			}
			if md.pam {
				checkLayers(t, where, m["time-based"])
			} else if tb := arr(m["time-based"]); len(tb) > 0 {
				t.Errorf("%s: mam asset has layers %v", where, tb)
			}
			stats.checkLayout(t, where, m, md.pam)

			// Flags are those of the calling user.
			v := assetModel(t, viewer, md.rel, md.vars).want(t, http.StatusOK).obj(t)
			editable := 0
			for _, part := range []string{"common", "custom"} {
				byID := map[string]any{}
				for _, a := range arr(at(v, "attributes", part)) {
					byID[str(at(a, "id"))] = a
				}
				for _, a := range arr(at(m, "attributes", part)) {
					id := str(at(a, "id"))
					va, ok := byID[id]
					if !ok {
						t.Errorf("%s: the viewer's model lacks %s attribute %s", where, part, id)
						continue
					}
					if !slices.Contains(flagsOf(a), "readonly") {
						editable++
					}
					if !slices.Contains(flagsOf(va), "readonly") {
						t.Errorf("%s: %s attribute %s is not readonly for the viewer (flags %v)", where, part, id, flagsOf(va))
					}
					for _, f := range flagsOf(a) {
						if !slices.Contains(flagsOf(va), f) {
							t.Errorf("%s: %s attribute %s: alice's flag %s missing for the viewer", where, part, id, f)
						}
					}
				}
			}
			if editable == 0 {
				t.Errorf("%s: no attribute is editable for alice (administrator role)", where)
			}
			// Layer attributes are attribute descriptions too.
			for i, l := range arr(m["time-based"]) {
				for j, a := range arr(at(l, "attributes")) {
					va := at(v, "time-based", i, "attributes", j)
					if at(va, "id") != at(a, "id") {
						t.Errorf("%s: the viewer's layer %v attributes differ", where, at(l, "id"))
						continue
					}
					if !slices.Contains(flagsOf(va), "readonly") {
						t.Errorf("%s: layer %v attribute %v is not readonly for the viewer (alice: %v, viewer: %v)",
							where, at(l, "id"), at(a, "id"), flagsOf(a), flagsOf(va))
					}
				}
			}
		}
		for _, op := range []string{"isSet", "equals", "in"} {
			if !stats.ops[op] {
				t.Errorf("no layout expression uses op %s (seen %v)", op, stats.ops)
			}
		}
		for _, c := range []string{"and", "or", "restrictions"} {
			if !stats.clauses[c] {
				t.Errorf("no layout uses %s (seen %v)", c, stats.clauses)
			}
		}
	})

	t.Run("asset models not found", func(t *testing.T) {
		t.Parallel()
		for _, md := range []struct {
			rel  string
			vars map[string]string
		}{
			{"datamodel:asset-model-by-id", map[string]string{"systemType": "interplay-pam", "systemID": "pam-1", "assetId": "clip-9"}},
			{"datamodel:asset-model-by-id", map[string]string{"systemType": "interplay-pam", "systemID": "pam-1", "assetId": "asset-1"}},
			{"datamodel:asset-model-by-id", map[string]string{"systemType": "interplay-mam", "systemID": "mam-1", "assetId": "clip-1"}},
			{"datamodel:asset-model-by-id", map[string]string{"systemType": "interplay-pam", "systemID": "pam-9", "assetId": "clip-1"}},
			{"datamodel:asset-model-by-type", map[string]string{"systemType": "interplay-pam", "systemID": "pam-1", "assetType": "teapot"}},
			{"datamodel:asset-model-by-type", map[string]string{"systemType": "interplay-xyz", "systemID": "pam-1", "assetType": "sequence"}},
		} {
			assetModel(t, alice, md.rel, md.vars).problem(t, http.StatusNotFound, "datamodel/NOT_FOUND", "")
		}
		assetModel(t, alice, "datamodel:asset-model-by-id", map[string]string{"systemType": "interplay-pam", "systemID": "pam-1", "assetId": "clip-1", "lang": "??"}).
			problem(t, http.StatusBadRequest, "datamodel/BAD_ARGUMENT", "lang")
	})
}

func jsonEqual(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// ---------------------------------------------------------------------------
// §G Control surface

type stats struct {
	Requests map[string]int64 `json:"requests"`
	Logins   struct {
		Admin int64 `json:"admin"`
		OAuth int64 `json:"oauth"`
	} `json:"logins"`
	LiveSessions int64 `json:"liveSessions"`
	LiveTokens   int64 `json:"liveTokens"`
	Scores       int64 `json:"scores"`
}

func (e *emu) stats(t *testing.T) stats {
	t.Helper()
	r := e.do(t, http.MethodGet, e.PlatformURL+"/_emulator/stats", nil).want(t, http.StatusOK)
	var s stats
	for _, k := range []string{"requests", "logins", "liveSessions", "liveTokens", "scores"} {
		if !has(r.obj(t), k) {
			t.Errorf("stats lack %s: %s", k, r.body)
		}
	}
	if err := json.Unmarshal(r.body, &s); err != nil {
		t.Fatalf("%s: %v", r, err)
	}
	return s
}

func (e *emu) controlOK(t *testing.T, what string, body any) {
	t.Helper()
	if r := e.control(t, what, body); r.status/100 != 2 {
		t.Fatalf("%s: want 2xx", r)
	}
}

func TestConformanceControl(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, "-render-delay", "0")
	scores := e.PublishingURL + "/scores"
	sess := e.adminLogin(t, "admin", "admin-secret")
	tok := e.newToken(t, "alice")
	tok2 := e.newToken(t, "viewer")
	s1 := objOf(e.do(t, http.MethodPost, scores, map[string]any{"scoreUrl": "https://cdn.example/1.sib"}, bearer(tok)...).want(t, http.StatusOK).obj(t)["score"])
	e.do(t, http.MethodPost, scores, map[string]any{"scoreUrl": "https://cdn.example/2.sib"}, bearer(tok)...).want(t, http.StatusOK)
	e.do(t, http.MethodGet, scores+"/"+str(s1["id"]), nil, bearer(tok)...).want(t, http.StatusOK)
	e.do(t, http.MethodPut, e.AdminURL+"/externalauth", map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": true}, adminToken(sess)...).want(t, http.StatusOK)

	st := e.stats(t)
	if st.Logins.Admin != 1 || st.Logins.OAuth != 2 || st.LiveSessions != 1 || st.LiveTokens != 2 || st.Scores != 2 {
		t.Errorf("stats = %+v, want logins admin 1 oauth 2, liveSessions 1, liveTokens 2, scores 2", st)
	}
	var publishes, gets int64
	for k, n := range st.Requests {
		method, pattern, ok := strings.Cut(k, " ")
		if !ok || method == "" || !strings.HasPrefix(pattern, "/") {
			t.Errorf("stats request key %q is not \"<METHOD> <route pattern>\"", k)
		}
		if strings.Contains(k, str(s1["id"])) {
			t.Errorf("stats request key %q holds a concrete id, not a route pattern", k)
		}
		if method == http.MethodPost && strings.HasSuffix(pattern, "/scores") {
			publishes += n
		}
		if method == http.MethodGet && strings.Contains(pattern, "/scores/") {
			gets += n
		}
	}
	if publishes != 2 || gets != 1 {
		t.Errorf("stats requests %v: want POST …/scores 2 and GET …/scores/{id} 1", st.Requests)
	}

	// Expire tokens only, then sessions only.
	e.controlOK(t, "expire", map[string]any{"tokens": true})
	e.do(t, http.MethodGet, e.PublishingURL+"/core/health", nil, bearer(tok)...).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
	e.do(t, http.MethodGet, e.PublishingURL+"/core/health", nil, cookie(tok2)...).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
	e.do(t, http.MethodGet, e.AdminURL+"/checksession", nil, adminToken(sess)...).want(t, http.StatusOK)
	tok3 := e.newToken(t, "alice")
	e.controlOK(t, "expire", map[string]any{"sessions": true})
	e.do(t, http.MethodGet, e.AdminURL+"/checksession", nil, adminToken(sess)...).problem(t, http.StatusUnauthorized, "admin/UNAUTHORIZED", "")
	e.do(t, http.MethodGet, e.PublishingURL+"/core/health", nil, bearer(tok3)...).want(t, http.StatusOK)
	if st := e.stats(t); st.LiveSessions != 0 || st.LiveTokens != 1 {
		t.Errorf("after expiring: stats %+v, want liveSessions 0, liveTokens 1", st)
	}
	sess = e.adminLogin(t, "admin", "admin-secret")
	e.controlOK(t, "expire", map[string]any{"tokens": true, "sessions": true})
	e.do(t, http.MethodGet, e.AdminURL+"/checksession", nil, adminToken(sess)...).problem(t, http.StatusUnauthorized, "admin/UNAUTHORIZED", "")
	e.do(t, http.MethodGet, e.PublishingURL+"/core/health", nil, bearer(tok3)...).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")

	// Reset: empty store, zero counters, settings back to the start state.
	tok4 := e.newToken(t, "alice")
	e.controlOK(t, "reset", nil)
	st = e.stats(t)
	var reqs int64
	for _, n := range st.Requests {
		reqs += n
	}
	if reqs != 0 || st.Logins.Admin != 0 || st.Logins.OAuth != 0 || st.LiveSessions != 0 || st.LiveTokens != 0 || st.Scores != 0 {
		t.Errorf("after reset: stats %+v, want all zero", st)
	}
	e.do(t, http.MethodGet, e.PublishingURL+"/core/health", nil, bearer(tok4)...).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
	tok = e.newToken(t, "alice")
	if n, _ := num(e.do(t, http.MethodPost, scores+"/count", map[string]any{}, bearer(tok)...).want(t, http.StatusOK).obj(t)["count"]); n != 0 {
		t.Errorf("after reset: %d scores", n)
	}
	e.do(t, http.MethodGet, scores+"/"+str(s1["id"]), nil, bearer(tok)...).problem(t, http.StatusNotFound, "publishing/NOT_FOUND", "")
	sess = e.adminLogin(t, "admin", "admin-secret")
	doc := e.do(t, http.MethodGet, e.AdminURL+"/externalauth", nil, adminToken(sess)...).want(t, http.StatusOK).obj(t)
	if !jsonEqual(doc, map[string]any{"domainName": "", "externalAuthenticationEnabled": false}) {
		t.Errorf("after reset: settings %v, want the start state", doc)
	}
	if st := e.stats(t); st.Logins.Admin != 1 || st.Logins.OAuth != 1 {
		t.Errorf("after reset and new logins: stats %+v", st)
	}
}

func TestConformanceFaults(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, "-render-delay", "0")
	tok := e.token(t, "alice")
	scores := e.PublishingURL + "/scores"
	health := e.PublishingURL + "/core/health"
	count := func(t *testing.T) int64 {
		t.Helper()
		n, _ := num(e.do(t, http.MethodPost, scores+"/count", map[string]any{}, bearer(tok)...).want(t, http.StatusOK).obj(t)["count"])
		return n
	}
	off := map[string]any{"failRate": 0, "latencyMs": 0, "rateLimitPerSecond": 0}

	systemModel := e.template(t, "datamodel:system-model", map[string]string{"systemType": "interplay-pam", "systemID": "pam-1"})
	command := e.template(t, "command:command-by-id", map[string]string{"id": "x"})

	t.Run("fail rate", func(t *testing.T) {
		e.controlOK(t, "faults", map[string]any{"failRate": 1, "status": 503, "retryAfter": 2})
		r := e.do(t, http.MethodPost, scores, map[string]any{"scoreUrl": "https://cdn.example/x.sib"}, bearer(tok)...)
		r.problem(t, http.StatusServiceUnavailable, "publishing/SERVICE_UNAVAILABLE", "")
		if ra := r.header.Get("Retry-After"); ra != "2" {
			t.Errorf("%s: Retry-After %q, want 2", r, ra)
		}
		e.do(t, http.MethodGet, e.PlatformURL+"/auth", nil).problem(t, http.StatusServiceUnavailable, "auth/SERVICE_UNAVAILABLE", "")
		e.do(t, http.MethodGet, e.PlatformURL+"/apis/registry;version=0/serviceroots", nil, bearer(tok)...).
			problem(t, http.StatusServiceUnavailable, "registry/SERVICE_UNAVAILABLE", "")
		e.do(t, http.MethodGet, systemModel, nil, bearer(tok)...).problem(t, http.StatusServiceUnavailable, "datamodel/SERVICE_UNAVAILABLE", "")
		e.do(t, http.MethodGet, command, nil, bearer(tok)...).
			problem(t, http.StatusServiceUnavailable, "commands/SERVICE_UNAVAILABLE", "")
		// The control surface is not affected.
		e.stats(t)
		e.controlOK(t, "faults", map[string]any{"failRate": 1, "status": 500})
		e.do(t, http.MethodGet, health, nil, bearer(tok)...).problem(t, http.StatusInternalServerError, "publishing/INTERNAL_SERVER_ERROR", "")
		e.do(t, http.MethodPost, scores, map[string]any{"scoreUrl": "https://cdn.example/y.sib"}, bearer(tok)...).
			problem(t, http.StatusInternalServerError, "publishing/INTERNAL_SERVER_ERROR", "")
		e.controlOK(t, "faults", off)
		if n := count(t); n != 0 {
			t.Errorf("failed publishes had an effect: %d scores", n)
		}
		// A share: failRate 0.5 fails some of 40 requests, not all.
		e.controlOK(t, "faults", map[string]any{"failRate": 0.5, "status": 503})
		failed := 0
		for range 40 {
			if r := e.do(t, http.MethodGet, health, nil, bearer(tok)...); r.status == http.StatusServiceUnavailable {
				failed++
			} else if r.status != http.StatusOK {
				t.Errorf("%s", r)
			}
		}
		e.controlOK(t, "faults", off)
		if failed == 0 || failed == 40 {
			t.Errorf("failRate 0.5 failed %d of 40 requests", failed)
		}
	})

	t.Run("latency", func(t *testing.T) {
		e.controlOK(t, "faults", map[string]any{"latencyMs": 150})
		if r := e.do(t, http.MethodGet, health, nil, bearer(tok)...).want(t, http.StatusOK); r.elapsed < 150*time.Millisecond {
			t.Errorf("latencyMs 150: the request took %v", r.elapsed)
		}
		e.controlOK(t, "faults", off)
		if r := e.do(t, http.MethodGet, health, nil, bearer(tok)...).want(t, http.StatusOK); r.elapsed >= 150*time.Millisecond {
			t.Errorf("latency off: the request took %v", r.elapsed)
		}
	})

	t.Run("rate limit", func(t *testing.T) {
		before := count(t)
		e.controlOK(t, "faults", map[string]any{"rateLimitPerSecond": 2})
		ok, limited := 0, 0
		for i := range 10 {
			r := e.do(t, http.MethodPost, scores, map[string]any{"scoreUrl": fmt.Sprintf("https://cdn.example/rl%d.sib", i)}, bearer(tok)...)
			switch r.status {
			case http.StatusOK:
				ok++
			case http.StatusTooManyRequests:
				limited++
				r.problem(t, http.StatusTooManyRequests, "publishing/TOO_MANY_REQUESTS", "")
				if n, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || n < 1 {
					t.Errorf("%s: Retry-After %q, want whole seconds ≥ 1", r, r.header.Get("Retry-After"))
				}
			default:
				t.Errorf("%s: want 200 or 429", r)
			}
		}
		e.controlOK(t, "faults", off)
		if limited == 0 || ok == 0 || ok > 4 {
			t.Errorf("rateLimitPerSecond 2: %d passed, %d limited of 10 quick requests", ok, limited)
		}
		if n := count(t); n != before+int64(ok) {
			t.Errorf("after rate limiting: %d scores, want %d (a 429 has no effect)", n, before+int64(ok))
		}
	})
}
