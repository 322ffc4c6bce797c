package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// TestAccField_deleteAcceptedReplacesAnAliasedScore: on a platform that answers a
// delete 202 Accepted and keeps the score (and its alias) for a while, replacing an
// aliased score (a new score_url) succeeds: the delete returns once the score is gone
// (issue 36 item 7; before, the create met a 409 and the advice to import the score
// being deleted).
func TestAccField_deleteAcceptedReplacesAnAliasedScore(t *testing.T) {
	t.Parallel()
	emu := newTestEmulatorWith(t, "a platform that accepts deletes", emulator.Options{RenderDelay: testRenderDelay})
	emu.control(t, "readings").SetFaults(emulator.Faults{Readings: emulator.Readings{DeleteAccepted: true}})
	alias := "accepted-" + accName()
	config := func(url string) string {
		return emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "aliased" {
  score_url          = %q
  score_id           = %q
  wait_for_rendering = false
}
`, url, alias)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{
			{Config: config(accScoreURL(alias))},
			{
				Config: config(accScoreURL(alias + "-2")),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("mediaplatform_score.aliased", plancheck.ResourceActionReplace)},
				},
			},
		},
	})
}
