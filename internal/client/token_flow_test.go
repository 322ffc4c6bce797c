package client

// The administrator session and the platform token flow: OAuth errors, logins in
// every answer form, one fresh login on 401, extension, separate tokens.

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

func TestOAuthErrors(t *testing.T) {
	t.Parallel()
	f := newProxiedPlatform(t, emulator.Options{})
	ctx := context.Background()

	cfg := f.config()
	cfg.Password = "not-alices-password"
	_, err := newTestClient(t, cfg).GetScore(ctx, "x")
	var oe *OAuthError
	if !errors.As(err, &oe) || oe.Status != 400 || oe.ErrorCode != "invalid_grant" || oe.Description != "unknown user or wrong password" {
		t.Fatalf("wrong password: %v", err)
	}
	if strings.Contains(err.Error(), "not-alices-password") || strings.Contains(err.Error(), emulatortest.Password) {
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
	cfg.BasicToken = base64.StdEncoding.EncodeToString([]byte(emulatortest.ClientID + ":" + emulatortest.ClientSecret))
	if _, err := newTestClient(t, cfg).GrantAccessToken(ctx); err != nil {
		t.Fatalf("basic token: %v", err)
	}
	cfg.ClientID = "x"
	if _, err := newTestClient(t, cfg).GrantAccessToken(ctx); err == nil || !strings.Contains(err.Error(), "conflicts") {
		t.Fatalf("conflict: %v", err)
	}
}

func TestUnauthorizedTriggersOneFreshLogin(t *testing.T) {
	t.Parallel()
	f := newProxiedPlatform(t, emulator.Options{})
	publishDirect(t, f, "s1")
	f.handle("GET "+routeScores+"/always401", func(w http.ResponseWriter, r *http.Request) {
		writeProblem(w, 401, "auth/UNAUTHORIZED", "nope")
	})
	c := newTestClient(t, f.config())
	ctx := context.Background()
	if _, err := c.GetScore(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	// The server forgets every token.
	f.Emulator.Expire(true, false)
	if _, err := c.GetScore(ctx, "s1"); err != nil {
		t.Fatalf("after expiry: %v", err)
	}
	if g, d := f.count(routeGrant), f.count("GET /auth"); g != 2 || d != 1 {
		t.Errorf("grants %d discoveries %d, want 2 and 1", g, d)
	}
	// A call rejected twice fails after exactly one fresh login.
	_, err := c.GetScore(ctx, "always401")
	if !IsUnauthorized(err) {
		t.Fatalf("got %v", err)
	}
	if g, n := f.count(routeGrant), f.count("GET "+routeScores+"/always401"); g != 3 || n != 2 {
		t.Errorf("grants %d attempts %d, want 3 and 2", g, n)
	}
}

func TestTokenIsExtendedBeforeExpiry(t *testing.T) {
	t.Parallel()
	f := newProxiedPlatform(t, emulator.Options{TokenLifetime: 3 * time.Second})
	publishDirect(t, f, "s1")
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
	if g, i, e := f.count(routeGrant), f.count(routeTokenInfo), f.count(routeTokenExtend); g != 1 || i != 1 || e != 1 {
		t.Errorf("grants %d token infos %d extensions %d, want 1 each", g, i, e)
	}
	if tok := c.token.peek(); tok == nil || !tok.ExpiresAt.After(granted.Add(time.Second)) {
		t.Errorf("token not extended: %+v", tok)
	}
}

func TestSeparateAccessTokens(t *testing.T) {
	t.Parallel()
	f := newProxiedPlatform(t, emulator.Options{})
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
	if n := f.Emulator.Stats().LiveTokens; n != 0 {
		t.Errorf("live tokens %d", n)
	}
	// Removing again, or extending a removed token.
	if err := c.RemoveAccessToken(ctx, &AccessToken{Token: tok.Token}); err != nil {
		t.Errorf("second removal: %v", err)
	}
	if _, err := c.ExtendAccessToken(ctx, &AccessToken{Token: tok.Token}); !IsUnauthorized(err) {
		t.Errorf("extend removed token: %v", err)
	}
}

func TestEmulatorExpiredCredentials(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c := env.client()
	ctx := env.ctx
	if _, err := c.GetExternalAuthentication(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListScores(ctx, ListScoresInput{}); err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, env.srv.URL+"/_emulator/expire", strings.NewReader(`{"tokens": true, "sessions": true}`))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("expire: %v %v", resp, err)
	}
	resp.Body.Close()
	if st := env.stats(); st.LiveTokens != 0 || st.LiveSessions != 0 {
		t.Fatalf("after expire: %+v", st)
	}
	runConcurrently(t, 20, func(i int) error {
		var err error
		if i%2 == 0 {
			_, err = c.GetExternalAuthentication(ctx)
		} else {
			_, err = c.ListScores(ctx, ListScoresInput{})
		}
		return err
	})
	st := env.stats()
	if st.Logins["admin"] != 2 || st.Logins["oauth"] != 2 {
		t.Errorf("logins %v, want exactly one new login of each kind", st.Logins)
	}
	if st.Requests["GET /auth"] != 1 {
		t.Errorf("discovery repeated: %d", st.Requests["GET /auth"])
	}
}

func TestEmulatorTokenExtension(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{TokenLifetime: 3 * time.Second})
	c := env.client()
	ctx := env.ctx
	if _, err := c.ListScores(ctx, ListScoresInput{}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2200 * time.Millisecond)
	if _, err := c.ListScores(ctx, ListScoresInput{}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond) // past the original expiry
	if _, err := c.ListScores(ctx, ListScoresInput{}); err != nil {
		t.Fatal(err)
	}
	st := env.stats()
	if st.Logins["oauth"] != 1 {
		t.Errorf("oauth logins %d, want 1 (the token is extended, not re-granted)", st.Logins["oauth"])
	}
	var extensions int
	for route, n := range st.Requests {
		if strings.HasPrefix(route, "POST /auth/tokens") {
			extensions += n
		}
	}
	if extensions < 1 {
		t.Errorf("no extension: %v", st.Requests)
	}
}

