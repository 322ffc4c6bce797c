package provider

import (
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/acctest"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// newProxiedTestEmulator starts an emulator of the test's own behind a fault-injecting
// proxy: the provider configuration and the test's client name the proxy, so every
// request (the token flow's hrefs included) passes through it, while the returned
// testEmulator's control surface reaches the emulator directly. what names the
// faults the test needs; on an external platform the test is skipped.
func newProxiedTestEmulator(t *testing.T, what string) (*testEmulator, *faultproxy.Proxy) {
	t.Helper()
	return newProxiedTestEmulatorWith(t, what, emulator.Options{RenderDelay: testRenderDelay})
}

// newProxiedTestEmulatorWith is newProxiedTestEmulator with the emulator's options.
func newProxiedTestEmulatorWith(t *testing.T, what string, opts emulator.Options) (*testEmulator, *faultproxy.Proxy) {
	t.Helper()
	if externalPlatform != nil {
		t.Skip("needs the emulator's control surface: " + what)
	}
	target, p := acctest.StartProxied(t, opts)
	return servedTestEmulator(t, target.Emulator, target.URL), p
}
