package provider

// A score's status in another case than the specification's (rule 20 of the reading
// table: a named value in any case).

import (
	"bytes"
	"fmt"
	"net/http"
	"regexp"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// scoreStatusMember is a score's status in an answer.
var scoreStatusMember = regexp.MustCompile(`"status"\s*:\s*"[A-Za-z]+"`)

// TestAccScore_statusInUpperCase: a platform that writes every score's status in upper
// case (PENDING, RENDERING, IDLE, as Jackson writes a Java enum) is read as it means
// it: the apply's wait for rendering ends when the score is IDLE, the state holds
// `idle` (the spelling the filters take), a status filter finds the score, and the
// next plan is empty. Before, the wait ran until the create timeout.
func TestAccScore_statusInUpperCase(t *testing.T) {
	t.Parallel()
	emu, proxy := newProxiedTestEmulatorWith(t, "score statuses in upper case", emulator.Options{RenderDelay: testRenderDelay})
	var rewritten atomic.Int64
	proxy.Add(faultproxy.Fault{Path: `/scores(/[^/]+)?$`, Body: func(b []byte) []byte {
		return scoreStatusMember.ReplaceAllFunc(b, func(m []byte) []byte {
			rewritten.Add(1)
			value := bytes.LastIndexByte(m[:len(m)-1], '"') + 1
			return append(append([]byte{}, m[:value]...), bytes.ToUpper(m[value:])...)
		})
	}})
	ids := scoreIDs{}
	alias := "upper-" + accName()
	config := emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url = %q
  score_id  = %q
  timeouts {
    create = "30s"
  }
}
data "mediaplatform_scores" "idle" {
  status     = "idle"
  depends_on = [mediaplatform_score.test]
}
`, accScoreURL(alias), alias)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		CheckDestroy:             checkScoresGone(t, emu, ids),
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("mediaplatform_score.test", tfjsonpath.New("status"), knownvalue.StringExact("idle")),
				dsExpect("data.mediaplatform_scores.idle", "scores", knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"score_id": knownvalue.StringExact(alias), "status": knownvalue.StringExact("idle"),
					}),
				})),
			},
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			Check: resource.ComposeTestCheckFunc(ids.record("mediaplatform_score.test"), func(*terraform.State) error {
				if rewritten.Load() == 0 || proxy.Count(http.MethodPost, `/scores$`) != 1 {
					return fmt.Errorf("%d statuses written in upper case, %d publishes: the test proves nothing",
						rewritten.Load(), proxy.Count(http.MethodPost, `/scores$`))
				}
				return nil
			}),
		}},
	})
}
