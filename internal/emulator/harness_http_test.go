package emulator

// Helpers shared by every test file of the package: a running emulator (emuTester),
// one round trip (emuResponse), the platform password grant, a settable clock, and
// checks on JSON values. They serve the emulator on httptest themselves: the shared
// harness, internal/emulatortest, imports this package, and a test of the package
// itself cannot import it back. The accounts are the constants of accounts.go.

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// emuTester is one emulator behind an httptest server, with a client that keeps no
// cookies (each test sends exactly the credentials it means to).
type emuTester struct {
	t   *testing.T
	e   *Emulator
	srv *httptest.Server
}

func newEmuTester(t *testing.T, opts Options) *emuTester {
	t.Helper()
	return serveEmulator(t, New(opts))
}

// serveEmulator starts e, which the caller may have configured (a fake clock, say)
// before any request can reach it.
func serveEmulator(t *testing.T, e *Emulator) *emuTester {
	t.Helper()
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	return &emuTester{t: t, e: e, srv: srv}
}

// emuResponse is one reply, read in full.
type emuResponse struct {
	status int
	header http.Header
	body   []byte
}

// newRequest builds a request bound to t's context.
func newRequest(t *testing.T, method, target string, body io.Reader) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, target, body)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// roundTrip sends req with client and reads the whole reply. It takes t rather than an
// emuTester's so subtests can use it.
func roundTrip(t *testing.T, client *http.Client, req *http.Request) *emuResponse {
	t.Helper()
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return &emuResponse{status: res.StatusCode, header: res.Header, body: body}
}

// request builds a request to target (a path on the listener or an absolute URL).
func (et *emuTester) request(method, target string, body io.Reader) *http.Request {
	et.t.Helper()
	if !strings.HasPrefix(target, "http") {
		target = et.srv.URL + target
	}
	return newRequest(et.t, method, target, body)
}

func (et *emuTester) send(req *http.Request) *emuResponse {
	et.t.Helper()
	return roundTrip(et.t, et.srv.Client(), req)
}

// do sends a request to target (a path on the listener or an absolute URL).
func (et *emuTester) do(method, target string, header http.Header, body io.Reader) *emuResponse {
	et.t.Helper()
	req := et.request(method, target, body)
	for k, v := range header {
		req.Header[k] = v
	}
	return et.send(req)
}

// admin calls path under admin_url with the session token (none when empty).
func (et *emuTester) admin(method, path, token string, body io.Reader) *emuResponse {
	et.t.Helper()
	h := http.Header{}
	if token != "" {
		h.Set("token", token)
	}
	if body != nil {
		h.Set("Content-Type", "application/json")
	}
	return et.do(method, et.e.AdminURL(et.srv.URL)+path, h, body)
}

func (et *emuTester) adminForm(form url.Values) *emuResponse {
	et.t.Helper()
	return et.do(http.MethodPost, et.e.AdminURL(et.srv.URL)+"/login",
		http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, strings.NewReader(form.Encode()))
}

// adminLogin returns a session token.
func (et *emuTester) adminLogin(user, pass string) string {
	et.t.Helper()
	body := et.adminForm(url.Values{"user": {user}, "pass": {pass}, "r": {"createsession"}}).wantJSON(et.t, 200, "application/json")
	return emuString(et.t, body["token"])
}

// grant runs the password grant with the default OAuth client.
func (et *emuTester) grant(form url.Values) *emuResponse {
	et.t.Helper()
	req := et.request(http.MethodPost, ropcPath, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(DefaultClientID, DefaultClientSecret)
	return et.send(req)
}

// platformLogin returns an access token from the password grant.
func (et *emuTester) platformLogin(user, pass string) string {
	et.t.Helper()
	body := et.grant(url.Values{"grant_type": {"password"}, "username": {user}, "password": {pass}}).wantJSON(et.t, 200, "application/json")
	tok := emuString(et.t, body["access_token"])
	if tok == "" {
		et.t.Fatalf("password grant for %s: empty access_token", user)
	}
	return tok
}

// bearer calls target with Authorization: Bearer token (none when empty).
func (et *emuTester) bearer(method, target, token string) *emuResponse {
	et.t.Helper()
	h := http.Header{}
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	return et.do(method, target, h, nil)
}

// control calls the emulator-only control surface.
func (et *emuTester) control(method, path, body string) *emuResponse {
	et.t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	return et.do(method, "/_emulator/"+path, http.Header{"Content-Type": {"application/json"}}, r)
}

// stats reads GET /_emulator/stats over the wire.
func (et *emuTester) stats() Stats {
	et.t.Helper()
	res := et.control(http.MethodGet, "stats", "")
	res.wantStatus(et.t, 200)
	var s Stats
	if err := json.Unmarshal(res.body, &s); err != nil {
		et.t.Fatalf("stats: %v: %s", err, res.body)
	}
	return s
}

func (r *emuResponse) wantStatus(t *testing.T, status int) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d; body %s", r.status, status, r.body)
	}
}

