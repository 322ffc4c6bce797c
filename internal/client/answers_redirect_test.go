package client

// Redirects: a call that carries a credential is never sent on to a Location, and
// the error names the target without its user information.

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
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
