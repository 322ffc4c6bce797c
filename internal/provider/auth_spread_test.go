package provider

// Failures of the credential flow that many calls share (issue 41): a stuck identity
// provider or administrator login is met once for the whole run, and token-flow
// links that move under a running provider are discovered again.

import (
	"fmt"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// stuckRetries is max_retries in the stuck-login tests: a whole plan may send at most
// stuckRetries+1 logins, however many objects it reads.
const stuckRetries = 2

// stuckSettings are the provider arguments of the stuck-login tests.
var stuckSettings = fmt.Sprintf("request_timeout = \"2s\"\n  max_retries = %d", stuckRetries)

// TestAccAuthSpread_stuckGrantIsMetOnce: an identity provider that accepts the
// connection and never answers the password grant costs a plan of 24 scores one
// grant's attempts, not two attempts a score one after another (48 grants over 98 s
// before): every read that waits for the token shares the grant's outcome, and a
// read that comes after it was reported fails at once with the same lead.
func TestAccAuthSpread_stuckGrantIsMetOnce(t *testing.T) {
	t.Parallel()
	emu, proxy := newProxiedTestEmulator(t, "a stuck identity provider")
	const scores = 24
	config := providerConfigPlus(emu, stuckSettings) + fmt.Sprintf(`
resource "mediaplatform_score" "many" {
  count              = %d
  score_url          = "https://cdn.example/stuck-grant/${count.index}.sib"
  wait_for_rendering = false
}
`, scores)
	grant := `/ropc/default$`
	var before int
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{
			{Config: config},
			{
				PreConfig: func() {
					before = proxy.Count(http.MethodPost, grant)
					proxy.Add(faultproxy.Fault{Method: http.MethodPost, Path: grant, Latency: time.Hour})
				},
				Config:   config,
				PlanOnly: true,
				ExpectError: errorPattern("Nothing answered at", "(from platform_url) within 2s",
					fmt.Sprintf("max_retries = %d", stuckRetries)),
			},
			{
				PreConfig: func() {
					if n := proxy.Count(http.MethodPost, grant) - before; n > stuckRetries+1 {
						t.Errorf("the plan of %d scores sent %d token grants to the stuck identity provider, want at most "+
							"max_retries + 1 = %d for the whole plan", scores, n, stuckRetries+1)
					}
					proxy.Clear()
				},
				Config:   config,
				PlanOnly: true,
			},
		},
	})
}

// TestAccAuthSpread_stuckAdminLoginIsMetOnce: the administrator login shares its
// outcome the same way: twelve reads of the external authentication settings
// against a login that never answers send at most max_retries + 1 logins.
func TestAccAuthSpread_stuckAdminLoginIsMetOnce(t *testing.T) {
	t.Parallel()
	emu, proxy := newProxiedTestEmulator(t, "a stuck administrator login")
	const reads = 12
	config := providerConfigPlus(emu, stuckSettings) + fmt.Sprintf(`
data "mediaplatform_external_authentication" "many" {
  count = %d
}
`, reads)
	login := regexp.QuoteMeta(emu.control(t, "the administrator API's path").AdminURL("")) + `/login$`
	proxy.Add(faultproxy.Fault{Method: http.MethodPost, Path: login, Latency: time.Hour})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: config,
			ExpectError: errorPattern("Nothing answered at", "(from admin_url) within 2s",
				fmt.Sprintf("max_retries = %d", stuckRetries)),
		}},
	})
	if n := proxy.Count(http.MethodPost, login); n > stuckRetries+1 {
		t.Errorf("%d reads sent %d administrator logins to the stuck login, want at most max_retries + 1 = %d for the "+
			"whole run", reads, n, stuckRetries+1)
	}
}
