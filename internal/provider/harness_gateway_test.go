package provider

import (
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/acctest"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/testca"
)

// gatewayHeader is the access header the test gateway demands.
const gatewayHeader, gatewaySecret = acctest.GatewayHeader, acctest.GatewaySecret

// newGatewayEmulator serves an emulator over TLS behind a gateway that demands a
// client certificate of ca and the access header, and returns it with its server
// certificate (for ca_cert_pem).
func newGatewayEmulator(t *testing.T, ca *testca.CA) (*testEmulator, string) {
	return newGatewayEmulatorRendering(t, ca, testRenderDelay)
}

// newGatewayEmulatorRendering is newGatewayEmulator with scores that render for
// renderDelay a state.
func newGatewayEmulatorRendering(t *testing.T, ca *testca.CA, renderDelay time.Duration) (*testEmulator, string) {
	return newGatewayEmulatorWith(t, ca, emulator.Options{RenderDelay: renderDelay})
}

// newGatewayEmulatorWith is newGatewayEmulator with the emulator's other options.
func newGatewayEmulatorWith(t *testing.T, ca *testca.CA, opts emulator.Options) (*testEmulator, string) {
	t.Helper()
	if externalPlatform != nil {
		t.Skip("needs the emulator's control surface: a gateway demanding a client certificate and a header")
	}
	target, certPEM := acctest.StartGateway(t, ca, opts)
	return servedTestEmulator(t, target.Emulator, target.URL), certPEM
}
