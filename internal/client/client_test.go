package client

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflogtest"
)

func newTestClient(t *testing.T, cfg Config) *Client {
	t.Helper()
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

// runConcurrently runs call(0) to call(n-1) at once, each in its own
// goroutine, and fails the test with the first error once all have returned.
func runConcurrently(t *testing.T, n int, call func(i int) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- call(i)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestNewContactsNothingAndReportsMissingSettings(t *testing.T) {
	t.Parallel()
	f := newFakePlatform(t)
	full := f.config()
	ctx := context.Background()

	cases := []struct {
		name    string
		mutate  func(*Config)
		call    func(*Client) error
		setting string
		env     string
	}{
		{"admin_url", func(c *Config) { c.AdminURL = "" }, func(c *Client) error { _, err := c.GetExternalAuthentication(ctx); return err }, "admin_url", EnvAdminURL},
		{"admin_username", func(c *Config) { c.AdminUsername = "" }, func(c *Client) error { _, err := c.CheckSession(ctx); return err }, "admin_username", EnvAdminUsername},
		{"admin_password", func(c *Config) { c.AdminPassword = "" }, func(c *Client) error {
			_, err := c.PutExternalAuthentication(ctx, ExternalAuthentication{DomainName: "X"})
			return err
		}, "admin_password", EnvAdminPassword},
		{"platform_url", func(c *Config) { c.PlatformURL = "" }, func(c *Client) error { _, err := c.Systems(ctx); return err }, "platform_url", EnvPlatformURL},
		{"username", func(c *Config) { c.Username = "" }, func(c *Client) error { _, err := c.GetScore(ctx, "x"); return err }, "username", EnvUsername},
		{"password", func(c *Config) { c.Password = "" }, func(c *Client) error { _, err := c.GetCommand(ctx, "c-1"); return err }, "password", EnvPassword},
		{"client_id", func(c *Config) { c.ClientID = "" }, func(c *Client) error { _, err := c.GrantAccessToken(ctx); return err }, "client_id", EnvClientID},
		{"client_secret", func(c *Config) { c.ClientSecret = "" }, func(c *Client) error { _, err := c.Health(ctx); return err }, "client_secret", EnvClientSecret},
		{"publishing_url", func(c *Config) { c.AdminURL = "" }, func(c *Client) error { _, err := c.GetScore(ctx, "x"); return err }, "publishing_url", EnvPublishingURL},
	}
	for _, tc := range cases {
		cfg := full
		tc.mutate(&cfg)
		c := newTestClient(t, cfg)
		err := tc.call(c)
		var missing *MissingSettingError
		if !errors.As(err, &missing) {
			t.Fatalf("%s: got %v, want *MissingSettingError", tc.name, err)
		}
		if missing.Setting != tc.setting || missing.EnvVar != tc.env {
			t.Errorf("%s: got %+v", tc.name, missing)
		}
		if !strings.Contains(err.Error(), tc.setting) || !strings.Contains(err.Error(), tc.env) {
			t.Errorf("%s: message %q does not name %s and %s", tc.name, err, tc.setting, tc.env)
		}
	}
	if n := f.total(); n != 0 {
		t.Errorf("requests made: %d, want 0", n)
	}

	// Admin calls do not need platform settings and vice versa.
	adminOnly := newTestClient(t, Config{AdminURL: full.AdminURL, AdminUsername: fakeAdminUser, AdminPassword: fakeAdminPass})
	if _, err := adminOnly.CheckSession(ctx); err != nil {
		t.Errorf("admin-only client: %v", err)
	}
}

func TestNewRejectsBadSettings(t *testing.T) {
	t.Parallel()
	if _, err := New(Config{CACertPEM: "not a certificate"}); err == nil || !strings.Contains(err.Error(), "ca_cert_pem") {
		t.Errorf("bad CA: got %v", err)
	}
	if _, err := New(Config{AdminURL: "ftp://x"}); err == nil || !strings.Contains(err.Error(), "admin_url") {
		t.Errorf("bad admin_url: got %v", err)
	}
	c, err := New(Config{})
	if err != nil {
		t.Fatalf("empty config: %v", err)
	}
	if c.cfg.RequestTimeout != 30*time.Second || c.cfg.MaxRetries != 4 || c.cfg.PublishingService != "media.publishing" {
		t.Errorf("defaults: %+v", c.cfg)
	}
	if c.userAgent != "terraform-provider-mediaplatform/dev" {
		t.Errorf("user agent %q", c.userAgent)
	}
	c, _ = New(Config{MaxRetries: NoRetries})
	if c.cfg.MaxRetries != 0 {
		t.Errorf("NoRetries: MaxRetries %d", c.cfg.MaxRetries)
	}
}

func TestAddressDerivation(t *testing.T) {
	t.Parallel()
	c, _ := New(Config{AdminURL: "https://h.example/api/v1/", PlatformURL: "https://p.example/"})
	if got, _ := c.PublishingURL(); got != "https://h.example/api/v1/apis/media.publishing;version=2;realm=global" {
		t.Errorf("derived publishing URL %q", got)
	}
	if got, _ := c.RegistryURL(); got != "https://p.example/apis/registry;version=0/serviceroots" {
		t.Errorf("registry URL %q", got)
	}
	c, _ = New(Config{AdminURL: "https://h.example/api/v1", PublishingService: "other.svc"})
	if got, _ := c.PublishingURL(); got != "https://h.example/api/v1/apis/other.svc;version=2;realm=global" {
		t.Errorf("custom service %q", got)
	}
	c, _ = New(Config{AdminURL: "https://h.example/api/v1", PublishingURL: "https://pub.example/x;version=2", RegistryURL: "https://r.example/reg"})
	if got, _ := c.PublishingURL(); got != "https://pub.example/x;version=2" {
		t.Errorf("explicit publishing URL %q", got)
	}
	if got, _ := c.RegistryURL(); got != "https://r.example/reg" {
		t.Errorf("explicit registry URL %q", got)
	}
}

func TestApplyEnv(t *testing.T) {
	t.Parallel()
	env := map[string]string{EnvAdminURL: "https://env/api/v1", EnvPassword: "env-pass", EnvPublishingService: "svc"}
	cfg := Config{AdminURL: "https://config/api/v1"}
	cfg.ApplyEnv(func(k string) string { return env[k] })
	if cfg.AdminURL != "https://config/api/v1" || cfg.Password != "env-pass" || cfg.PublishingService != "svc" {
		t.Errorf("ApplyEnv: %+v", cfg)
	}
}

func TestWireDetails(t *testing.T) {
	t.Parallel()
	f := newFakePlatform(t)
	var got *http.Request
	var rawURI string
	f.handle("GET "+fakeScores, func(w http.ResponseWriter, r *http.Request) {
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
	if a := got.Header.Get("Authorization"); !strings.HasPrefix(a, "Bearer tok-") {
		t.Errorf("Authorization %q", a)
	}
	if acc := got.Header.Get("Accept"); !strings.Contains(acc, "application/problem+json") || !strings.Contains(acc, "application/hal+json") {
		t.Errorf("Accept %q", acc)
	}
	// The password grant carried the right headers.
	grants := 0
	f.mu.Lock()
	for _, r := range f.requests {
		if r.URL.Path != "/auth/ropc" {
			continue
		}
		grants++
		if r.Header.Get("Accept") != "application/json" || r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
			t.Errorf("grant headers %v", r.Header)
		}
	}
	f.mu.Unlock()
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
		f := newFakePlatform(t)
		var n atomic.Int32
		f.handle("GET "+fakeScores+"/s1", func(w http.ResponseWriter, r *http.Request) {
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
	f := newFakePlatform(t)
	f.handle("GET "+fakeScores+"/s1", func(w http.ResponseWriter, r *http.Request) {
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
	if n := f.count("GET " + fakeScores + "/s1"); n != 3 {
		t.Errorf("attempts %d, want 3", n)
	}
}

func TestGatewayErrorsRetriedOnlyWhenSafe(t *testing.T) {
	t.Parallel()
	f := newFakePlatform(t)
	var gets atomic.Int32
	f.handle("GET "+fakeScores+"/s1", func(w http.ResponseWriter, r *http.Request) {
		if gets.Add(1) == 1 {
			writeProblem(w, 502, "", "bad gateway")
			return
		}
		writeJSON(w, 200, map[string]any{"score": scoreJSON("s1", "https://x/s", "", "idle")})
	})
	f.handle("POST "+fakeScores, func(w http.ResponseWriter, r *http.Request) {
		writeProblem(w, 504, "", "gateway timeout")
	})
	c := newTestClient(t, f.config())
	if _, err := c.GetScore(context.Background(), "s1"); err != nil {
		t.Fatalf("GET after 502: %v", err)
	}
	_, err := c.PublishScore(context.Background(), PublishScoreInput{ScoreURL: "https://cdn/x.sib"})
	if !IsUnknownOutcome(err) || statusOf(err) != 504 || !strings.Contains(err.Error(), "may have been created") {
		t.Fatalf("publish after 504: %v", err)
	}
	if n := f.count("POST " + fakeScores); n != 1 {
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

func TestPublishWithUnknownOutcome(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("no alias", func(t *testing.T) {
		t.Parallel()
		f := newFakePlatform(t)
		f.handle("POST "+fakeScores, func(w http.ResponseWriter, r *http.Request) { dropConnection(w) })
		c := newTestClient(t, f.config())
		_, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn/a.sib"})
		var u *UnknownOutcomeError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), "score may have been created") {
			t.Fatalf("got %v", err)
		}
		if n := f.count("POST " + fakeScores); n != 1 {
			t.Errorf("POST attempts %d, want 1", n)
		}
	})

	t.Run("alias created then dropped", func(t *testing.T) {
		t.Parallel()
		f := newFakePlatform(t)
		var created atomic.Bool
		f.handle("POST "+fakeScores, func(w http.ResponseWriter, r *http.Request) {
			if created.Swap(true) {
				writeProblem(w, 409, "publishing/CONFLICT", "alias taken")
				return
			}
			dropConnection(w)
		})
		f.handle("GET "+fakeScores+"/my-alias", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 200, map[string]any{"score": scoreJSON("id-1", "https://cdn/a.sib", "my-alias", "pending")})
		})
		c := newTestClient(t, f.config())
		s, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn/a.sib", Alias: "my-alias"})
		if err != nil || s.ID != "id-1" || s.Alias != "my-alias" {
			t.Fatalf("got %+v, %v", s, err)
		}
		if p, g := f.count("POST "+fakeScores), f.count("GET "+fakeScores+"/my-alias"); p != 1 || g != 1 {
			t.Errorf("POST %d GET %d, want 1 and 1", p, g)
		}
	})

	t.Run("alias lost then published", func(t *testing.T) {
		t.Parallel()
		f := newFakePlatform(t)
		var posts atomic.Int32
		f.handle("POST "+fakeScores, func(w http.ResponseWriter, r *http.Request) {
			if posts.Add(1) == 1 {
				dropConnection(w)
				return
			}
			writeJSON(w, 200, map[string]any{"score": scoreJSON("id-2", "https://cdn/a.sib", "b", "pending")})
		})
		c := newTestClient(t, f.config())
		s, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn/a.sib", Alias: "b"})
		if err != nil || s.ID != "id-2" {
			t.Fatalf("got %+v, %v", s, err)
		}
		if p, g := f.count("POST "+fakeScores), f.count("GET "+fakeScores+"/b"); p != 2 || g != 1 {
			t.Errorf("POST %d GET %d, want 2 and 1", p, g)
		}
	})

	t.Run("alias held by another score", func(t *testing.T) {
		t.Parallel()
		f := newFakePlatform(t)
		f.handle("POST "+fakeScores, func(w http.ResponseWriter, r *http.Request) { dropConnection(w) })
		f.handle("GET "+fakeScores+"/c", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 200, map[string]any{"score": scoreJSON("id-3", "https://cdn/OTHER.sib", "c", "idle")})
		})
		c := newTestClient(t, f.config())
		_, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn/a.sib", Alias: "c"})
		if !IsConflict(err) {
			t.Fatalf("got %v, want a conflict", err)
		}
	})

	t.Run("clean conflict is not success", func(t *testing.T) {
		t.Parallel()
		f := newFakePlatform(t)
		f.handle("POST "+fakeScores, func(w http.ResponseWriter, r *http.Request) {
			writeProblem(w, 409, "publishing/CONFLICT", "alias taken")
		})
		c := newTestClient(t, f.config())
		_, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn/a.sib", Alias: "d"})
		if !IsConflict(err) || f.count("GET "+fakeScores+"/d") != 0 {
			t.Fatalf("got %v", err)
		}
	})

	t.Run("attempt timeout with alias", func(t *testing.T) {
		t.Parallel()
		f := newFakePlatform(t)
		f.handle("POST "+fakeScores, func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(400 * time.Millisecond) // longer than RequestTimeout
			writeJSON(w, 200, map[string]any{"score": scoreJSON("id-4", "https://cdn/a.sib", "e", "pending")})
		})
		f.handle("GET "+fakeScores+"/e", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 200, map[string]any{"score": scoreJSON("id-4", "https://cdn/a.sib", "e", "pending")})
		})
		cfg := f.config()
		cfg.RequestTimeout = 150 * time.Millisecond
		c := newTestClient(t, cfg)
		s, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn/a.sib", Alias: "e"})
		if err != nil || s.ID != "id-4" || f.count("POST "+fakeScores) != 1 {
			t.Fatalf("got %+v, %v after %d POSTs", s, err, f.count("POST "+fakeScores))
		}
	})
}

