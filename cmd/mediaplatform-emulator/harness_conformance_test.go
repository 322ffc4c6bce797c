package main

// A black-box conformance suite for the emulator program. It starts the built
// binary (see TestMain in main_test.go) as a separate process, reads the three base
// addresses from its first line and walks the wire behaviour
// (internal/emulator/WIRE.md) call by call with plain net/http. It knows nothing of
// the emulator's implementation: every path except the fixed entry points
// (admin_url, GET /auth, the registry, publishing_url, /_emulator/) is discovered
// from responses, and the registry's templates are expanded as RFC 6570 templates.
// One file per area of the contract (conformance_<area>_test.go); this one holds the
// suite's helpers: running the program, HTTP and JSON helpers, and the flows many
// tests use (discovery, tokens, logins, registry templates).

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
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/yosida95/uritemplate/v3"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"
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

var basicTerraform = "Basic " + base64.StdEncoding.EncodeToString([]byte(emulatortest.ClientID+":"+emulatortest.ClientSecret))

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
	r := e.grant(t, user, passwordOf(user)).want(t, http.StatusOK)
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

// passwordOf is the password of a default account.
func passwordOf(user string) string {
	return map[string]string{
		emulatortest.AdminUsername:  emulatortest.AdminPassword,
		emulatortest.Username:       emulatortest.Password,
		emulatortest.ViewerUsername: emulatortest.ViewerPassword,
	}[user]
}