func TestEmulatorSeparateAccessToken(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c := env.client()
	ctx := env.ctx
	tok, err := c.GrantAccessToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st := env.stats(); st.LiveTokens != 1 || st.Logins["oauth"] != 1 {
		t.Fatalf("after grant: %+v", st)
	}
	ext, err := c.ExtendAccessToken(ctx, &AccessToken{Token: tok.Token})
	if err != nil || ext.Token != tok.Token || ext.ExpiresAt.Before(tok.ExpiresAt.Add(-2*time.Second)) {
		t.Fatalf("extend %+v %v", ext, err)
	}
	// The shared token is another one.
	if _, err := c.ListScores(ctx, ListScoresInput{}); err != nil {
		t.Fatal(err)
	}
	if st := env.stats(); st.LiveTokens != 2 {
		t.Errorf("live tokens %d, want 2", st.LiveTokens)
	}
	if err := c.RemoveAccessToken(ctx, &AccessToken{Token: tok.Token}); err != nil {
		t.Fatal(err)
	}
	if st := env.stats(); st.LiveTokens != 1 {
		t.Errorf("live tokens %d, want 1", st.LiveTokens)
	}
	if _, err := c.ExtendAccessToken(ctx, tok); !IsUnauthorized(err) {
		t.Errorf("extend removed token: %v", err)
	}
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if st := env.stats(); st.LiveTokens != 0 || st.LiveSessions != 0 {
		t.Errorf("after Close: %+v", st)
	}
}

func TestEmulatorOAuthErrors(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	ctx := env.ctx
	var oe *OAuthError
	_, err := env.client(func(c *Config) { c.Password = "wrong-password" }).Health(ctx)
	if !errors.As(err, &oe) || oe.ErrorCode != "invalid_grant" || oe.Status != 400 {
		t.Errorf("wrong password: %v", err)
	}
	_, err = env.client(func(c *Config) { c.ClientSecret = "wrong-secret" }).Health(ctx)
	if !errors.As(err, &oe) || oe.ErrorCode != "invalid_client" || !IsUnauthorized(err) {
		t.Errorf("wrong client: %v", err)
	}
	_, err = env.client(func(c *Config) {
		c.ClientID, c.ClientSecret = "", ""
		c.BasicToken = base64.StdEncoding.EncodeToString([]byte(emulatortest.ClientID + ":" + emulatortest.ClientSecret))
	}).Health(ctx)
	if err != nil {
		t.Errorf("basic token: %v", err)
	}
	if st := env.stats(); st.Logins["oauth"] != 1 {
		t.Errorf("oauth logins %d, want 1", st.Logins["oauth"])
	}
}