func TestIdempotentCallRetriedAfterDroppedConnection(t *testing.T) {
	t.Parallel()
	f := newFakePlatform(t)
	var n atomic.Int32
	f.handle("DELETE "+fakeScores+"/s1", func(w http.ResponseWriter, r *http.Request) {
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

func TestOAuthErrors(t *testing.T) {
	t.Parallel()
	f := newFakePlatform(t)
	ctx := context.Background()

	cfg := f.config()
	cfg.Password = "not-carols-password"
	_, err := newTestClient(t, cfg).GetScore(ctx, "x")
	var oe *OAuthError
	if !errors.As(err, &oe) || oe.Status != 400 || oe.ErrorCode != "invalid_grant" || oe.Description != "wrong user or password" {
		t.Fatalf("wrong password: %v", err)
	}
	if strings.Contains(err.Error(), "not-carols-password") || strings.Contains(err.Error(), fakePassword) {
		t.Errorf("message leaks the password: %v", err)
	}

	cfg = f.config()
	cfg.ClientSecret = "nope"
	_, err = newTestClient(t, cfg).GetScore(ctx, "x")
	if !errors.As(err, &oe) || oe.ErrorCode != "invalid_client" || !IsUnauthorized(err) {
		t.Fatalf("wrong client: %v", err)
	}

	// A pre-encoded basic token works the same; with client_id it conflicts.
	cfg = f.config()
	cfg.ClientID, cfg.ClientSecret = "", ""
	cfg.BasicToken = base64.StdEncoding.EncodeToString([]byte(fakeClientID + ":" + fakeClientSecret))
	if _, err := newTestClient(t, cfg).GrantAccessToken(ctx); err != nil {
		t.Fatalf("basic token: %v", err)
	}
	cfg.ClientID = "x"
	if _, err := newTestClient(t, cfg).GrantAccessToken(ctx); err == nil || !strings.Contains(err.Error(), "conflicts") {
		t.Fatalf("conflict: %v", err)
	}
}

func TestAdminLoginFailureIsNotRetried(t *testing.T) {
	t.Parallel()
	f := newFakePlatform(t)
	cfg := f.config()
	cfg.AdminPassword = "wrong-admin-pass"
	c := newTestClient(t, cfg)
	_, err := c.GetExternalAuthentication(context.Background())
	if err == nil || !strings.Contains(err.Error(), "administrator login") || !IsUnauthorized(err) {
		t.Fatalf("got %v", err)
	}
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Code != "admin/INVALID_CREDENTIALS" {
		t.Errorf("code: %v", err)
	}
	if n := f.count("POST /api/v1/login"); n != 1 {
		t.Errorf("logins %d, want 1", n)
	}
	if strings.Contains(err.Error(), "wrong-admin-pass") {
		t.Errorf("message leaks the password: %v", err)
	}
}

func TestUnauthorizedTriggersOneFreshLogin(t *testing.T) {
	t.Parallel()
	f := newFakePlatform(t)
	f.handle("GET "+fakeScores+"/s1", func(w http.ResponseWriter, r *http.Request) {
		if _, ok := f.bearerOK(r); !ok {
			writeProblem(w, 401, "auth/UNAUTHORIZED", "expired")
			return
		}
		writeJSON(w, 200, map[string]any{"score": scoreJSON("s1", "https://x/s", "", "idle")})
	})
	f.handle("GET "+fakeScores+"/always401", func(w http.ResponseWriter, r *http.Request) {
		writeProblem(w, 401, "auth/UNAUTHORIZED", "nope")
	})
	c := newTestClient(t, f.config())
	ctx := context.Background()
	if _, err := c.GetScore(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	// The server forgets every token.
	f.mu.Lock()
	clear(f.tokens)
	f.mu.Unlock()
	if _, err := c.GetScore(ctx, "s1"); err != nil {
		t.Fatalf("after expiry: %v", err)
	}
	if g, d := f.count("POST /auth/ropc"), f.count("GET /auth"); g != 2 || d != 1 {
		t.Errorf("grants %d discoveries %d, want 2 and 1", g, d)
	}
	// A call rejected twice fails after exactly one fresh login.
	_, err := c.GetScore(ctx, "always401")
	if !IsUnauthorized(err) {
		t.Fatalf("got %v", err)
	}
	if g, n := f.count("POST /auth/ropc"), f.count("GET "+fakeScores+"/always401"); g != 3 || n != 2 {
		t.Errorf("grants %d attempts %d, want 3 and 2", g, n)
	}
}

func TestTokenIsExtendedBeforeExpiry(t *testing.T) {
	t.Parallel()
	f := newFakePlatform(t)
	f.lifetime = 3
	f.handle("GET "+fakeScores+"/s1", func(w http.ResponseWriter, r *http.Request) {
		if _, ok := f.bearerOK(r); !ok {
			writeProblem(w, 401, "auth/UNAUTHORIZED", "expired")
			return
		}
		writeJSON(w, 200, map[string]any{"score": scoreJSON("s1", "https://x/s", "", "idle")})
	})
	c := newTestClient(t, f.config())
	ctx := context.Background()
	if _, err := c.GetScore(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	granted := c.token.peek().ExpiresAt
	time.Sleep(2200 * time.Millisecond) // less than a third of the lifetime left
	if _, err := c.GetScore(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if g, i, e := f.count("POST /auth/ropc"), f.count("GET /auth/tokens/current"), f.count("POST /auth/tokens/current/extension"); g != 1 || i != 1 || e != 1 {
		t.Errorf("grants %d token infos %d extensions %d, want 1 each", g, i, e)
	}
	if tok := c.token.peek(); tok == nil || !tok.ExpiresAt.After(granted.Add(time.Second)) {
		t.Errorf("token not extended: %+v", tok)
	}
}

func TestConcurrentFirstCallsShareOneLogin(t *testing.T) {
	t.Parallel()
	f := newFakePlatform(t)
	f.handle("GET "+fakeScores+"/s1", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(5 * time.Millisecond)
		writeJSON(w, 200, map[string]any{"score": scoreJSON("s1", "https://x/s", "", "idle")})
	})
	c := newTestClient(t, f.config())
	runConcurrently(t, 100, func(i int) error {
		var err error
		if i%2 == 0 {
			_, err = c.GetScore(context.Background(), "s1")
		} else {
			_, err = c.CheckSession(context.Background())
		}
		return err
	})
	if g, d, l := f.count("POST /auth/ropc"), f.count("GET /auth"), f.count("POST /api/v1/login"); g != 1 || d != 1 || l != 1 {
		t.Errorf("grants %d discoveries %d admin logins %d, want 1 each", g, d, l)
	}
}

func TestCloseReleasesCredentials(t *testing.T) {
	t.Parallel()
	f := newFakePlatform(t)
	c, err := New(f.config())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.CheckSession(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Systems(ctx); err == nil {
		t.Fatal("fake has no registry; want an error")
	}
	f.mu.Lock()
	sessions := len(f.sessions)
	f.mu.Unlock()
	if f.liveTokens() != 1 || sessions != 1 {
		t.Fatalf("live tokens %d sessions %d", f.liveTokens(), sessions)
	}
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(ctx); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	f.mu.Lock()
	sessions = len(f.sessions)
	f.mu.Unlock()
	if f.liveTokens() != 0 || sessions != 0 {
		t.Errorf("after Close: live tokens %d sessions %d", f.liveTokens(), sessions)
	}
	if f.count("GET /api/v1/logout") != 1 || f.count("DELETE /auth/tokens/current") != 1 {
		t.Errorf("logout %d removal %d", f.count("GET /api/v1/logout"), f.count("DELETE /auth/tokens/current"))
	}
	if _, err := c.CheckSession(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
	// Closing a client that never logged in makes no request.
	before := f.total()
	c2, _ := New(f.config())
	if err := c2.Close(ctx); err != nil || f.total() != before {
		t.Errorf("idle Close: %v, %d requests", err, f.total()-before)
	}
}

func TestSeparateAccessTokens(t *testing.T) {
	t.Parallel()
	f := newFakePlatform(t)
	c := newTestClient(t, f.config())
	ctx := context.Background()
	tok, err := c.GrantAccessToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if tok.Token == "" || tok.TokenType != "Bearer" || time.Until(tok.ExpiresAt) < 800*time.Second {
		t.Fatalf("token %+v", tok)
	}
	if c.token.peek() != nil {
		t.Error("a separate token became the shared one")
	}
	// Renew with only the token string, as an ephemeral resource would.
	ext, err := c.ExtendAccessToken(ctx, &AccessToken{Token: tok.Token})
	if err != nil || ext.Token != tok.Token || ext.ExpiresAt.IsZero() {
		t.Fatalf("extend: %+v %v", ext, err)
	}
	if err := c.RemoveAccessToken(ctx, &AccessToken{Token: tok.Token}); err != nil {
		t.Fatal(err)
	}
	if f.liveTokens() != 0 {
		t.Errorf("live tokens %d", f.liveTokens())
	}
	// Removing again, or extending a removed token.
	if err := c.RemoveAccessToken(ctx, &AccessToken{Token: tok.Token}); err != nil {
		t.Errorf("second removal: %v", err)
	}
	if _, err := c.ExtendAccessToken(ctx, &AccessToken{Token: tok.Token}); !IsUnauthorized(err) {
		t.Errorf("extend removed token: %v", err)
	}
}

func TestAllScoresPaging(t *testing.T) {
	t.Parallel()
	f := newFakePlatform(t)
	const total = 250
	var mu sync.Mutex
	var limits []string
	f.handle("GET "+fakeScores, func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		off, _ := strconv.Atoi(q.Get("offset"))
		lim, _ := strconv.Atoi(q.Get("limit"))
		mu.Lock()
		limits = append(limits, q.Get("offset")+"/"+q.Get("limit"))
		mu.Unlock()
		var page []any
		for i := off; i < min(total, off+lim); i++ {
			page = append(page, scoreJSON(fmt.Sprintf("id-%03d", i), "https://x/s", "", "idle"))
		}
		writeJSON(w, 200, map[string]any{"scores": page})
	})
	c := newTestClient(t, f.config())
	ctx := context.Background()
	all, err := c.ListAllScores(ctx, ScoreCriteria{}, 0, 0)
	if err != nil || len(all) != total || all[249].ID != "id-249" {
		t.Fatalf("got %d scores, %v", len(all), err)
	}
	if n := f.count("GET " + fakeScores); n != 3 {
		t.Errorf("list requests %d, want 3 (%v)", n, limits)
	}
	some, err := c.ListAllScores(ctx, ScoreCriteria{}, 10, 120)
	if err != nil || len(some) != 120 || some[0].ID != "id-010" {
		t.Fatalf("got %d scores, %v", len(some), err)
	}
	if n := f.count("GET " + fakeScores); n != 5 {
		t.Errorf("list requests %d, want 5 (%v)", n, limits)
	}
	// Stopping early makes no further request.
	for s, err := range c.AllScores(ctx, ScoreCriteria{}, 0, 0) {
		if err != nil || s.ID != "id-000" {
			t.Fatal(s, err)
		}
		break
	}
	if n := f.count("GET " + fakeScores); n != 6 {
		t.Errorf("list requests %d, want 6", n)
	}
}

func TestWaitForRendering(t *testing.T) {
	t.Parallel()
	f := newFakePlatform(t)
	var n atomic.Int32
	f.handle("GET "+fakeScores+"/s1", func(w http.ResponseWriter, r *http.Request) {
		status := []string{"pending", "rendering", "idle"}[min(int(n.Add(1))-1, 2)]
		writeJSON(w, 200, map[string]any{"score": scoreJSON("s1", "https://x/s", "", status)})
	})
	c := newTestClient(t, f.config())
	s, err := c.WaitForRendering(context.Background(), "s1")
	if err != nil || s.Status != ScoreStatusIdle || n.Load() != 3 {
		t.Fatalf("got %+v %v after %d polls", s, err, n.Load())
	}
	f.handle("GET "+fakeScores+"/s2", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"score": scoreJSON("s2", "https://x/s", "", "pending")})
	})
	// Generous: the first read must come back before the deadline on a loaded machine.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	s, err = c.WaitForRendering(ctx, "s2")
	if !errors.Is(err, context.DeadlineExceeded) || s == nil || s.Status != "pending" {
		t.Fatalf("timeout: %+v %v", s, err)
	}
}

func TestLogsCarryNoSecrets(t *testing.T) {
	t.Parallel()
	f := newFakePlatform(t)
	f.handle("POST "+fakeScores+"/s1/view", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"view": map[string]any{
			"id": "v1", "scoreId": "s1", "viewerUrl": "https://host/viewer/SECRET-VIEW-123",
			"createdAt": "2026-11-21T10:15:00.000Z", "expiresAt": "2026-11-21T12:15:00.000Z",
			"settings": map[string]any{"printable": true, "pages": "1-3", "licenseString": "", "lang": "en"},
		}})
	})
	var buf syncBuffer
	ctx := tflogtest.RootLogger(context.Background(), &buf)
	c, err := New(f.config())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CheckSession(ctx); err != nil {
		t.Fatal(err)
	}
	v, err := c.CreateView(ctx, "s1", ViewInput{Pages: "1-3"})
	if err != nil || v.ViewerURL == "" || !v.Settings.Printable {
		t.Fatalf("view %+v %v", v, err)
	}
	_, _ = c.GetScore(ctx, "missing")
	tok, err := c.GrantAccessToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.RemoveAccessToken(ctx, tok)
	session, _ := c.session.peek()
	shared := c.token.peek().Token
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	logs := buf.String()
	if !strings.Contains(logs, `"path":"/auth/ropc"`) || !strings.Contains(logs, `"status":200`) || !strings.Contains(logs, `"@module":"provider.mediaplatform_client"`) {
		t.Fatalf("expected request logs, got:\n%s", logs)
	}
	basic := base64.StdEncoding.EncodeToString([]byte(fakeClientID + ":" + fakeClientSecret))
	for _, secret := range []string{fakePassword, fakeClientSecret, fakeAdminPass, basic, session, shared, tok.Token, "SECRET-VIEW-123", "serviceAccessToken"} {
		if secret != "" && strings.Contains(logs, secret) {
			t.Errorf("logs contain secret %q", secret)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for the concurrent writers of several
// loggers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestCommandDecoding(t *testing.T) {
	t.Parallel()
	body := `{"version":"1.0","command":{"id":"c-7","type":"bulk","lifecycle":"finished","progress":100,
	  "state":{"text":"done","code":"x/DONE","param":{"totalCount":3,"successCount":2,"failureCount":1}},
	  "created":"2026-11-21T10:15:00.000Z","finished":"2026-11-21T10:16:00.000Z","creator":"alice","unknown":1},
	  "payload":{"command-parameters":{"ids":["a"]},"result":[{"success":true,"data":"a"},
	    {"success":false,"data":"","httpStatus":409,"errorCode":"datamodel/THUMBNAIL_CHANGED","errorMessage":"changed"}],"extra":true},
	  "_links":{"self":{"href":"/c/7"},"command:cancel":[{"href":"/c/7"}]}}`
	var cmd Command
	if err := json.Unmarshal([]byte(body), &cmd); err != nil {
		t.Fatal(err)
	}
	counts, ok := cmd.BulkCounts()
	if !ok || counts != (BulkCounts{Total: 3, Success: 2, Failure: 1}) {
		t.Errorf("counts %+v %v", counts, ok)
	}
	if !cmd.Command.Terminal() || *cmd.Command.Progress != 100 || cmd.Command.Finished.IsZero() || !cmd.Command.Modified.IsZero() {
		t.Errorf("command %+v", cmd.Command)
	}
	if len(cmd.Payload.Result) != 2 || cmd.Payload.Result[1].HTTPStatus != 409 || string(cmd.Payload.Parameters) != `{"ids":["a"]}` {
		t.Errorf("payload %+v", cmd.Payload)
	}
	if self, ok := cmd.Links.First("self"); !ok || self.Href != "/c/7" || len(cmd.Raw) == 0 || len(cmd.Payload.Raw) == 0 {
		t.Errorf("links/raw: %+v", cmd.Links)
	}
}

func TestLayoutItemCommon(t *testing.T) {
	t.Parallel()
	var items []LayoutItem
	err := json.Unmarshal([]byte(`[{"id":"a","common":true,"options":{"readOnlyExpressionRule":{"and":[{"attribute":"x","op":"isSet"}]}}},
	  {"id":"b","common":null},{"id":"c","subitems":[{"id":"d","common":true}]}]`), &items)
	if err != nil {
		t.Fatal(err)
	}
	if !items[0].Common || items[1].Common || items[2].Common || !items[2].Subitems[0].Common {
		t.Errorf("common flags: %+v", items)
	}
	if string(items[0].Options["readOnlyExpressionRule"]) != `{"and":[{"attribute":"x","op":"isSet"}]}` {
		t.Errorf("options: %s", items[0].Options["readOnlyExpressionRule"])
	}
}

func TestExternalAuthenticationMapping(t *testing.T) {
	t.Parallel()
	s, err := parseExternalAuthentication([]byte(`{"domainName":"CORP","externalAuthenticationEnabled":true,
	  "server0":"dc1","port0":"389","server1":"dc2","port1":"636","enabled1":false,"server10":"dc11","port10":636}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []AuthServer{{"dc1", 389, true}, {"dc2", 636, false}, {"dc11", 636, true}}
	if s.DomainName != "CORP" || !s.Enabled || fmt.Sprint(s.Servers) != fmt.Sprint(want) {
		t.Errorf("parsed %+v", s)
	}
	doc := ExternalAuthentication{DomainName: "D", Servers: []AuthServer{{"a", 1, true}, {"b", 65535, false}}}.document()
	b, _ := json.Marshal(doc)
	if string(b) != `{"domainName":"D","enabled0":true,"enabled1":false,"externalAuthenticationEnabled":false,"port0":"1","port1":"65535","server0":"a","server1":"b"}` {
		t.Errorf("document %s", b)
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

func TestErrorPredicatesThroughWrapping(t *testing.T) {
	t.Parallel()
	for status, pred := range map[int]func(error) bool{404: IsNotFound, 409: IsConflict, 401: IsUnauthorized, 403: IsForbidden} {
		err := fmt.Errorf("outer: %w", fmt.Errorf("inner: %w", &APIError{Status: status}))
		if !pred(err) {
			t.Errorf("%d not recognised through wrapping", status)
		}
		if pred(errors.New("plain")) || pred(nil) {
			t.Errorf("%d: false positive", status)
		}
	}
	e := &APIError{Status: 404, Code: "publishing/NOT_FOUND", Message: "score 'x' does not exist", Method: "GET", Path: "/scores/x"}
	if e.Error() != "GET /scores/x: HTTP 404 publishing/NOT_FOUND: score 'x' does not exist" || e.Name() != "NOT_FOUND" {
		t.Errorf("message %q name %q", e.Error(), e.Name())
	}
}

func TestPlatformHrefRefusesForeignHosts(t *testing.T) {
	t.Parallel()
	f := newFakePlatform(t)
	f.handle("GET /apis/registry;version=0/serviceroots", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"resources": map[string]any{
			relCommandByID: []any{map[string]any{"href": "/apis/commands;version=1;realm=global/commands/{id}", "templated": true}},
		}})
	})
	c := newTestClient(t, f.config())
	_, err := c.GetCommandByHref(context.Background(), "https://evil.example/commands/1")
	if err == nil || !strings.Contains(err.Error(), "refusing") {
		t.Fatalf("got %v", err)
	}
	_, err = c.GetCommandByHref(context.Background(), "/apis/commands;version=1;realm=global/commands/1")
	if !IsNotFound(err) {
		t.Fatalf("relative href: %v", err)
	}
	// A platform path outside the command service is refused before any request to it.
	before := f.count("GET /auth/tokens/current")
	_, err = c.GetCommandByHref(context.Background(), "/auth/tokens/current")
	if err == nil || !strings.Contains(err.Error(), "does not address a command") {
		t.Fatalf("token information as a command: %v", err)
	}
	if n := f.count("GET /auth/tokens/current") - before; n != 0 {
		t.Errorf("the token information was read %d times", n)
	}
}
