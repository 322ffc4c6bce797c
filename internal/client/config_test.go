package client

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

func TestApplyEnv(t *testing.T) {
	t.Parallel()
	env := map[string]string{EnvAdminURL: "https://env/api/v1", EnvPassword: "env-pass", EnvPublishingService: "svc"}
	cfg := Config{AdminURL: "https://config/api/v1"}
	cfg.ApplyEnv(func(k string) string { return env[k] })
	if cfg.AdminURL != "https://config/api/v1" || cfg.Password != "env-pass" || cfg.PublishingService != "svc" {
		t.Errorf("ApplyEnv: %+v", cfg)
	}
}

func TestSurroundingSpace(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":           "",
		"secret":     "",
		"sec ret":    "",
		"secret\n":   "ends with a line break",
		"secret\r\n": "ends with a line break",
		" secret":    "starts with a space",
		"\tsecret\n": "starts with a tab and ends with a line break",
		"secret ":    "ends with a space",
		" \n":        "is nothing but whitespace",
	} {
		if got := SurroundingSpace(in); got != want {
			t.Errorf("SurroundingSpace(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSpacedCredentialsNamedOnlyWhenRefused: a password sent with its last line break
// is named in the error of a grant the platform refused, and not in one it could not
// serve (a 503 in RFC 6749's form), which says nothing about the password.
func TestSpacedCredentialsNamedOnlyWhenRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		answer *faultproxy.Answer
		want   []SpacedSetting
	}{
		{"refused", nil, []SpacedSetting{{Setting: "password", What: "ends with a line break"}}},
		{"unavailable", &faultproxy.Answer{Status: http.StatusServiceUnavailable, Header: http.Header{"Content-Type": {"application/json"}},
			Body: `{"error":"temporarily_unavailable"}`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newProxiedPlatform(t, emulator.Options{})
			if tc.answer != nil {
				f.proxy.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/ropc/default$`, Respond: tc.answer})
			}
			cfg := f.config()
			cfg.Password += "\n"
			cfg.MaxRetries = -1
			c, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.GrantAccessToken(context.Background())
			var oauthErr *OAuthError
			if !errors.As(err, &oauthErr) {
				t.Fatalf("the grant: %v, want an OAuthError", err)
			}
			if !reflect.DeepEqual(oauthErr.Spaced, tc.want) {
				t.Errorf("Spaced = %v, want %v (%v)", oauthErr.Spaced, tc.want, err)
			}
		})
	}
}
