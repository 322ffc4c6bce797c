package provider

import (
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// TestAccNetwork_errorsLeadWithTheCause: a request that gets no answer leads with
// what happened, where, and the setting to check: a refused connection, and a
// platform that never answers (bounded to two attempts of request_timeout).
func TestAccNetwork_errorsLeadWithTheCause(t *testing.T) {
	t.Parallel()
	t.Run("connection refused", func(t *testing.T) {
		t.Parallel()
		emu := newTestEmulator(t)
		l, err := (&net.ListenConfig{}).Listen(t.Context(), "tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		closed := l.Addr().String()
		_ = l.Close()
		cfg := emu.config()
		cfg.PlatformURL = "http://" + closed
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testProviderFactories(t),
			Steps: []resource.TestStep{{
				Config:      providerBlock(cfg) + `data "mediaplatform_health" "test" {}`,
				ExpectError: errorPattern("Nothing accepts connections at " + closed + " (from platform_url): check platform_url"),
			}},
		})
	})
	t.Run("no answer", func(t *testing.T) {
		t.Parallel()
		emu, proxy := newProxiedTestEmulator(t, "a silent platform")
		proxy.Add(faultproxy.Fault{Path: `^/auth$`, Latency: time.Minute})
		start := time.Now()
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testProviderFactories(t),
			Steps: []resource.TestStep{{
				Config:      providerConfigPlus(emu, `request_timeout = "1s"`) + `data "mediaplatform_health" "test" {}`,
				ExpectError: errorPattern("Nothing answered at", "(from platform_url) within 1s × 2 attempt(s): check platform_url"),
			}},
		})
		if d := time.Since(start); d > 45*time.Second {
			t.Errorf("the failure took %v: the attempts were not bounded", d)
		}
	})
}

// TestAccErrors_leadWithTheCause: an answer the platform gave leads with its cause
// and the setting to fix, before the object that failed and the platform's words:
// credentials refused (platform token), permission (administrator API), a rate limit
// past the retry budget, and a server error.
func TestAccErrors_leadWithTheCause(t *testing.T) {
	t.Parallel()
	problem := func(status int, code string) *faultproxy.Answer {
		return &faultproxy.Answer{
			Status: status,
			Header: http.Header{"Content-Type": {"application/problem+json"}, "Retry-After": {"3600"}},
			Body:   fmt.Sprintf(`{"status": %d, "code": %q, "message": "injected"}`, status, code),
		}
	}
	for _, tc := range []struct {
		name   string
		answer *faultproxy.Answer
		lead   string
	}{
		{"credentials refused", problem(http.StatusUnauthorized, "auth/UNAUTHORIZED"),
			"The platform did not accept the access token of the platform user `username`, even after a fresh login. Check username, password"},
		{"permission", problem(http.StatusForbidden, "publishing/FORBIDDEN"),
			"The platform refused the operation (HTTP 403): the credentials are valid but not allowed to do this."},
		{"rate limit", problem(http.StatusTooManyRequests, "publishing/TOO_MANY_REQUESTS"),
			"The platform is limiting the request rate (HTTP 429) and asked for a longer wait than the provider spends on retries."},
		{"server error", problem(http.StatusInternalServerError, "publishing/INTERNAL"),
			"The platform failed with HTTP 500, a fault on its side rather than in the configuration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			emu, proxy := newProxiedTestEmulator(t, "an answer with a cause")
			proxy.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/scores/lead-`, Respond: tc.answer})
			if tc.answer.Status == http.StatusUnauthorized {
				// The injected 401 declared the first token dead, so the provider rightly
				// did not remove it; the emulator never heard that: expire it there.
				t.Cleanup(func() { emu.control(t, "expiring the token the 401 declared dead").Expire(true, false) })
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testProviderFactories(t),
				Steps: []resource.TestStep{{
					Config:      emu.providerConfig() + `data "mediaplatform_score" "test" { id = "lead-1" }`,
					ExpectError: errorPattern("Unable to read score", tc.lead, `Score "lead-1" could not be read`, "Error:"),
				}},
			})
		})
	}
}
