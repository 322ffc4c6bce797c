package provider

import (
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/testca"
)

// gatewayHeader is the access header the test gateway demands.
const gatewayHeader, gatewaySecret = "CF-Access-Client-Secret", "gw-7f3a9c1e5b"

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
	opts.Faults.ClientCACertPEM = ca.PEM
	opts.Faults.RequireHeader = &emulator.HeaderRequirement{Name: gatewayHeader, Value: gatewaySecret}
	srv := emulatortest.StartTLS(t, opts)
	return servedTestEmulator(t, srv.Emulator, srv.URL), srv.CertPEM()
}
