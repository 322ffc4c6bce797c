package client

// The request machinery: what goes on the wire, retries and their limits, backoff.

import (
	"context"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

func TestWireDetails(t *testing.T) {
	t.Parallel()
	f := newProxiedPlatform(t, emulator.Options{})
	var got *http.Request
	var rawURI string
	f.handle("GET "+routeScores, func(w http.ResponseWriter, r *http.Request) {
		got, rawURI = r, r.RequestURI
		writeJSON(w, map[string]any{"scores": []any{}})
	})
	cfg := f.config()
	cfg.Version = "1.2.3"
	c := newTestClient(t, cfg)
	if _, err := c.ListScores(context.Background(), ListScoresInput{Criteria: ScoreCriteria{Status: "idle"}, Limit: 10, Offset: 5}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(rawURI, "/api/v1/apis/media.publishing;version=2;realm=global/scores?") {
		t.Errorf("request URI %q: matrix parameters must be sent unescaped", rawURI)
	}
	q := got.URL.Query()
	if q.Get("score") != `{"status":"idle"}` || q.Get("limit") != "10" || q.Get("offset") != "5" {
		t.Errorf("query %v", q)
	}
	if ua := got.Header.Get("User-Agent"); ua != "terraform-provider-mediaplatform/1.2.3" {
		t.Errorf("User-Agent %q", ua)
	}
	if a := got.Header.Get("Authorization"); !strings.HasPrefix(a, "Bearer at-") {
		t.Errorf("Authorization %q", a)
	}
	if acc := got.Header.Get("Accept"); !strings.Contains(acc, "application/problem+json") || !strings.Contains(acc, "application/hal+json") {
		t.Errorf("Accept %q", acc)
	}
	// The password grant carried the right headers.
	grants := 0
	for _, r := range f.proxy.Requests() {
		if r.Path != "/auth/oauth2/ropc/default" {
			continue
		}
		grants++
		if r.Header.Get("Accept") != "application/json" || r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
			t.Errorf("grant headers %v", r.Header)
		}
	}
	if grants != 1 {
		t.Errorf("%d grants recorded", grants)
	}
	if _, err := c.ListScores(context.Background(), ListScoresInput{Limit: 101}); err == nil {
		t.Error("limit 101 accepted")
	}
}

func TestGatewayErrorsRetriedOnlyWhenSafe(t *testing.T) {
	t.Parallel()
	f := newProxiedPlatform(t, emulator.Options{})
	var gets atomic.Int32
	f.handle("GET "+routeScores+"/s1", func(w http.ResponseWriter, r *http.Request) {
		if gets.Add(1) == 1 {
			writeProblem(w, 502, "", "bad gateway")
			return
		}
		writeJSON(w, map[string]any{"score": scoreJSON("s1", "https://x/s", "", "idle")})
	})
	f.handle("POST "+routeScores, func(w http.ResponseWriter, r *http.Request) {
		writeProblem(w, 504, "", "gateway timeout")
	})
	c := newTestClient(t, f.config())
	if _, err := c.GetScore(context.Background(), "s1"); err != nil {
		t.Fatalf("GET after 502: %v", err)
	}
	// The request helper does not repeat the POST (PublishScore decides what to do
	// after looking for its score).
	base, _ := c.PublishingURL()
	_, err := c.do(context.Background(), &request{method: http.MethodPost, url: base + "/scores", auth: authPlatform,
		body: map[string]any{"scoreUrl": "https://cdn/x.sib"}, outcomeDetail: "the score may have been created"}, nil)
	if !IsUnknownOutcome(err) || statusOf(err) != 504 || !strings.Contains(err.Error(), "may have been created") {
		t.Fatalf("publish after 504: %v", err)
	}
	if n := f.count("POST " + routeScores); n != 1 {
		t.Errorf("POST attempts %d, want 1", n)
	}
}

// dropConnection closes the connection without an answer.
func dropConnection(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("the test server cannot hijack connections")
	}
	if conn, _, err := hj.Hijack(); err == nil {
		conn.Close()
	}
}

