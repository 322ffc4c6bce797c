package provider

// IPv6: the platform at [::1], writing its own address in its links in another
// spelling of the same host, and an authentication server written in brackets.

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// respelledHost serves next and writes every "[::1]" of its answers (bodies and
// Location) as "[0:0:0:0:0:0:0:1]": a platform that spells its own address in full.
type respelledHost struct{ next http.Handler }

func (h respelledHost) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := httptest.NewRecorder()
	h.next.ServeHTTP(rec, r)
	body := bytes.ReplaceAll(rec.Body.Bytes(), []byte("[::1]"), []byte("[0:0:0:0:0:0:0:1]"))
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	if loc := w.Header().Get("Location"); loc != "" {
		w.Header().Set("Location", string(bytes.ReplaceAll([]byte(loc), []byte("[::1]"), []byte("[0:0:0:0:0:0:0:1]"))))
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(rec.Code)
	_, _ = w.Write(body)
}

// TestAccNetwork_ipv6: plan, apply, a second plan and destroy against a platform at
// http://[::1]:P whose links name http://[0:0:0:0:0:0:0:1]:P (the same host: logins
// go through), with an authentication server written [fd00::10].
func TestAccNetwork_ipv6(t *testing.T) {
	t.Parallel()
	l, err := (&net.ListenConfig{}).Listen(t.Context(), "tcp", "[::1]:0")
	if err != nil {
		t.Skipf("no IPv6 loopback on this machine: %v", err)
	}
	emu := emulator.New(emulator.Options{RenderDelay: testRenderDelay})
	srv := httptest.NewUnstartedServer(respelledHost{emu})
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		if s := emu.Stats(); s.LiveSessions != 0 || s.LiveTokens != 0 {
			t.Errorf("%d live sessions and %d live tokens left", s.LiveSessions, s.LiveTokens)
		}
	})
	target := servedTestEmulator(t, emu, srv.URL)
	config := target.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_external_authentication" "test" {
  domain_name = "CORP"
  enabled     = true
  servers     = [{ address = "[fd00::10]", port = 636 }, { address = "fd00::11", port = 389 }]
}
resource "mediaplatform_score" "test" {
  score_url = %q
}
`, accScoreURL("ipv6-"+accName()))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("mediaplatform_external_authentication.test", tfjsonpath.New("servers").AtSliceIndex(0).AtMapKey("address"),
						knownvalue.StringExact("[fd00::10]")),
					statecheck.ExpectKnownValue("mediaplatform_score.test", tfjsonpath.New("status"), knownvalue.StringExact("idle")),
				},
			},
		},
	})
}
