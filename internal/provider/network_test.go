package provider

import (
	"net"
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