func TestIdempotentCallRetriedAfterDroppedConnection(t *testing.T) {
	t.Parallel()
	f := newProxiedPlatform(t, emulator.Options{})
	var n atomic.Int32
	f.handle("DELETE "+routeScores+"/s1", func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			dropConnection(w)
			return
		}
		if r.URL.Query().Get("purge") != "true" {
			t.Errorf("purge not sent: %q", r.URL.RawQuery)
		}
		w.WriteHeader(204)
	})
	c := newTestClient(t, f.config())
	if err := c.DeleteScore(context.Background(), "s1", true); err != nil {
		t.Fatal(err)
	}
	if n.Load() != 2 {
		t.Errorf("attempts %d, want 2", n.Load())
	}
	if err := c.DeleteScore(context.Background(), "nope", false); !IsNotFound(err) {
		t.Errorf("delete missing: %v", err)
	}
}

func TestEmulatorRequestCounts(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c := env.client()
	ctx := env.ctx

	s, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn.example/a.sib"})
	if err != nil {
		t.Fatal(err)
	}
	first := env.stats()
	// First platform call: GET /auth, GET identity providers, password grant, token
	// information (for the links Close needs), the call.
	if n := first.TotalRequests(); n != 5 {
		t.Errorf("first call cost %d requests, want 5: %v", n, first.Requests)
	}
	for range 3 {
		if _, err := c.GetScore(ctx, s.ID); err != nil {
			t.Fatal(err)
		}
	}
	after := env.stats()
	if n := after.TotalRequests() - first.TotalRequests(); n != 3 {
		t.Errorf("3 refreshes cost %d requests, want 3: %v", n, after.Requests)
	}
	if _, err := c.GetExternalAuthentication(ctx); err != nil {
		t.Fatal(err)
	}
	if n := env.stats().TotalRequests() - after.TotalRequests(); n != 2 {
		t.Errorf("first admin call cost %d requests, want 2 (login + call)", n)
	}
	before := env.stats().TotalRequests()
	if _, err := c.GetExternalAuthentication(ctx); err != nil {
		t.Fatal(err)
	}
	if n := env.stats().TotalRequests() - before; n != 1 {
		t.Errorf("admin read cost %d requests, want 1", n)
	}
	before = env.stats().TotalRequests()
	if _, err := c.GetCommand(ctx, "c-404"); !IsNotFound(err) {
		t.Fatalf("command: %v", err)
	}
	if _, err := c.GetCommand(ctx, "c-405"); !IsNotFound(err) {
		t.Fatalf("command: %v", err)
	}
	if n := env.stats().TotalRequests() - before; n != 3 {
		t.Errorf("two command reads cost %d requests, want 3 (registry once + 2)", n)
	}
	before = env.stats().TotalRequests()
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	// Close: DELETE removal and GET /logout, side by side (the removal link was read
	// right after the grant).
	if n := env.stats().TotalRequests() - before; n != 2 {
		t.Errorf("Close cost %d requests, want 2", n)
	}
}

// TestSeeOtherAfterWrite: a token extension and removal answered 303 See Other on the
// same host were carried out (contract §0 as amended): the removal no longer fails
// with "the platform redirected DELETE", the extension no longer counts as failed
// (which granted a new token and left the extended one live).
func TestSeeOtherAfterWrite(t *testing.T) {
	t.Parallel()
	env, c := readingEnv(t, "seeOtherWrites")
	tok, err := c.GrantAccessToken(env.ctx)
	if err != nil {
		t.Fatal(err)
	}
	extended, err := c.ExtendAccessToken(env.ctx, tok)
	if err != nil {
		t.Fatalf("extend: %v", err)
	}
	if extended.Token != tok.Token || !extended.ExpiresAt.After(time.Now()) {
		t.Errorf("the extended token: %+v", extended)
	}
	if err := c.RemoveAccessToken(env.ctx, extended); err != nil {
		t.Fatalf("remove: %v", err)
	}
	if st := env.stats(); st.LiveTokens != 0 || st.Logins["oauth"] != 1 {
		t.Errorf("%d tokens live after %d grants, want 0 after 1", st.LiveTokens, st.Logins["oauth"])
	}
}

