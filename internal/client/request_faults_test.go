package client

// The request helper against a network that redirects, asks for hour-long waits,
// sends endless answers or rate-limits a burst of concurrent calls.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// TestRedirectsAreNotFollowed redirects each call that carries a credential to a
// listener on another port: it receives nothing, and the error names the target.
func TestRedirectsAreNotFollowed(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		path string
		call func(context.Context, *Client) error
	}{
		"admin login (password in the form)": {`/api/v1/login$`, func(ctx context.Context, c *Client) error {
			_, err := c.GetExternalAuthentication(ctx)
			return err
		}},
		"admin call (session token header)": {`/externalauth$`, func(ctx context.Context, c *Client) error {
			_, err := c.GetExternalAuthentication(ctx)
			return err
		}},
		"password grant (Basic credential and password)": {`/auth/oauth2/ropc/default$`, func(ctx context.Context, c *Client) error {
			_, err := c.ListScores(ctx, ListScoresInput{})
			return err
		}},
		"platform call (Bearer token)": {`/scores$`, func(ctx context.Context, c *Client) error {
			_, err := c.ListScores(ctx, ListScoresInput{})
			return err
		}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			env := newEmuEnv(t, emulator.Options{})
			rec := faultproxy.StartRecorder()
			t.Cleanup(rec.Close)
			c, p := env.proxiedClient()
			p.Add(faultproxy.Fault{Path: tc.path, Respond: faultproxy.Redirect(rec.URL + "/collect?secret=1")})
			err := tc.call(env.ctx, c)
			var redirect *RedirectError
			if !errors.As(err, &redirect) || !strings.Contains(err.Error(), "redirected") ||
				!strings.Contains(err.Error(), rec.URL+"/collect") || strings.Contains(err.Error(), "secret=1") {
				t.Errorf("want a redirect error naming the target without its query, got %v", err)
			}
			if got := rec.Requests(); len(got) != 0 {
				t.Errorf("the redirect target received %d requests", len(got))
			}
		})
	}
}

