package client

// Redirects: a call that carries a credential is never sent on to a Location, and
// the error names the target without its user information.

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

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

// TestRedirectWithoutCredentialIsFollowedOnTheSameOrigin: the discovery root, which
// carries no credential, answered 301 to /auth/ on the same origin (nginx in front of
// the platform, the reading authRootSlash) is followed once, and the token flow works.
func TestRedirectWithoutCredentialIsFollowedOnTheSameOrigin(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{Faults: emulator.Faults{Readings: emulator.Readings{AuthRootSlash: true}}})
	c := env.client()
	if _, err := c.ListScores(env.ctx, ListScoresInput{}); err != nil {
		t.Fatalf("ListScores behind a redirected /auth: %v", err)
	}
	st := env.stats()
	if root, slash := st.Requests["GET /auth"], st.Requests["GET /auth/{$}"]; root != 1 || slash != 1 {
		t.Errorf("GET /auth %d times and GET /auth/ %d times, want once each", root, slash)
	}
}

// TestRedirectWithoutCredentialIsBounded: a same-origin redirect loop of the
// discovery root is followed maxRedirects times, then reported as such.
func TestRedirectWithoutCredentialIsBounded(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Redirect(w, r, "/auth?again=1", http.StatusFound)
	}))
	t.Cleanup(srv.Close)
	c := newTestClient(t, Config{PublishingURL: srv.URL + "/pub", PlatformURL: srv.URL, ClientID: "a", ClientSecret: "b",
		Username: "u", Password: "p"})
	_, err := c.ListScores(context.Background(), ListScoresInput{})
	var redirect *RedirectError
	if !errors.As(err, &redirect) || redirect.Credentialed || !redirect.SameOrigin || redirect.Followed != maxRedirects {
		t.Fatalf("want a redirect error after %d followed redirects of a request without credentials, got %#v (%v)",
			maxRedirects, redirect, err)
	}
	if n := hits.Load(); n != maxRedirects+1 {
		t.Errorf("the server saw %d requests, want %d", n, maxRedirects+1)
	}
}

// TestRedirectWithoutCredentialToAnotherOriginIsRefused: the discovery root sent to
// another port is not followed, and the error says the request carried no credential.
func TestRedirectWithoutCredentialToAnotherOriginIsRefused(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	rec := faultproxy.StartRecorder()
	t.Cleanup(rec.Close)
	c, p := env.proxiedClient()
	p.Add(faultproxy.Fault{Path: `/auth$`, Respond: faultproxy.Redirect(rec.URL + "/auth/")})
	_, err := c.ListScores(env.ctx, ListScoresInput{})
	var redirect *RedirectError
	if !errors.As(err, &redirect) || redirect.Credentialed || redirect.SameOrigin {
		t.Fatalf("want a redirect error of a request without credentials to another origin, got %v", err)
	}
	if got := rec.Requests(); len(got) != 0 {
		t.Errorf("the other origin received %d requests", len(got))
	}
}

// TestRedirectToLoginPageIsAnExpiredSession: an administrator call whose session
// expired is answered 302 to the login page (the reading loginRedirects): the client
// logs in once more and repeats the call, and the exit logs the new session out.
func TestRedirectToLoginPageIsAnExpiredSession(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{Faults: emulator.Faults{Readings: emulator.Readings{LoginRedirects: true}}})
	c, err := New(env.config())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetExternalAuthentication(env.ctx); err != nil {
		t.Fatal(err)
	}
	env.emu.Expire(false, true)
	if _, err := c.GetExternalAuthentication(env.ctx); err != nil {
		t.Fatalf("after the session expired: %v", err)
	}
	st := env.stats()
	if st.Logins["admin"] != 2 || st.Requests["GET /api/v1/externalauth"] != 3 {
		t.Errorf("%d logins and %d reads of the settings, want 2 and 3", st.Logins["admin"], st.Requests["GET /api/v1/externalauth"])
	}
	if err := c.Close(env.ctx); err != nil {
		t.Errorf("Close: %v", err)
	}
	if live := env.stats().LiveSessions; live != 0 {
		t.Errorf("%d sessions live after Close", live)
	}
}

// TestRedirectToLoginPageOfAGivenSession: the exit's logout of a session the platform
// no longer knows, answered by its login page, counts as logged out.
func TestRedirectToLoginPageOfAGivenSession(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{Faults: emulator.Faults{Readings: emulator.Readings{LoginRedirects: true}}})
	c, err := New(env.config())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetExternalAuthentication(env.ctx); err != nil {
		t.Fatal(err)
	}
	env.emu.Expire(false, true)
	if err := c.Close(env.ctx); err != nil {
		t.Errorf("Close of an expired session answered by the login page: %v", err)
	}
}

// TestRedirectOfTokenToLoginPage: a platform call redirected on its host to a login
// page is an expired token: the client takes a new one and repeats the call once; a
// second redirect is reported, saying the request carried credentials.
func TestRedirectOfTokenToLoginPage(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c, p := env.proxiedClient()
	if _, err := c.ListScores(env.ctx, ListScoresInput{}); err != nil {
		t.Fatal(err)
	}
	p.Add(faultproxy.Fault{Path: `/scores$`, Times: 1, Respond: faultproxy.Redirect(p.URL + "/auth/login?next=/scores")})
	if _, err := c.ListScores(env.ctx, ListScoresInput{}); err != nil {
		t.Fatalf("after one redirect to the login page: %v", err)
	}
	if n := env.stats().Logins["oauth"]; n != 2 {
		t.Errorf("%d token grants, want 2", n)
	}
	p.Add(faultproxy.Fault{Path: `/scores$`, Respond: faultproxy.Redirect(p.URL + "/auth/login")})
	_, err := c.ListScores(env.ctx, ListScoresInput{})
	var redirect *RedirectError
	if !errors.As(err, &redirect) || !redirect.Credentialed || !redirect.LoginPage {
		t.Fatalf("want a redirect error of a credentialed request to the login page, got %v", err)
	}
}

// TestLoginPage: the login pages of the common form logins, and what is none.
func TestLoginPage(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]bool{
		"/login": true, "/api/v1/login": true, "/accounts/login/": true, "/Account/Login": true, "/login.jsp": true,
		"/auth/signin": true, "/logon.aspx": true, "/api/v1/externalauth/": false, "/auth/": false, "/loginhelp": false,
		"/scores/login-page": false,
	} {
		if got := loginPage(&url.URL{Path: path}); got != want {
			t.Errorf("%s: %v, want %v", path, got, want)
		}
	}
}

// TestAdminRedirectElsewhereOnItsHost: an administrator call redirected on its host,
// not to a login page (a slash added), is taken once for an expired session (one more
// login), then reported as a redirect of a credentialed request, not as a login page.
func TestAdminRedirectElsewhereOnItsHost(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c, p := env.proxiedClient()
	p.Add(faultproxy.Fault{Path: `/externalauth$`, Respond: faultproxy.Redirect(p.URL + "/api/v1/externalauth/")})
	_, err := c.GetExternalAuthentication(env.ctx)
	var redirect *RedirectError
	if !errors.As(err, &redirect) || !redirect.Credentialed || !redirect.SameOrigin || redirect.LoginPage {
		t.Fatalf("want a same-origin redirect of a credentialed request, not a login page, got %#v", redirect)
	}
	if n := env.stats().Logins["admin"]; n != 2 {
		t.Errorf("%d logins, want 2 (one more for the redirect taken as an expired session)", n)
	}
}
