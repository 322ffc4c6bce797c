package client

// Credentials go only to the platform: a tampered token flow, echoed secrets, and
// documents that are not commands.

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// setLink returns a body rewrite that points the HAL link rel of a document at target.
func setLink(t *testing.T, rel, target string) func([]byte) []byte {
	return func(b []byte) []byte {
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Errorf("not a JSON document: %s", b)
			return b
		}
		link := []any{map[string]any{"href": target, "name": "current"}}
		if links, ok := doc["_links"].(map[string]any); ok {
			links[rel] = link
		}
		if emb, ok := doc["_embedded"].(map[string]any); ok { // identity providers
			providers, _ := emb["auth:identity-provider"].([]any)
			for _, p := range providers {
				if links, ok := p.(map[string]any)["_links"].(map[string]any); ok && links[rel] != nil {
					links[rel] = link
				}
			}
		}
		out, _ := json.Marshal(doc)
		return out
	}
}

func TestTokenFlowLinksStayOnThePlatform(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ path, rel string }{
		{`/auth$`, "auth:identity-providers"},
		{`/auth$`, "auth:token"},
		{`/auth/identity-providers$`, "auth:ropc-default"},
		{`/auth/tokens/current$`, "auth-token:extend"},
		{`/auth/tokens/current$`, "auth-token:removal"},
	} {
		t.Run(tc.rel, func(t *testing.T) {
			t.Parallel()
			env := newEmuEnv(t, emulator.Options{})
			rec := faultproxy.StartRecorder()
			t.Cleanup(rec.Close)
			p := faultproxy.Start(env.srv.URL)
			t.Cleanup(p.Close)
			cfg := env.config()
			cfg.AdminURL, cfg.PlatformURL = env.emu.AdminURL(p.URL), env.emu.PlatformURL(p.URL)
			c, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			p.Add(faultproxy.Fault{Method: http.MethodGet, Path: tc.path, Body: setLink(t, tc.rel, rec.URL+"/steal")})

			_, err = c.ListScores(env.ctx, ListScoresInput{})
			if strings.HasPrefix(tc.rel, "auth-token:") {
				// The token works; its links are refused when they are needed.
				if err != nil {
					t.Fatalf("list: %v", err)
				}
				_, err = c.ExtendAccessToken(env.ctx, c.token.peek())
				if cerr := c.Close(env.ctx); err == nil {
					err = cerr
				}
			} else {
				_ = c.Close(env.ctx)
			}
			var foreign *ForeignHostError
			if !errors.As(err, &foreign) || !strings.Contains(err.Error(), rec.URL) {
				t.Errorf("want an error refusing %s, got %v", rec.URL, err)
			}
			if got := rec.Requests(); len(got) != 0 {
				t.Errorf("the foreign host received %d requests", len(got))
			}
		})
	}
}

func TestEchoedSecretsAreMasked(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c, p := env.proxiedClient()
	// A gateway that echoes the login form in its error; a token endpoint that quotes
	// the password in its description.
	p.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/login$`, Respond: &faultproxy.Answer{
		Status: 400, Header: http.Header{"Content-Type": {"text/plain"}},
		Body: "bad request: user=admin&pass=" + emulatortest.AdminPassword + "&r=createsession",
	}})
	p.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/ropc/default$`, Respond: &faultproxy.Answer{
		Status: 400, Header: http.Header{"Content-Type": {"application/json"}},
		Body: `{"error":"invalid_grant","error_description":"password ` + emulatortest.Password + ` is wrong for alice"}`,
	}})
	_, adminErr := c.GetExternalAuthentication(env.ctx)
	_, platformErr := c.ListScores(env.ctx, ListScoresInput{})
	for name, err := range map[string]error{"admin": adminErr, "platform": platformErr} {
		if err == nil {
			t.Fatalf("%s: no error", name)
		}
		for _, secret := range []string{emulatortest.AdminPassword, emulatortest.Password} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("%s error shows a secret: %v", name, err)
			}
		}
		if !strings.Contains(err.Error(), "***") {
			t.Errorf("%s error: want the echoed secret masked, got %v", name, err)
		}
	}
	// The logs are checked for every secret when the test ends (emuEnv.checkLogs).
}

func TestAddressesArePrintedRedacted(t *testing.T) {
	t.Parallel()
	_, err := New(Config{AdminURL: "ftp://root:hunter2@host/api/v1"})
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("got %v", err)
	}
	c, err := New(Config{PlatformURL: "https://u:hunter2@host", AdminURL: "https://u:hunter2@host/api/v1"})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.maskText("answer: hunter2"); strings.Contains(got, "hunter2") {
		t.Errorf("a password in an address is not masked: %q", got)
	}
}
