package client

// The fuzz targets of request_answers.go (numbers, error bodies), and what every fuzz target
// of the package shares: the seed corpus, collected from the answers the emulator
// really gives under each of its readings (contract §V, emulator.Readings), the
// hostile bodies added to it, and the one-second limit of every call.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/fuzzlimit"
)

// within runs fn and fails t when it took longer than fuzzlimit.Limit(): a second while
// fuzzing (longer is a defect: a provider that hangs holds Terraform's run), scaled for
// the race detector and a slow machine when the seeds run as ordinary tests.
func within(t *testing.T, what string, input any, fn func()) {
	t.Helper()
	start := time.Now()
	fn()
	if d, limit := time.Since(start), fuzzlimit.Limit(); d > limit {
		text := fmt.Sprintf("%q", input)
		if len(text) > 300 {
			text = fmt.Sprintf("%s… (%d characters)", text[:300], len(text))
		}
		t.Fatalf("%s took %v (more than %v) for the input %s", what, d, limit, text)
	}
}

// wireAnswer is one answer the emulator gave the client.
type wireAnswer struct {
	kind        string // what the client reads it as (see answerKind)
	reading     string // the reading in force ("" for the contract's)
	status      int
	contentType string
	date        string // the Date header
	retryAfter  string // the Retry-After header
	body        []byte
}

// Kinds of answers, by the decoder that reads them.
const (
	kindScore     = "score"     // a score, in its wrapper or bare
	kindScores    = "scores"    // a list of scores
	kindCount     = "count"     // a count
	kindView      = "view"      // a view
	kindCommand   = "command"   // a command resource
	kindModel     = "model"     // a system or asset data model
	kindRegistry  = "registry"  // the service registry
	kindSettings  = "settings"  // the external authentication settings
	kindSession   = "session"   // GET /checksession
	kindLogin     = "login"     // the administrator login's answer
	kindLinks     = "links"     // a HAL document of the token flow's discovery
	kindToken     = "token"     // the password grant's answer
	kindTokenInfo = "tokenInfo" // the token information or extension
	kindHealth    = "health"    // the health answer
	kindError     = "error"     // any answer of status 400 or more
)

// answerKind names the decoder of a 2xx answer to method path (the emulator's routes).
func answerKind(method, path string) string {
	switch {
	case strings.HasSuffix(path, "/login"):
		return kindLogin
	case strings.HasSuffix(path, "/checksession"):
		return kindSession
	case strings.HasSuffix(path, "/externalauth"):
		return kindSettings
	case strings.HasSuffix(path, "/auth/oauth2/ropc/default"):
		return kindToken
	case strings.Contains(path, "/auth/tokens/"):
		return kindTokenInfo
	case strings.HasSuffix(path, "/auth") || strings.HasSuffix(path, "/auth/identity-providers"):
		return kindLinks
	case strings.HasSuffix(path, "/scores/count"):
		return kindCount
	case strings.HasSuffix(path, "/scores") && method == http.MethodGet:
		return kindScores
	case strings.HasSuffix(path, "/view"):
		return kindView
	case strings.Contains(path, "/scores"):
		return kindScore
	case strings.Contains(path, "/commands/"):
		return kindCommand
	case strings.HasSuffix(path, "/model"):
		return kindModel
	case strings.Contains(path, "/serviceroots"):
		return kindRegistry
	case strings.HasSuffix(path, "/core/health"):
		return kindHealth
	}
	return ""
}

// emulatorTransport serves a client's requests with an emulator in this process (no
// socket) and records every answer.
type emulatorTransport struct {
	emu     *emulator.Emulator
	reading string
	mu      sync.Mutex
	seen    []wireAnswer
}

func (tr *emulatorTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	if r.Body == nil {
		r.Body = http.NoBody
	}
	r.Host, r.RequestURI = req.URL.Host, req.URL.RequestURI()
	rec := httptest.NewRecorder()
	tr.emu.ServeHTTP(rec, r)
	resp := rec.Result()
	resp.Request = req
	a := wireAnswer{kind: answerKind(req.Method, req.URL.Path), reading: tr.reading, status: resp.StatusCode,
		contentType: resp.Header.Get("Content-Type"), date: resp.Header.Get("Date"),
		retryAfter: resp.Header.Get("Retry-After"), body: bytes.Clone(rec.Body.Bytes())}
	if a.status >= 400 {
		a.kind = kindError
	}
	tr.mu.Lock()
	tr.seen = append(tr.seen, a)
	tr.mu.Unlock()
	return resp, nil
}

