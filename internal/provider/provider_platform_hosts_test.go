package provider

// The platform under another name: its token flow's links name a host platform_url
// does not (localhost where platform_url says 127.0.0.1). platform_hosts names it.

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// TestAccProviderPlatformHosts_anotherName: with the emulator's links naming
// localhost:P and platform_url http://127.0.0.1:P, a plan fails after one request
// (GET /auth, no grant) and its first sentence names the host found and
// platform_hosts; with platform_hosts = ["localhost:P"] the apply publishes the
// score and plans empty. Before, the lead blamed a misconfigured or tampered
// discovery document and named no setting that fixes it.
func TestAccProviderPlatformHosts_anotherName(t *testing.T) {
	t.Parallel()
	emu := newTestEmulatorWith(t, "links naming the platform localhost",
		emulator.Options{RenderDelay: testRenderDelay, AuthLinkHostName: "localhost"})
	ctl := emu.control(t, "request counts")
	u, err := url.Parse(emu.platformURL())
	if err != nil {
		t.Fatal(err)
	}
	named := "localhost:" + u.Port()
	score := fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url = %q
}
`, accScoreURL(accName()))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{
			{
				Config: emu.providerConfig() + score,
				ExpectError: errorPattern("The platform's token flow links to the host "+named+", which platform_url",
					fmt.Sprintf("add %q to platform_hosts (or MEDIAPLATFORM_PLATFORM_HOSTS)", named)),
			},
			{
				PreConfig: func() {
					st := ctl.Stats()
					t.Logf("without platform_hosts: %d requests (GET /auth %d), %d grants", requestTotal(st.Requests),
						st.Requests["GET /auth"], st.Requests["POST /auth/oauth2/ropc/default"])
					if st.Requests["GET /auth"] != 1 || st.Requests["POST /auth/oauth2/ropc/default"] != 0 {
						t.Errorf("without platform_hosts: %v, want GET /auth once and no grant", st.Requests)
					}
				},
				Config: providerConfigPlus(emu, fmt.Sprintf("platform_hosts = [%q]", named)) + score,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("mediaplatform_score.test", tfjsonpath.New("status"), knownvalue.StringExact("idle")),
				},
			},
		},
	})
}

// TestAccProviderPlatformHosts_checkedAtPlan: an entry with a path is refused at plan
// time, before any request.
func TestAccProviderPlatformHosts_checkedAtPlan(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: providerConfigPlus(emu, `platform_hosts = ["https://platform.example/auth"]`) + `
data "mediaplatform_health" "test" {}
`,
			ExpectError: errorPattern("platform_hosts", `"https://platform.example/auth" has a path`),
		}},
	})
	if ctl := emu.optionalControl(t, "that nothing was sent"); ctl != nil {
		if n := requestTotal(ctl.Stats().Requests); n != 0 {
			t.Errorf("%d requests before the plan-time check, want 0", n)
		}
	}
}

// requestTotal is the number of platform requests of a stats map.
func requestTotal(requests map[string]int) int {
	n := 0
	for route, c := range requests {
		if !strings.HasPrefix(route, "GET /_emulator") {
			n += c
		}
	}
	return n
}
