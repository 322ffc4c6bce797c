package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// TestAccScore_aliasAtTheTopLevel: a platform that answers the alias as a top-level
// scoreId (the specification's score table lists it beside id and status), not under
// publisher (reading topLevelScoreId). A score created with score_id keeps it in the
// state, the plan after the apply is empty, the data sources read it by alias and
// find it in a list, and an import by alias holds the same state.
func TestAccScore_aliasAtTheTopLevel(t *testing.T) {
	t.Parallel()
	emu := newTestEmulatorWith(t, "a platform that answers the alias at the top level", emulator.Options{
		RenderDelay: testRenderDelay,
		Faults:      emulator.Faults{Readings: emulator.Readings{TopLevelScoreID: true}},
	})
	ids := scoreIDs{}
	alias := "top-" + accName()
	config := emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "aliased" {
  score_url = %[1]q
  score_id  = %[2]q
}
data "mediaplatform_score" "by_alias" {
  id = mediaplatform_score.aliased.score_id
}
data "mediaplatform_scores" "by_alias" {
  depends_on = [mediaplatform_score.aliased]
  score_url  = %[1]q
}
`, accScoreURL(alias), alias)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		CheckDestroy:             checkScoresGone(t, emu, ids),
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("mediaplatform_score.aliased", tfjsonpath.New("score_id"), knownvalue.StringExact(alias)),
					statecheck.ExpectKnownValue("data.mediaplatform_score.by_alias", tfjsonpath.New("score_id"), knownvalue.StringExact(alias)),
					statecheck.ExpectKnownValue("data.mediaplatform_scores.by_alias", tfjsonpath.New("scores").AtSliceIndex(0).AtMapKey("score_id"),
						knownvalue.StringExact(alias)),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: ids.record("mediaplatform_score.aliased"),
			},
			{
				ResourceName:            "mediaplatform_score.aliased",
				ImportState:             true,
				ImportStateId:           alias,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"timeouts"},
			},
		},
	})
}
