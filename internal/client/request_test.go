package client

// The request machinery: what goes on the wire, retries and their limits, backoff.

import (
	"context"
	"errors"
	"net/http"
	"strings"
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
		writeJSON(w, 200, map[string]any{"scores": []any{}})
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

func TestRetryAfterIsHonoured(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusTooManyRequests, http.StatusServiceUnavailable} {
		f := newProxiedPlatform(t, emulator.Options{})
		var n atomic.Int32
		f.handle("GET "+routeScores+"/s1", func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) == 1 {
				w.Header().Set("Retry-After", "1")
				writeProblem(w, status, "publishing/TOO_MANY_REQUESTS", "slow down")
				return
			}
			writeJSON(w, 200, map[string]any{"score": scoreJSON("s1", "https://x/s", "", "idle")})
		})
		c := newTestClient(t, f.config())
		if _, err := c.GetScore(context.Background(), "x"); err == nil {
			t.Fatal("warm-up: want not found")
		}
		start := time.Now()
		s, err := c.GetScore(context.Background(), "s1")
		if err != nil {
			t.Fatalf("%d: %v", status, err)
		}
		if d := time.Since(start); d < time.Second {
			t.Errorf("%d: retried after %v, want ≥ 1s", status, d)
		}
		if s.ID != "s1" || n.Load() != 2 {
			t.Errorf("%d: score %v after %d requests", status, s.ID, n.Load())
		}
	}
}

func TestRetriesExhausted(t *testing.T) {
	t.Parallel()
	f := newProxiedPlatform(t, emulator.Options{})
	f.handle("GET "+routeScores+"/s1", func(w http.ResponseWriter, r *http.Request) {
		writeProblem(w, 503, "publishing/SERVICE_UNAVAILABLE", "down")
	})
	cfg := f.config()
	cfg.MaxRetries = 2
	c := newTestClient(t, cfg)
	_, err := c.GetScore(context.Background(), "s1")
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 503 || apiErr.Code != "publishing/SERVICE_UNAVAILABLE" {
		t.Fatalf("got %v", err)
	}
	if n := f.count("GET " + routeScores + "/s1"); n != 3 {
		t.Errorf("attempts %d, want 3", n)
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
		writeJSON(w, 200, map[string]any{"score": scoreJSON("s1", "https://x/s", "", "idle")})
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

func TestBackoff(t *testing.T) {
	t.Parallel()
	for attempt := range 40 {
		d := backoff(100*time.Millisecond, 2*time.Second, attempt, nil)
		want := min(100*time.Millisecond<<min(attempt, 20), 2*time.Second)
		if d < want/2 || d > want {
			t.Errorf("attempt %d: %v not in [%v, %v]", attempt, d, want/2, want)
		}
	}
	resp := &http.Response{StatusCode: 429, Header: http.Header{"Retry-After": {"3"}}}
	if d := backoff(time.Millisecond, time.Second, 0, resp); d != 3*time.Second {
		t.Errorf("Retry-After: %v", d)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if d, ok := parseRetryAfter(now.Add(5*time.Second).Format(http.TimeFormat), now); !ok || d != 5*time.Second {
		t.Errorf("HTTP date: %v %v", d, ok)
	}
	if _, ok := parseRetryAfter("soon", now); ok {
		t.Error("garbage accepted")
	}
}