// TestBareLoginToken: the administrator login may answer with the bare token, as
// text or as a JSON string (contract §V5); an answer that is no token says so
// without quoting it.
func TestBareLoginToken(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		contentType, body, wantErr string
	}{
		"text":        {"text/plain; charset=UTF-8", "sess-1-secretish\n", ""},
		"JSON string": {"application/json", `"sess-1-secretish"`, ""},
		"object":      {"application/json", `{"token":"sess-1-secretish","user":"root"}`, ""},
		"two words":   {"text/plain", "Forbidden by policy sess-1-secretish", "not a session token"},
		"HTML":        {"text/html", "<html>sess-1-secretish</html>", "with an HTML page"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newProxiedPlatform(t, emulator.Options{})
			f.handle(routeAdminLogin, func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", tc.contentType)
				_, _ = w.Write([]byte(tc.body))
			})
			// The session it gave is good for the check and the logout.
			for _, route := range []string{"GET /api/v1/checksession", routeAdminLogout} {
				f.handle(route, func(w http.ResponseWriter, r *http.Request) {
					if r.Header.Get("token") != "sess-1-secretish" {
						writeProblem(w, 401, "admin/UNAUTHORIZED", "no session")
						return
					}
					writeJSON(w, map[string]any{"valid": true, "user": "root"})
				})
			}
			c := newTestClient(t, f.config())
			s, err := c.CheckSession(context.Background())
			if tc.wantErr == "" {
				if err != nil || !s.Valid {
					t.Fatalf("got %+v, %v", s, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), "secretish") ||
				strings.Contains(err.Error(), "Forbidden") {
				t.Fatalf("got %v, want an error with %q quoting nothing", err, tc.wantErr)
			}
		})
	}
}

// TestExpiredCredentialsAnswered403: a platform that answers an expired session or
// token with 403 instead of 401 gets one fresh login before the 403 is taken for a
// missing right; an account that lacks the right still gets the permission error
// (field report 1: "logged in but not an administrator" after a long apply).
func TestExpiredCredentialsAnswered403(t *testing.T) {
	t.Parallel()
	env, c := readingEnv(t, "forbiddenWhenExpired")
	if _, err := c.GetExternalAuthentication(env.ctx); err != nil {
		t.Fatal(err)
	}
	s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/a.sib"})
	if err != nil {
		t.Fatal(err)
	}
	env.emu.Expire(true, true)
	if _, err := c.GetExternalAuthentication(env.ctx); err != nil {
		t.Errorf("settings after the session expired: %v", err)
	}
	if _, err := c.GetScore(env.ctx, s.ID); err != nil {
		t.Errorf("a score after the token expired: %v", err)
	}
	if n := env.stats().Logins["admin"]; n != 2 {
		t.Errorf("%d administrator logins, want 2 (one fresh session after the 403)", n)
	}

	viewer := env.client(func(cfg *Config) {
		cfg.AdminUsername, cfg.AdminPassword = emulatortest.ViewerUsername, emulatortest.ViewerPassword
	})
	for i := range 2 { // with a fresh session, then with one held from before
		if _, err := viewer.GetExternalAuthentication(env.ctx); !IsForbidden(err) {
			t.Errorf("call %d of an account without the right: %v, want 403", i+1, err)
		}
	}
}

// TestRefusedLoginsAreHeldInEveryForm: a refused password grant (400, or 401 for the
// application credential) and a refused administrator login (401) are held for the
// process whatever form their body takes, RFC 6749's or the platform's own, RFC 9457
// problem+json, plain text or {"error": {"code", "message"}}: 20 concurrent calls and
// 20 more after them send one grant, or one login, and each gets the refusal, naming
// the OAuth error wherever the body names it. Before, a body not in RFC 6749's form was
// a generic 400, not held: each call after the first wave sent the grant again (21
// grants), and the administrator login again (21 logins).
func TestRefusedLoginsAreHeldInEveryForm(t *testing.T) {
	t.Parallel()
	for _, form := range []struct{ reading, clientCode string }{
		{"", "invalid_client"},
		{"problemRefusals", "invalid_client"},
		{"textRefusals", ""},
		{"nestedRefusals", "invalid_client"},
	} {
		name := form.reading
		if name == "" {
			name = "contract"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var readings emulator.Readings
			if form.reading != "" {
				if err := readings.Set(form.reading); err != nil {
					t.Fatal(err)
				}
			}
			for _, tc := range []struct {
				what   string
				mutate func(*Config)
				call   func(c *Client, ctx context.Context) error
				route  string
				check  func(err error) bool
			}{
				{"wrong password", func(cfg *Config) { cfg.Password = "wrong-platform" },
					func(c *Client, ctx context.Context) error { _, err := c.GetScore(ctx, "any"); return err },
					"POST /auth/oauth2/ropc/default", func(err error) bool {
						var oe *OAuthError
						return errors.As(err, &oe) && oe.Status == http.StatusBadRequest &&
							(oe.ErrorCode == "invalid_grant" || form.reading == "textRefusals" && oe.ErrorCode == "") &&
							strings.Contains(oe.Description, "unknown user or wrong password")
					}},
				{"wrong client secret", func(cfg *Config) { cfg.ClientSecret = "wrong-secret" },
					func(c *Client, ctx context.Context) error { _, err := c.GetScore(ctx, "any"); return err },
					"POST /auth/oauth2/ropc/default", func(err error) bool {
						var oe *OAuthError
						return errors.As(err, &oe) && oe.Status == http.StatusUnauthorized && oe.ErrorCode == form.clientCode
					}},
				{"wrong admin password", func(cfg *Config) { cfg.AdminPassword = "wrong-admin" },
					func(c *Client, ctx context.Context) error { _, err := c.CheckSession(ctx); return err },
					"POST /api/v1/login", func(err error) bool {
						// The platform's words, in whatever form they came.
						return IsAdminLoginRefused(err) && strings.Contains(err.Error(), "unknown user or wrong password")
					}},
			} {
				env := newEmuEnv(t, emulator.Options{Faults: emulator.Faults{Readings: readings}})
				c := env.client(tc.mutate)
				var wg sync.WaitGroup
				for range 20 {
					wg.Go(func() {
						if err := tc.call(c, env.ctx); !tc.check(err) {
							t.Errorf("%s, concurrent: got %v, want the refusal", tc.what, err)
						}
					})
				}
				wg.Wait()
				for range 20 {
					if err := tc.call(c, env.ctx); !tc.check(err) {
						t.Errorf("%s, after: got %v, want the refusal", tc.what, err)
					}
				}
				if n := env.stats().Requests[tc.route]; n != 1 {
					t.Errorf("%s: %s sent %d times, want 1", tc.what, tc.route, n)
				}
			}
		})
	}
}

