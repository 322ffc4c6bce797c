package provider

import (
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// TestAccDataSourceScore_laggingReads: on a platform whose reads lag its writes, a
// data source reads a score published moments ago (by a resource of the same apply) at
// once, by alias and by UUID. A 404 for a score that young is read again, as the
// resource's refresh does, before the data source calls it absent: the apply
// succeeds, and so does the plan Terraform's test driver makes right after it (a new
// process, within the lag). Before, the apply failed with "Score not found".
func TestAccDataSourceScore_laggingReads(t *testing.T) {
	t.Parallel()
	for name, strategy := range map[string]string{"one GET a score": "individual", "batched listing": "auto"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			emu := newTestEmulatorWith(t, "lagging reads", emulator.Options{
				RenderDelay: testRenderDelay, Faults: emulator.Faults{LaggingReadsMs: laggingReadMs},
			})
			ctl := emu.control(t, "lagging reads")
			alias := "lag-" + accName()
			start := time.Now()
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testProviderFactories(t),
				Steps: []resource.TestStep{{
					Config: providerConfigPlus(emu, fmt.Sprintf("refresh_strategy = %q", strategy)) + fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url          = %[1]q
  score_id           = %[2]q
  wait_for_rendering = false
}
data "mediaplatform_score" "by_alias" {
  id = mediaplatform_score.test.score_id
}
data "mediaplatform_score" "by_uuid" {
  id = mediaplatform_score.test.id
}
`, accScoreURL(alias), alias),
					ConfigStateChecks: []statecheck.StateCheck{
						dsExpect("data.mediaplatform_score.by_alias", "score_id", knownvalue.StringExact(alias)),
						dsExpect("data.mediaplatform_score.by_uuid", "score_id", knownvalue.StringExact(alias)),
					},
					Check: func(*terraform.State) error {
						t.Logf("refresh_strategy %s: applied in %s, %d reads met the lag", strategy,
							time.Since(start).Round(time.Millisecond), ctl.LaggedReads())
						return wantScores(ctl, 1)(nil)
					},
				}},
			})
			if ctl.LaggedReads() == 0 {
				t.Fatalf("no read met the emulator's lag of %d ms: the test proves nothing", laggingReadMs)
			}
		})
	}
}
