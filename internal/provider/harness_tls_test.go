package provider

import (
	"encoding/pem"
	"net/http/httptest"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// newTLSTestEmulator serves an emulator over HTTPS with httptest's certificate and
// returns it with that certificate as PEM.
func newTLSTestEmulator(t *testing.T) (*testEmulator, string) {
	t.Helper()
	if externalPlatform != nil {
		t.Skip("needs the emulator's control surface: a TLS listener with a certificate of its own")
	}
	emu := emulator.New(emulator.Options{RenderDelay: testRenderDelay})
	srv := httptest.NewTLSServer(emu)
	t.Cleanup(srv.Close)
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	return servedTestEmulator(t, emu, srv.URL), string(certPEM)
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