// TestIdentityProviderKindInAnyCase: an identity provider of kind "OAuth" or "OAUTH"
// is the oauth provider the specification names (rule 20), and its password grant is
// used.
func TestIdentityProviderKindInAnyCase(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"OAuth", "OAUTH"} {
		p := newProxiedPlatform(t, emulator.Options{})
		p.proxy.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/auth/identity-providers$`, Body: func(b []byte) []byte {
			return []byte(strings.ReplaceAll(string(b), `"kind":"oauth"`, `"kind":"`+kind+`"`))
		}})
		c := newTestClient(t, p.config())
		if _, err := c.ListScores(context.Background(), ListScoresInput{}); err != nil {
			t.Errorf("kind %s: %v", kind, err)
		}
		if n := p.count(routeGrant); n != 1 {
			t.Errorf("kind %s: %d password grants, want 1", kind, n)
		}
	}
}

// TestCheckBasicToken_agreesWithThePlatform: the check of basic_token passes a value
// (no problem, no warning) exactly when the emulator grants a token for it. The cases
// are the product of the ways a pasted token goes wrong: its prefix, the whitespace
// around it, what was encoded (a line break from `echo`, no ':'), and how (padded or
// not, URL-safe, wrapped by `base64`, not at all).
func TestCheckBasicToken_agreesWithThePlatform(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	pair := emulatortest.ClientID + ":" + emulatortest.ClientSecret
	encoders := map[string]func(string) string{
		"standard":  func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) },
		"unpadded":  func(s string) string { return base64.RawStdEncoding.EncodeToString([]byte(s)) },
		"url-safe":  func(s string) string { return base64.URLEncoding.EncodeToString([]byte(s)) },
		"unencoded": func(s string) string { return s },
		"wrapped": func(s string) string {
			e := base64.StdEncoding.EncodeToString([]byte(s))
			return e[:len(e)/2] + "\n" + e[len(e)/2:]
		},
	}
	for _, prefix := range []string{"", "Basic ", "basic ", "BASIC  "} {
		for _, space := range []string{"", " ", "\n", "\t"} {
			for _, encoded := range []string{pair, pair + "\n", pair + "\r\n", strings.Replace(pair, ":", "", 1)} {
				for how, encode := range encoders {
					value := space + prefix + encode(encoded) + space
					problem, warning := CheckBasicToken(value)
					c := env.client(func(c *Config) { c.ClientID, c.ClientSecret, c.BasicToken = "", "", value })
					_, err := c.GrantAccessToken(env.ctx)
					if passed, granted := problem == "" && warning == "", err == nil; passed != granted {
						t.Errorf("%s encoding of %q with prefix %q and %q around it: the check says problem %q, warning %q; "+
							"the platform's grant: %v", how, encoded, prefix, space, problem, warning, err)
					}
					if strings.Contains(problem+warning, emulatortest.ClientSecret) {
						t.Errorf("the check quotes the secret: %s %s", problem, warning)
					}
				}
			}
		}
	}
}
