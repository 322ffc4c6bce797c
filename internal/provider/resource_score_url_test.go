package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// TestAccScore_normalizedScoreURL applies scores whose addresses are not in RFC 3986
// normal form on a platform that answers every scoreUrl in normal form (reading
// normalizedScoreUrl): the apply succeeds, the state keeps the configured spelling,
// the plan after it is empty, and each score is published once. Changing an address to
// an equivalent spelling publishes nothing; changing it to another address replaces
// the score. A data source filtered by the configured spelling finds its score, and an
// import reads the platform's spelling.
func TestAccScore_normalizedScoreURL(t *testing.T) {
	t.Parallel()
	emu := newTestEmulatorWith(t, "the reading normalizedScoreUrl", emulator.Options{RenderDelay: testRenderDelay})
	ctl := emu.control(t, "readings and request counts")
	ctl.SetFaults(emulator.Faults{Readings: emulator.Readings{NormalizedScoreURL: true}})
	ids := scoreIDs{}
	name := accName()
	hostCase := "https://Scores.Example.COM:443/x/../sn/" + name + "-a.sib"
	lowerCase := "https://scores.example.com/sn/" + name + "-a.sib"
	escapes := "https://cdn.example/sn/Caf%c3%a9-" + name + ".sib"
	config := func(aliasedURL string) string {
		return emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "aliased" {
  score_url = %q
  score_id  = %q
}
resource "mediaplatform_score" "plain" {
  score_url = %q
}
data "mediaplatform_scores" "by_url" {
  score_url  = mediaplatform_score.plain.score_url
}
`, aliasedURL, name, escapes)
	}
	publish := "POST " + ctl.PublishingURL("") + "/scores"
	var publishes []int
	count := func(*terraform.State) error {
		publishes = append(publishes, ctl.Stats().Requests[publish])
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		CheckDestroy:             checkScoresGone(t, emu, ids),
		Steps: []resource.TestStep{
			{
				Config: config(hostCase),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("mediaplatform_score.aliased", tfjsonpath.New("score_url"), knownvalue.StringExact(hostCase)),
					statecheck.ExpectKnownValue("mediaplatform_score.plain", tfjsonpath.New("score_url"), knownvalue.StringExact(escapes)),
					statecheck.ExpectKnownValue("mediaplatform_score.plain", tfjsonpath.New("status"), knownvalue.StringExact("idle")),
					statecheck.ExpectKnownValue("data.mediaplatform_scores.by_url", tfjsonpath.New("scores"), knownvalue.ListSizeExact(1)),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(ids.record("mediaplatform_score.aliased", "mediaplatform_score.plain"), count),
			},
			{
				Config: config(hostCase),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: count,
			},
			// An import reads the platform's spelling; everything else as the state has it.
			{
				ResourceName:            "mediaplatform_score.aliased",
				ImportState:             true,
				ImportStateId:           name,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"timeouts", "score_url"},
				ImportStateCheck: func(states []*terraform.InstanceState) error {
					if len(states) != 1 || states[0].Attributes["score_url"] != lowerCase {
						return fmt.Errorf("the import read %v, want score_url %q", states, lowerCase)
					}
					return nil
				},
			},
			// Another spelling of the same address: no publish, no replacement.
			{
				Config: config(lowerCase),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("mediaplatform_score.aliased", plancheck.ResourceActionUpdate),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("mediaplatform_score.aliased", tfjsonpath.New("score_url"), knownvalue.StringExact(lowerCase)),
				},
				Check: resource.ComposeTestCheckFunc(count, func(s *terraform.State) error {
					if id := s.RootModule().Resources["mediaplatform_score.aliased"].Primary.ID; id != ids["mediaplatform_score.aliased"] {
						return fmt.Errorf("the score was replaced: %s, was %s", id, ids["mediaplatform_score.aliased"])
					}
					return nil
				}),
			},
			// Another address: a new score.
			{
				Config: config("https://scores.example.com/sn/" + name + "-b.sib"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("mediaplatform_score.aliased", plancheck.ResourceActionDestroyBeforeCreate),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(count, ids.record("mediaplatform_score.aliased")),
			},
		},
	})
	t.Logf("publishes after each step: %v", publishes)
	if want := []int{2, 2, 2, 3}; fmt.Sprint(publishes) != fmt.Sprint(want) {
		t.Errorf("publishes after each step: %v, want %v (two scores once, one more for the new address only)", publishes, want)
	}
}