// TestSeeOtherIsSuccessOnlyForAWriteOnItsHost: a 303 is a write's success only on the
// host the write went to; to another host, or to a GET, it stays a redirect.
func TestSeeOtherIsSuccessOnlyForAWriteOnItsHost(t *testing.T) {
	t.Parallel()
	at, _ := url.Parse("https://platform.example/auth/tokens/current")
	for _, tc := range []struct {
		method, location string
		status           int
		want             bool
	}{
		{http.MethodDelete, "/auth", http.StatusSeeOther, true},
		{http.MethodPost, "https://PLATFORM.example:443/auth/tokens/current", http.StatusSeeOther, true},
		{http.MethodDelete, "https://elsewhere.example/auth", http.StatusSeeOther, false},
		{http.MethodDelete, "", http.StatusSeeOther, false},
		{http.MethodGet, "/auth", http.StatusSeeOther, false},
		{http.MethodDelete, "/auth", http.StatusFound, false},
	} {
		resp := &response{status: tc.status, header: http.Header{"Location": {tc.location}}, url: at}
		if got := seeOtherAfterWrite(&request{method: tc.method}, resp); got != tc.want {
			t.Errorf("%s answered %d to %q: success %v, want %v", tc.method, tc.status, tc.location, got, tc.want)
		}
	}
}

// TestForbiddenIsNotAnExpiredTokenWhenTheTokenIsValid: a 403 from something in front
// of the platform, with the token still valid, is reported, and the token neither
// dropped nor replaced.
func TestForbiddenIsNotAnExpiredTokenWhenTheTokenIsValid(t *testing.T) {
	t.Parallel()
	env, c := readingEnv(t, "refuseGetBody")
	if _, err := c.ListScores(env.ctx, ListScoresInput{}); err != nil {
		t.Fatal(err)
	}
	c.showGetBody(env.ctx, "a test") // as if a platform had asked for a body
	_, err := c.ListScores(env.ctx, ListScoresInput{Limit: 1})
	if !IsForbidden(err) {
		t.Errorf("a list refused by the CDN: %v, want 403", err)
	}
	if st := env.stats(); st.Logins["oauth"] != 1 || st.LiveTokens != 1 {
		t.Errorf("%d grants and %d tokens live, want 1 and 1", st.Logins["oauth"], st.LiveTokens)
	}
}

// TestAnswerSizeIsBounded streams a 100 MB answer: the call fails naming the bound,
// without reading (or holding) the whole answer.
func TestAnswerSizeIsBounded(t *testing.T) {
	t.Parallel()
	f := newProxiedPlatform(t, emulator.Options{})
	chunk := []byte(`{"score": {"id": "` + strings.Repeat("x", 1<<20) + `"}}`)[:1<<20]
	var sent int
	var mu sync.Mutex
	f.handle("GET "+routeScores+"/big", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		for range 100 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			mu.Lock()
			sent++
			mu.Unlock()
		}
	})
	c := newTestClient(t, f.config())
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := c.GetScore(context.Background(), "big")
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "answer larger than 8 MiB") {
		t.Fatalf("want an error naming the size bound, got %v", err)
	}
	if n := f.count("GET " + routeScores + "/big"); n != 1 {
		t.Errorf("%d attempts, want 1: an oversized answer is not asked for again", n)
	}
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 64<<20 {
		t.Errorf("reading allocated %d MiB, want far less than the 100 MiB answer", grown>>20)
	}
}