var (
	answersOnce sync.Once
	answersSeen []wireAnswer
)

// readingAnswers returns the answers the emulator gives, under the contract and under
// each reading alone, to a run of the client's calls: every kind of answer, the
// errors included. They are collected once per test process.
func readingAnswers(tb testing.TB) []wireAnswer {
	tb.Helper()
	answersOnce.Do(func() {
		names := []string{""}
		rt := reflect.TypeFor[emulator.Readings]()
		for i := range rt.NumField() {
			name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
			names = append(names, name)
		}
		// One emulator per reading, GOMAXPROCS at a time.
		under := make([][]wireAnswer, len(names))
		sem := make(chan struct{}, runtime.GOMAXPROCS(0))
		var wg sync.WaitGroup
		for i, name := range names {
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				under[i] = answersUnder(tb, name)
			})
		}
		wg.Wait()
		if tb.Failed() {
			tb.FailNow()
		}
		answersSeen = slices.Concat(under...)
	})
	if len(answersSeen) == 0 {
		tb.Fatal("the emulator gave no answer")
	}
	return answersSeen
}

// answersUnder runs the client's calls against an emulator with reading name in
// force and returns its answers. The calls' own results do not matter here.
func answersUnder(tb testing.TB, name string) []wireAnswer {
	tb.Helper()
	var readings emulator.Readings
	if name != "" {
		if err := readings.Set(name); err != nil {
			tb.Error(err) // not Fatal: readingAnswers runs this on a goroutine of its own
			return nil
		}
	}
	emu := emulator.New(emulator.Options{RenderDelay: -1, Faults: emulator.Faults{Readings: readings}})
	tr := &emulatorTransport{emu: emu, reading: name}
	const base = "http://127.0.0.1:9" // never dialled: the transport serves every request
	cfg := Config{
		AdminURL: emu.AdminURL(base), AdminUsername: emulatortest.AdminUsername, AdminPassword: emulatortest.AdminPassword,
		PlatformURL: emu.PlatformURL(base), ClientID: emulatortest.ClientID, ClientSecret: emulatortest.ClientSecret,
		Username: emulatortest.Username, Password: emulatortest.Password,
		Transport: tr, RetryWaitMin: time.Millisecond, RetryWaitMax: time.Millisecond,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	_, _ = c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn.example/fuzz.sib", Alias: "fuzz-seed", Transpose: true})
	_, _ = c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn.example/second.sib"})
	_, _ = c.GetScore(ctx, "fuzz-seed")
	_, _ = c.GetScore(ctx, "no-such-score")
	_, _ = c.ListScores(ctx, ListScoresInput{Limit: 5})
	_, _ = c.ListScores(ctx, ListScoresInput{Offset: 50, Limit: 5})
	_, _ = c.CountScores(ctx, CountScoresInput{})
	_, _ = c.CountScores(ctx, CountScoresInput{Criteria: ScoreCriteria{Status: ScoreStatusError}})
	_, _ = c.CreateView(ctx, "fuzz-seed", ViewInput{Pages: "1", Lang: "en", ExpiresIn: 60})
	_, _ = c.CreateView(ctx, "fuzz-seed", ViewInput{Pages: "9-1"})
	for _, script := range []emulator.CommandScript{
		{Type: "publishing:purge", Steps: []emulator.CommandStep{{Lifecycle: "finished", Progress: 100}},
			Results: []emulator.CommandResult{{Success: true, Data: "a"},
				{Success: false, HTTPStatus: 409, ErrorCode: "x/CONFLICT", ErrorMessage: "taken"}}},
		{Type: "publishing:purge", Steps: []emulator.CommandStep{{Lifecycle: "error", Progress: 50}}},
		{Type: "publishing:purge", Steps: []emulator.CommandStep{{Lifecycle: "running", Progress: 10}}},
	} {
		id, err := emu.CreateCommand(script)
		if err != nil {
			tb.Fatal(err)
		}
		if cmd, err := c.GetCommand(ctx, id); err == nil && !cmd.Command.Terminal() {
			_, _ = c.CancelCommand(ctx, cmd)
		}
	}
	_, _ = c.GetCommand(ctx, "no-such-command")
	_, _ = c.SystemModel(ctx, "interplay-pam", "pam-1", true, "")
	_, _ = c.SystemModel(ctx, "interplay-mam", "mam-1", false, "de")
	_, _ = c.AssetModelByID(ctx, "interplay-pam", "pam-1", "clip-1", "")
	_, _ = c.AssetModelByType(ctx, "interplay-pam", "pam-1", "masterclip", "")
	_, _ = c.SystemModel(ctx, "interplay-pam", "no-such-system", false, "")
	_, _ = c.Systems(ctx)
	_, _ = c.Health(ctx)
	_, _ = c.PutExternalAuthentication(ctx, ExternalAuthentication{DomainName: "CORP", Enabled: true,
		Servers: []AuthServer{{Address: "dc1.corp.example", Port: 389, Enabled: true}, {Address: "2001:db8::10", Port: 636}}})
	_, _ = c.PutExternalAuthentication(ctx, ExternalAuthentication{DomainName: "CORP", Enabled: true,
		Servers: []AuthServer{{Address: "dc1:389", Port: 389, Enabled: true}}})
	_, _ = c.GetExternalAuthentication(ctx)
	_, _ = c.CheckSession(ctx)
	if tok, err := c.GrantAccessToken(ctx); err == nil {
		if next, err := c.ExtendAccessToken(ctx, tok); err == nil {
			tok = next
		}
		_ = c.RemoveAccessToken(ctx, tok)
	}
	deleting, stop := context.WithTimeout(ctx, 100*time.Millisecond) // DeleteAccepted waits for the removal
	_ = c.DeleteScore(deleting, "fuzz-seed", false)
	stop()
	_ = c.Close(ctx)

	// Refused logins: the administrator's and the password grant's.
	cfg.AdminPassword, cfg.Password, cfg.ClientSecret = "wrong-password", "wrong-password", emulatortest.ClientSecret
	if refused, err := New(cfg); err == nil {
		_, _ = refused.CheckSession(ctx)
		_, _ = refused.GrantAccessToken(ctx)
		_ = refused.Close(ctx)
	}
	cfg.Password, cfg.ClientSecret = emulatortest.Password, "wrong-secret"
	if refused, err := New(cfg); err == nil {
		_, _ = refused.GrantAccessToken(ctx)
		_ = refused.Close(ctx)
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.seen
}

// TestReadingAnswersHoldEveryKind: the answers the fuzz targets draw their seeds from
// hold every kind of answer there is. Among the package's parallel tests, it also
// collects them there: otherwise the first fuzz target's seed run did, after every
// test and alone (4 of the package's 50 s on two cores, under the race detector).
func TestReadingAnswersHoldEveryKind(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{kindScore, kindScores, kindCount, kindView, kindCommand, kindModel, kindRegistry,
		kindSettings, kindSession, kindLogin, kindLinks, kindToken, kindTokenInfo, kindHealth, kindError} {
		answersOf(t, kind)
	}
}

// answersOf returns the bodies of the answers of kind, without duplicates.
func answersOf(tb testing.TB, kind string) [][]byte {
	tb.Helper()
	var out [][]byte
	seen := map[string]bool{}
	for _, a := range readingAnswers(tb) {
		if a.kind == kind && !seen[string(a.body)] {
			seen[string(a.body)] = true
			out = append(out, a.body)
		}
	}
	if len(out) == 0 {
		tb.Fatalf("the emulator gave no answer of kind %s", kind)
	}
	return out
}

// hostileBodies are answers no platform should give: truncated, not JSON, huge,
// deeply nested, not UTF-8.
func hostileBodies() [][]byte {
	return [][]byte{
		nil,
		[]byte("null"),
		[]byte(`{"score": {"id": "a", "status": "idle"`), // truncated
		[]byte(`{"scores": [{"id": "a"}, {"id": `),
		[]byte("<!DOCTYPE html><html><head><title>Sign in</title></head><body>Portal</body></html>"),
		[]byte("Service Unavailable"),
		[]byte(`{"count": 1e999999999}`),
		[]byte(`{"count": 123456789012345678901234567890}`),
		[]byte(`{"count": -9223372036854775809}`),
		[]byte(`{"count": "0x10"}`),
		[]byte(strings.Repeat("[", 20000) + strings.Repeat("]", 20000)),
		[]byte(strings.Repeat(`{"a":`, 5000) + "1" + strings.Repeat("}", 5000)),
		[]byte("{\"score\": {\"id\": \"\xff\xfe\", \"status\": \"\xc3\"}}"),
		[]byte("\xef\xbb\xbf{\"count\": 1}"), // a byte-order mark
		[]byte(`{"_links": {"self": [{"href": "%zz"}], "auth:token": {"href": "http://[::1"}}}`),
		[]byte(`{"score": {"createdAt": "99999-12-31T24:00:00+99:99", "renderings": [{"pages": 1E+100}]}}`),
		[]byte(`{"score": null, "scores": null, "count": null}`),
		[]byte(`[{"id": "a"}, null, 7, "x", [], {}]`),
	}
}

// FuzzIntegerValue fuzzes the reading of every integer member of every answer (rule
// "numbers"): when it reads an integer, that integer is the value of the JSON number
// (or of the number in a string); a JSON number whose value is an integer of int64's
// range is always read.
func FuzzIntegerValue(f *testing.F) {
	for _, s := range []string{"0", "-0", "100", "1E+2", "1.0E2", "100.0", "2.5E+2", "389.0E0", `"100"`, `" 7 "`,
		"9223372036854775807", "-9223372036854775808", "9223372036854775808", "1e999999999", "1E-999999999",
		"0.5", "1e-1", "true", "null", `{"n": 1}`, "00", "1.", "-", `"\u0031"`, "1" + strings.Repeat("0", 30) + "e-30"} {
		f.Add([]byte(s))
	}
	// One number of each shape (its digits as 9s) the answers hold: 1E+2, 389.0E0, -1.
	shapes := map[string][]byte{}
	for _, a := range readingAnswers(f) {
		for _, m := range fuzzNumber.FindAll(a.body, -1) {
			shape := string(bytes.Map(func(r rune) rune {
				if r >= '0' && r <= '9' {
					return '9'
				}
				return r
			}, m))
			if _, ok := shapes[shape]; !ok {
				shapes[shape] = m
			}
		}
	}
	for _, shape := range slices.Sorted(maps.Keys(shapes)) {
		f.Add(shapes[shape])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		t.Parallel() // the seed runs: pure decoding, each on its own input (no effect when fuzzing)
		var n int64
		var ok bool
		within(t, "integerValue", b, func() { n, ok = integerValue(b) })
		text := string(bytes.TrimSpace(b))
		if len(text) > 0 && text[0] == '"' {
			return // the string's escapes are JSON's own; the number in it is checked below
		}
		m := jsonNumber.FindStringSubmatch(text)
		if m == nil {
			if ok {
				t.Fatalf("integerValue(%q) = %d, ok: it is no JSON number", b, n)
			}
			return
		}
		if len(m[4]) > 6 {
			return // an exponent big.Rat would take long to expand; parseInteger refuses it
		}
		want, valid := new(big.Rat).SetString(text)
		if !valid {
			t.Fatalf("big.Rat cannot read the JSON number %q", text)
		}
		isInt64 := want.IsInt() && want.Num().IsInt64()
		switch {
		case ok && (!isInt64 || want.Num().Int64() != n):
			t.Fatalf("integerValue(%q) = %d, but the number is %s", b, n, want.RatString())
		case !ok && isInt64:
			t.Fatalf("integerValue(%q) refused the integer %s", b, want.RatString())
		}
	})
}

// fuzzNumber finds the numbers in an answer, for the seeds of FuzzIntegerValue.
var fuzzNumber = regexp.MustCompile(`-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?`)

// FuzzAPIError fuzzes the reading of an error answer (parseAPIError): the platform's
// problem+json, the CTMS form, RFC 9457, text and HTML pages, under any Content-Type
// and status. Its message never quotes more than 200 characters of a text body, and
// the error names its parts without a panic.
func FuzzAPIError(f *testing.F) {
	for _, a := range readingAnswers(f) {
		if a.kind == kindError {
			f.Add(a.status, a.contentType, a.body)
		}
	}
	for _, b := range hostileBodies() {
		f.Add(502, "text/html", b)
		f.Add(400, "application/problem+json", b)
	}
	f.Add(403, "application/vnd.avid.problem+json; charset=utf-8", []byte(`{"code": "avid.x/CTMS/FORBIDDEN", "message": 7}`))
	f.Add(500, "text/plain; charset=\xff", []byte(strings.Repeat("é", 300)))
	f.Add(409, "application/json", []byte(`{"error": {"message": "taken"}, "status": "409", "code": "a/b/c/d"}`))
	u, _ := url.Parse("https://platform.example/api/v1/scores/x")
	f.Fuzz(func(t *testing.T, status int, contentType string, body []byte) {
		resp := &response{status: status, header: http.Header{"Content-Type": {contentType}}, body: body, url: u}
		var e *APIError
		within(t, "parseAPIError", body, func() {
			e = parseAPIError(http.MethodGet, resp)
			_, _, _ = e.Error(), e.Name(), e.Namespace()
		})
		if e.Status != status || e.Path != "/api/v1/scores/x" {
			t.Fatalf("the error holds status %d and path %q, not the answer's", e.Status, e.Path)
		}
		if !isJSON(contentType) && utf8.RuneCountInString(e.Message) > len(http.StatusText(status))+2+201 {
			t.Fatalf("the message quotes more than 200 characters of a text body: %d characters", utf8.RuneCountInString(e.Message))
		}
	})
}

// fuzzHost is the address of the emulator that fuzzClient's clients talk to: never
// dialled, since the transport serves every request in this process.
const fuzzHost = "127.0.0.1:9"

// fuzzedRoute is a transport for the fuzz targets that go through the whole pipeline:
// the emulator answers every request but those to a path ending in route, which get
// the fuzzed answer. It refuses, and remembers, a request to any other host than the
// platform's: a credential must never leave for a host the user did not name. With
// elsewhere set, such a request is refused without being remembered (the registry
// may list services on other hosts, which platformHref trusts).
type fuzzedRoute struct {
	emu         *emulatorTransport
	route       string
	elsewhere   bool
	status      int
	contentType string
	body        []byte
	mu          sync.Mutex
	foreign     []string
}

func (tr *fuzzedRoute) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Host != fuzzHost || req.URL.Scheme != "http" {
		tr.mu.Lock()
		if !tr.elsewhere {
			tr.foreign = append(tr.foreign, req.Method+" "+req.URL.Redacted())
		}
		tr.mu.Unlock()
		return nil, errors.New("fuzz: a request to another host than the platform's")
	}
	if !strings.HasSuffix(req.URL.Path, tr.route) {
		return tr.emu.RoundTrip(req)
	}
	if req.Body != nil {
		_ = req.Body.Close()
	}
	return &http.Response{StatusCode: tr.status, Status: http.StatusText(tr.status), Proto: "HTTP/1.1", ProtoMajor: 1,
		ProtoMinor: 1, Header: http.Header{"Content-Type": {tr.contentType}}, Body: io.NopCloser(bytes.NewReader(tr.body)),
		ContentLength: int64(len(tr.body)), Request: req}, nil
}

// fuzzClient returns a client of the default accounts on emu whose requests to a
// path ending in tr.route get tr's answer, and a function that closes it and fails t
// if any request went to another host.
func fuzzClient(t *testing.T, emu *emulator.Emulator, tr *fuzzedRoute) (*Client, func()) {
	t.Helper()
	tr.emu = &emulatorTransport{emu: emu}
	base := "http://" + fuzzHost
	c, err := New(Config{
		AdminURL: emu.AdminURL(base), AdminUsername: emulatortest.AdminUsername, AdminPassword: emulatortest.AdminPassword,
		PlatformURL: emu.PlatformURL(base), ClientID: emulatortest.ClientID, ClientSecret: emulatortest.ClientSecret,
		Username: emulatortest.Username, Password: emulatortest.Password,
		Transport: tr, RetryWaitMin: time.Millisecond, RetryWaitMax: time.Millisecond, MaxRetries: NoRetries,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c, func() {
		t.Helper()
		_ = c.Close(context.Background())
		tr.mu.Lock()
		defer tr.mu.Unlock()
		if len(tr.foreign) > 0 {
			t.Fatalf("requests went to another host than the platform's: %q", tr.foreign)
		}
	}
}
