package client

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

func TestAdminLoginFailureIsNotRetried(t *testing.T) {
	t.Parallel()
	f := newProxiedPlatform(t, emulator.Options{})
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
	if n := f.count(routeAdminLogin); n != 1 {
		t.Errorf("logins %d, want 1", n)
	}
	if strings.Contains(err.Error(), "wrong-admin-pass") {
		t.Errorf("message leaks the password: %v", err)
	}
}

// TestSessionTokenInEveryPlace: the login's session token is read from its body in
// every form, and from the response header `token` when the body holds none (rule
// 18); an answer with neither is "no session token", and no error quotes a token.
func TestSessionTokenInEveryPlace(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		body, header, want, wantErr string
	}{
		"header, no body":          {"", "sess-h-secretish", "sess-h-secretish", ""},
		"header, empty object":     {`{}`, "sess-h-secretish", "sess-h-secretish", ""},
		"header, user only":        {`{"user":"admin"}`, " sess-h-secretish ", "sess-h-secretish", ""},
		"header, token not string": {`{"token":7}`, "sess-h-secretish", "sess-h-secretish", ""},
		"body and header":          {`{"token":"sess-b-secretish"}`, "sess-h-secretish", "sess-b-secretish", ""},
		"body only":                {`"sess-b-secretish"`, "", "sess-b-secretish", ""},
		"neither, no body":         {"", "", "", "no session token, neither in a body nor in the header token"},
		"neither, object":          {`{"user":"admin"}`, "", "", "no session token, neither in its body nor in the header token"},
		"header of two words":      {"", "sess-h-secretish and more", "", "not a session token"},
	} {
		h := http.Header{}
		if tc.header != "" {
			h.Set("token", tc.header)
		}
		got, err := sessionToken([]byte(tc.body), h)
		if tc.wantErr == "" {
			if err != nil || got != tc.want {
				t.Errorf("%s: %q, %v; want %q", name, got, err, tc.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), "secretish") {
			t.Errorf("%s: %q, %v; want an error with %q quoting nothing", name, got, err, tc.wantErr)
		}
	}
}

// TestLoginTokenInTheHeader: on a platform whose login answers no body and the
// session token in the header `token` (switch loginTokenHeader), the settings are read
// and written in one session, and the exit logs it out.
func TestLoginTokenInTheHeader(t *testing.T) {
	t.Parallel()
	env, c := readingEnv(t, "loginTokenHeader")
	want := ExternalAuthentication{DomainName: "CORP", Enabled: true, Servers: []AuthServer{{"dc1.corp.example", 636, true}}}
	if _, err := c.PutExternalAuthentication(env.ctx, want); err != nil {
		t.Fatal(err)
	}
	got, err := c.GetExternalAuthentication(env.ctx)
	if err != nil || got.DomainName != "CORP" || !got.Enabled {
		t.Fatalf("settings %+v, %v", got, err)
	}
	if s, err := c.CheckSession(env.ctx); err != nil || !s.Valid {
		t.Fatalf("session check %+v, %v", s, err)
	}
	if err := c.Close(env.ctx); err != nil {
		t.Fatal(err)
	}
	if st := env.stats(); st.Logins["admin"] != 1 || st.LiveSessions != 0 {
		t.Errorf("logins %v, live sessions %d; want 1 login, none live after the exit", st.Logins, st.LiveSessions)
	}
}
