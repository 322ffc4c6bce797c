package client

// The platform token flow: OAuth errors, one fresh login on 401, extension, one
// shared login, separate tokens.

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
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

func TestConcurrentFirstCallsShareOneLogin(t *testing.T) {
	t.Parallel()
	f := newProxiedPlatform(t, emulator.Options{})
	publishDirect(t, f, "s1")
	f.proxy.Add(faultproxy.Fault{Method: http.MethodGet, Path: "/scores/s1$", Latency: 5 * time.Millisecond})
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
	if g, d, l := f.count(routeGrant), f.count("GET /auth"), f.count(routeAdminLogin); g != 1 || d != 1 || l != 1 {
		t.Errorf("grants %d discoveries %d admin logins %d, want 1 each", g, d, l)
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