// wantJSON checks status and media type and decodes a JSON object.
func (r *emuResponse) wantJSON(t *testing.T, status int, mediaType string) map[string]any {
	t.Helper()
	r.wantStatus(t, status)
	if ct := r.header.Get("Content-Type"); ct != mediaType {
		t.Errorf("Content-Type = %q, want %q", ct, mediaType)
	}
	var body map[string]any
	if err := json.Unmarshal(r.body, &body); err != nil {
		t.Fatalf("body is not a JSON object: %v: %s", err, r.body)
	}
	return body
}

// wantProblem checks a contract §0 error body: problem+json with exactly code,
// message, params and status; params.field equals field when field is given.
func (r *emuResponse) wantProblem(t *testing.T, status int, code, field string) {
	t.Helper()
	body := r.wantJSON(t, status, "application/problem+json")
	emuWantKeys(t, body, "code", "message", "params", "status")
	if body["code"] != code {
		t.Errorf("code = %v, want %s (message %v)", body["code"], code, body["message"])
	}
	if body["status"] != float64(status) {
		t.Errorf("status field = %v, want %d", body["status"], status)
	}
	if msg, _ := body["message"].(string); msg == "" {
		t.Errorf("message = %v, want a non-empty string", body["message"])
	}
	params, ok := body["params"].(map[string]any)
	if !ok {
		t.Fatalf("params = %v, want an object", body["params"])
	}
	if field != "" && params["field"] != field {
		t.Errorf("params.field = %v, want %s (message %v)", params["field"], field, body["message"])
	}
}

// decode decodes the body into v, rejecting fields v does not name.
func (r *emuResponse) decode(t *testing.T, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(r.body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("body %s: %v", r.body, err)
	}
}

// testClock is a clock that only the test advances.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

// testClockStart is where every testClock starts.
var testClockStart = time.Date(2026, 11, 21, 10, 15, 0, 0, time.UTC)

func newTestClock() *testClock { return &testClock{now: testClockStart} }

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// emuObject is v as a JSON object.
func emuObject(t *testing.T, v any) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%v (%T) is not a JSON object", v, v)
	}
	return m
}

// emuArray is v as a JSON array.
func emuArray(t *testing.T, v any) []any {
	t.Helper()
	a, ok := v.([]any)
	if !ok {
		t.Fatalf("%v (%T) is not a JSON array", v, v)
	}
	return a
}

// emuString is v as a JSON string.
func emuString(t *testing.T, v any) string {
	t.Helper()
	s, ok := v.(string)
	if !ok {
		t.Fatalf("%v (%T) is not a JSON string", v, v)
	}
	return s
}

// emuWantKeys checks that an object has exactly the given keys.
func emuWantKeys(t *testing.T, obj map[string]any, keys ...string) {
	t.Helper()
	got := make([]string, 0, len(obj))
	for k := range obj {
		got = append(got, k)
	}
	slices.Sort(got)
	slices.Sort(keys)
	if !slices.Equal(got, keys) {
		t.Errorf("keys %v, want exactly %v", got, keys)
	}
}

var emuTimePattern = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

// emuWantTime checks a contract §0 timestamp (RFC 3339, UTC, milliseconds).
func emuWantTime(t *testing.T, v any) time.Time {
	t.Helper()
	s, _ := v.(string)
	if !emuTimePattern.MatchString(s) {
		t.Fatalf("time %v is not RFC 3339 UTC with milliseconds", v)
	}
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}