// TestLongRetryAfterFailsAtOnce: a Retry-After beyond the retry budget ends the call
// at once, naming the wait, in seconds or as an HTTP date.
func TestLongRetryAfterFailsAtOnce(t *testing.T) {
	t.Parallel()
	for _, retryAfter := range []string{"3600", "Thu, 01 Jan 2099 00:00:00 GMT"} {
		for _, status := range []int{http.StatusTooManyRequests, http.StatusServiceUnavailable} {
			t.Run(fmt.Sprintf("%d %s", status, retryAfter), func(t *testing.T) {
				t.Parallel()
				env := newEmuEnv(t, emulator.Options{})
				c, p := env.proxiedClient()
				p.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/scores$`, Respond: &faultproxy.Answer{
					Status: status, Header: http.Header{"Retry-After": {retryAfter}},
				}})
				start := time.Now()
				_, err := c.ListScores(env.ctx, ListScoresInput{})
				var ra *RetryAfterError
				if !errors.As(err, &ra) || !strings.Contains(err.Error(), "Retry-After") || ra.Wait < time.Hour {
					t.Fatalf("want a Retry-After error naming the wait, got %v", err)
				}
				if d := time.Since(start); d > 20*time.Second {
					t.Errorf("gave up after %v, want at once", d)
				}
				if n := p.Count(http.MethodGet, `/scores$`); n != 1 {
					t.Errorf("%d list attempts, want 1", n)
				}
			})
		}
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

// TestRateLimitBurst: 100 concurrent reads against a platform that admits 10 requests
// per second all succeed with the default retry settings: the client slows down as a
// whole after a 429, and a 429 costs time budget, not one of max_retries.
func TestRateLimitBurst(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c := env.client(func(cfg *Config) {
		cfg.RetryWaitMin, cfg.RetryWaitMax = DefaultRetryWaitMin, DefaultRetryWaitMax
	})
	s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/burst.sib"})
	if err != nil {
		t.Fatal(err)
	}
	env.emu.SetFaults(emulator.Faults{RateLimitPerSecond: 10})
	const n = 100 // ten one-second windows: more than max_retries (4) rounds
	var failed []error
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if _, err := c.GetScore(env.ctx, s.ID); err != nil {
				mu.Lock()
				failed = append(failed, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(failed) > 0 {
		t.Errorf("%d of %d reads failed under the rate limit, e.g. %v", len(failed), n, failed[0])
	}
}

// TestRedirectErrorRedactsTheTarget: user information in a Location never reaches
// the error.
func TestRedirectErrorRedactsTheTarget(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://user:hunter2@elsewhere.example/x?token=abc", http.StatusFound)
	}))
	t.Cleanup(srv.Close)
	c := newTestClient(t, Config{PublishingURL: srv.URL + "/pub", PlatformURL: srv.URL, ClientID: "a", ClientSecret: "b",
		Username: "u", Password: "p"})
	_, err := c.Health(context.Background())
	if err == nil || strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "abc") ||
		!strings.Contains(err.Error(), "elsewhere.example") {
		t.Errorf("got %v", err)
	}
}

// TestTemplateValuesAreUTF8Encoded: non-ASCII ids in the registry's URI templates go
// out as percent-encoded UTF-8 (RFC 6570), so the platform reads the id it was given.
func TestTemplateValuesAreUTF8Encoded(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c, p := env.proxiedClient()
	for id, encoded := range map[string]string{"clip-ü": "clip-%C3%BC", "clip-😀": "clip-%F0%9F%98%80"} {
		_, err := c.AssetModelByID(env.ctx, "interplay-pam", "pam-1", id, "")
		if !IsNotFound(err) || !strings.Contains(err.Error(), id) {
			t.Errorf("asset %q: want the platform's not-found naming it, got %v", id, err)
		}
		if n := p.Count(http.MethodGet, `/assets/`+regexp.QuoteMeta(encoded)+`/model$`); n != 1 {
			t.Errorf("asset %q: %d requests for the path segment %s, want 1; sent: %v", id, n, encoded, p.Requests()[len(p.Requests())-1].Path)
		}
	}
}

// TestCheckSettingsDefersUnknownValues: a setting the configuration only knows after
// apply, or one that stands in for the missing one, is not reported at plan time.
func TestCheckSettingsDefersUnknownValues(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		cfg  Config
		area Area
		want string // the setting reported, "" for none
	}{
		"password missing":          {Config{PlatformURL: "https://h", ClientID: "a", ClientSecret: "b", Username: "u", PublishingURL: "https://h/p"}, AreaPublishing, "password"},
		"password deferred":         {Config{PlatformURL: "https://h", ClientID: "a", ClientSecret: "b", Username: "u", PublishingURL: "https://h/p", Deferred: map[string]bool{"password": true}}, AreaPublishing, ""},
		"admin_url deferred":        {Config{PlatformURL: "https://h", ClientID: "a", ClientSecret: "b", Username: "u", Password: "p", Deferred: map[string]bool{"admin_url": true}}, AreaPublishing, ""},
		"basic_token deferred":      {Config{PlatformURL: "https://h", Username: "u", Password: "p", PublishingURL: "https://h/p", Deferred: map[string]bool{"basic_token": true}}, AreaPlatform, ""},
		"admin password missing":    {Config{AdminURL: "https://h/api/v1", AdminUsername: "admin"}, AreaAdmin, "admin_password"},
		"publishing address absent": {Config{PlatformURL: "https://h", ClientID: "a", ClientSecret: "b", Username: "u", Password: "p"}, AreaPublishing, "publishing_url"},
	} {
		c, err := New(tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		err = c.CheckSettings(tc.area)
		var missing *MissingSettingError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: got %v, want nothing reported", name, err)
		case tc.want != "" && (!errors.As(err, &missing) || missing.Setting != tc.want):
			t.Errorf("%s: got %v, want %s reported", name, err, tc.want)
		}
	}
}

// TestRateGatePaces: after a 429 the gate spaces attempts at four fifths of the rate it
// let through in the second before; a later 429 takes a fifth off, a quiet second adds
// one attempt a second, and the pace ends when the limit was not met for a while.
func TestRateGatePaces(t *testing.T) {
	t.Parallel()
	var g rateGate
	for range 30 { // thirty attempts in the second before the 429
		g.wait(context.Background())
	}
	g.pause(time.Millisecond)
	if g.rate != 24 {
		t.Fatalf("learned rate %.1f, want 24 (four fifths of 30)", g.rate)
	}
	start := time.Now()
	for range 12 {
		g.wait(context.Background())
	}
	if d := time.Since(start); d < 400*time.Millisecond {
		t.Errorf("12 attempts at 24 a second took %s, want about half a second", d)
	}
	g.pause(time.Millisecond) // the same burst: no change
	if g.rate != 24 {
		t.Errorf("a second 429 of the same burst changed the rate to %.1f", g.rate)
	}
	g.mu.Lock()
	g.last429 = g.last429.Add(-2 * time.Second)
	g.mu.Unlock()
	g.pause(time.Millisecond)
	if g.rate < 19 || g.rate > 19.3 {
		t.Errorf("a later 429: rate %.2f, want 19.2", g.rate)
	}
	g.mu.Lock()
	g.lastRaise = g.lastRaise.Add(-3 * time.Second)
	g.mu.Unlock()
	g.wait(context.Background())
	if g.rate < 22 || g.rate > 22.3 {
		t.Errorf("three quiet seconds: rate %.2f, want 22.2", g.rate)
	}
	g.mu.Lock()
	g.last429 = g.last429.Add(-paceMemory - time.Second)
	g.mu.Unlock()
	g.wait(context.Background())
	if g.rate != 0 {
		t.Errorf("the pace did not end after %s without a 429", paceMemory)
	}
}

// TestRetryAfterDateOnThePlatformsClock: a Retry-After given as a date is judged on
// the clock of the answer that carries it. With the platform's clock two hours
// ahead, 40 concurrent reads under a rate limit all succeed (this machine's clock
// read the date as a wait of two hours, more than the budget); two hours behind,
// they cost no more requests than on a platform whose clock agrees with this
// machine's (this machine's clock read every date as past: retried at once).
func TestRetryAfterDateOnThePlatformsClock(t *testing.T) {
	t.Parallel()
	run := func(t *testing.T, offset int) int {
		env := newEmuEnv(t, emulator.Options{})
		c := env.client(func(cfg *Config) {
			cfg.RetryWaitMin, cfg.RetryWaitMax = DefaultRetryWaitMin, DefaultRetryWaitMax
		})
		s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/date.sib"})
		if err != nil {
			t.Fatal(err)
		}
		env.emu.SetFaults(emulator.Faults{RateLimitPerSecond: 10, ClockOffsetSeconds: offset,
			Readings: emulator.Readings{RetryAfterDate: true}})
		before := env.emu.Stats().TotalRequests()
		const n = 40
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for range n {
			wg.Go(func() {
				if _, err := c.GetScore(env.ctx, s.ID); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("platform clock %+d s: a read failed: %v", offset, err)
		}
		return env.emu.Stats().TotalRequests() - before
	}
	agreed := run(t, 0)
	for _, offset := range []int{2 * 3600, -2 * 3600} {
		if got := run(t, offset); got > 2*agreed+10 {
			t.Errorf("platform clock %+d s: %d requests for 40 reads, against %d with the clocks agreeing", offset, got, agreed)
		}
	}
}
