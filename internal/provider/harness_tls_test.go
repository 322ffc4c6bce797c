package provider

import (
	"crypto/tls"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"
)

// newTLSTestEmulator serves an emulator over HTTPS with httptest's certificate and
// returns it with that certificate as PEM.
func newTLSTestEmulator(t *testing.T) (*testEmulator, string) {
	t.Helper()
	if externalPlatform != nil {
		t.Skip("needs the emulator's control surface: a TLS listener with a certificate of its own")
	}
	// httptest's own certificate: a TLS configuration without one.
	srv := emulatortest.ServeTLS(t, emulator.New(emulator.Options{RenderDelay: testRenderDelay}), &tls.Config{MinVersion: tls.VersionTLS12})
	return servedTestEmulator(t, srv.Emulator, srv.URL), srv.CertPEM()
}

const tlsTestResources = `
resource "mediaplatform_external_authentication" "test" {
  domain_name = "CORP"
  enabled     = true
}
resource "mediaplatform_score" "test" {
  score_url = "https://cdn.example/scores/tls.sib"
}
`
