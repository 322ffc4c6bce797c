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
