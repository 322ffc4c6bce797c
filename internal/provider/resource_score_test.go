package provider

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

var uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// scoreIDs collects the ids of the scores in the state, to check after destroy.
type scoreIDs map[string]string

func (ids scoreIDs) record(addresses ...string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		for _, a := range addresses {
			rs, ok := s.RootModule().Resources[a]
			if !ok {
				return fmt.Errorf("%s is not in the state", a)
			}
			ids[a] = rs.Primary.ID
		}
		return nil
	}
}

// checkScoresGone is a CheckDestroy: every recorded score is gone from the platform.
func checkScoresGone(t *testing.T, emu *testEmulator, ids scoreIDs) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if len(ids) == 0 {
			return fmt.Errorf("no score was recorded")
		}
		for a, id := range ids {
			if err := expectScoreGone(t, emu, id); err != nil {
				return fmt.Errorf("%s: %w", a, err)
			}
		}
		return nil
	}
}

// expectScoreGone returns an error unless the platform reports no score with id.
func expectScoreGone(t *testing.T, emu *testEmulator, id string) error {
	t.Helper()
	s, err := emu.client(t).GetScore(context.Background(), id)
	switch {
	case client.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("reading score %s: %w", id, err)
	default:
		return fmt.Errorf("score %s still exists on the platform with status %q", id, s.Status)
	}
}

// stateID returns the id of a resource in the state, for ImportStateIdFunc.
func stateID(address string) resource.ImportStateIdFunc {
	return func(s *terraform.State) (string, error) {
		rs, ok := s.RootModule().Resources[address]
		if !ok {
			return "", fmt.Errorf("%s is not in the state", address)
		}
		return rs.Primary.ID, nil
	}
}

func TestAccScore_lifecycle(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	ids := scoreIDs{}
	alias, plain := accName(), accName()
	config := func(purge, transpose bool) string {
		return emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "aliased" {
  score_url        = %q
  score_id         = %q
  transpose        = %t
  purge_on_destroy = %t
}
resource "mediaplatform_score" "plain" {
  score_url = %q
}
`, accScoreURL(alias), alias, transpose, purge, accScoreURL(plain))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		CheckDestroy:             checkScoresGone(t, emu, ids),
		Steps: []resource.TestStep{
			{
				Config: config(false, false),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("mediaplatform_score.aliased", tfjsonpath.New("id"), knownvalue.StringRegexp(uuidPattern)),
					statecheck.ExpectKnownValue("mediaplatform_score.aliased", tfjsonpath.New("score_id"), knownvalue.StringExact(alias)),
					statecheck.ExpectKnownValue("mediaplatform_score.aliased", tfjsonpath.New("status"), knownvalue.StringExact("idle")),
					statecheck.ExpectKnownValue("mediaplatform_score.aliased", tfjsonpath.New("page_count"), knownvalue.Int64Func(func(n int64) error {
						if n < 1 {
							return fmt.Errorf("page_count %d, want at least 1 once rendered", n)
						}
						return nil
					})),
					statecheck.ExpectKnownValue("mediaplatform_score.aliased", tfjsonpath.New("transpose"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue("mediaplatform_score.aliased", tfjsonpath.New("created_at"), knownvalue.NotNull()),
					statecheck.ExpectKnownValue("mediaplatform_score.aliased", tfjsonpath.New("updated_at"), knownvalue.NotNull()),
					statecheck.ExpectKnownValue("mediaplatform_score.plain", tfjsonpath.New("score_id"), knownvalue.Null()),
					statecheck.ExpectKnownValue("mediaplatform_score.plain", tfjsonpath.New("status"), knownvalue.StringExact("idle")),
					statecheck.ExpectKnownValue("mediaplatform_score.plain", tfjsonpath.New("purge_on_destroy"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue("mediaplatform_score.plain", tfjsonpath.New("wait_for_rendering"), knownvalue.Bool(true)),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: ids.record("mediaplatform_score.aliased", "mediaplatform_score.plain"),
			},
			// Import by alias: Read stores the UUID as id.
			{
				ResourceName:            "mediaplatform_score.aliased",
				ImportState:             true,
				ImportStateId:           alias,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"timeouts"},
			},
			// Import by UUID, with and without an alias.
			{
				ResourceName:            "mediaplatform_score.aliased",
				ImportState:             true,
				ImportStateIdFunc:       stateID("mediaplatform_score.aliased"),
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"timeouts"},
			},
			{
				ResourceName:            "mediaplatform_score.plain",
				ImportState:             true,
				ImportStateIdFunc:       stateID("mediaplatform_score.plain"),
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"timeouts"},
			},
			// purge_on_destroy changes in place.
			{
				Config: config(true, false),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("mediaplatform_score.aliased", plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction("mediaplatform_score.plain", plancheck.ResourceActionNoop),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("mediaplatform_score.aliased", tfjsonpath.New("purge_on_destroy"), knownvalue.Bool(true)),
				},
			},
			// transpose publishes a new score.
			{
				Config: config(true, true),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("mediaplatform_score.aliased", plancheck.ResourceActionDestroyBeforeCreate),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("mediaplatform_score.aliased", tfjsonpath.New("transpose"), knownvalue.Bool(true)),
				},
				Check: func(s *terraform.State) error {
					if err := expectScoreGone(t, emu, ids["mediaplatform_score.aliased"]); err != nil {
						return fmt.Errorf("the replaced score: %w", err)
					}
					return ids.record("mediaplatform_score.aliased")(s)
				},
			},
		},
	})
}

// TestAccScore_deletedOutOfBand deletes the score behind Terraform's back: the refresh
// drops it from the state and the plan publishes it again.
func TestAccScore_deletedOutOfBand(t *testing.T) {
	t.Parallel()
	testScoreDeletedOutOfBand(t, emulator.Readings{})
}

// TestAccScore_deletedOutOfBandAnsweredGone: the same on a platform that keeps
// tombstones and answers a deleted score 410 Gone: gone is gone, whichever status
// says it (the status table, statuses.go in the client).
func TestAccScore_deletedOutOfBandAnsweredGone(t *testing.T) {
	t.Parallel()
	testScoreDeletedOutOfBand(t, emulator.Readings{GoneScores: true})
}

func testScoreDeletedOutOfBand(t *testing.T, readings emulator.Readings) {
	emu := newTestEmulator(t)
	emu.control(t, "readings").SetFaults(emulator.Faults{Readings: readings})
	ids := scoreIDs{}
	alias := accName()
	config := emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url = %q
  score_id  = %q
}
`, accScoreURL(alias), alias)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		CheckDestroy:             checkScoresGone(t, emu, ids),
		Steps: []resource.TestStep{
			{
				Config: config,
				Check:  ids.record("mediaplatform_score.test"),
			},
			{
				PreConfig: func() {
					if err := emu.client(t).DeleteScore(context.Background(), alias, false); err != nil {
						t.Fatalf("deleting the score out of band: %v", err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("mediaplatform_score.test", plancheck.ResourceActionCreate),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: func(s *terraform.State) error {
					old := ids["mediaplatform_score.test"]
					if err := ids.record("mediaplatform_score.test")(s); err != nil {
						return err
					}
					if ids["mediaplatform_score.test"] == old {
						return fmt.Errorf("the score kept its old id %s", old)
					}
					return nil
				},
			},
		},
	})
}

// TestAccScore_renderingError publishes a score the platform cannot render: the apply
// fails naming the score and its status, and the score is tainted (replaced next time).
func TestAccScore_renderingError(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	ids := scoreIDs{}
	alias := accName()
	config := func(wait bool) string {
		return emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url          = %q
  score_id           = %q
  wait_for_rendering = %t
}
`, accBrokenScoreURL(alias), alias, wait)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		CheckDestroy:             checkScoresGone(t, emu, ids),
		Steps: []resource.TestStep{
			{
				Config:      config(true),
				ExpectError: errorPattern("Score rendering failed", `(alias "`+alias+`")`, `status "error"`, accBrokenScoreURL(alias), "tainted"),
			},
			{
				// Without the taint, switching wait_for_rendering off would be an
				// in-place update; the tainted score is replaced instead.
				Config: config(false),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("mediaplatform_score.test", plancheck.ResourceActionDestroyBeforeCreate),
					},
				},
				Check: ids.record("mediaplatform_score.test"),
			},
		},
	})
}

// TestAccScore_noWait returns as soon as the score is published.
func TestAccScore_noWait(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	ids := scoreIDs{}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		CheckDestroy:             checkScoresGone(t, emu, ids),
		Steps: []resource.TestStep{{
			Config: emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url          = %q
  wait_for_rendering = false
}
`, accScoreURL(accName())),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("mediaplatform_score.test", tfjsonpath.New("status"), knownvalue.StringExact("pending")),
				statecheck.ExpectKnownValue("mediaplatform_score.test", tfjsonpath.New("page_count"), knownvalue.Int64Exact(0)),
			},
			Check: ids.record("mediaplatform_score.test"),
		}},
	})
}

// TestScore_validation rejects bad arguments at plan time, before any request.
func TestScore_validation(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	testRejectedBeforeRequests(t, emu, blockConfig(emu, `resource "mediaplatform_score" "test"`), []rejectedConfig{
		{`score_url = "ftp://cdn.example/a.sib"`, []string{"score_url", "absolute http or https URL", `scheme "ftp"`}},
		{`score_url = "cdn.example/a.sib"`, []string{"score_url", "absolute http or https URL"}},
		{`score_url = "https://cdn.example/a.sib"
  score_id = "has space"`, []string{"score_id", "1 to 128 characters", `got "has space"`}},
		{`score_url = "https://cdn.example/a.sib"
  score_id = "` + fmt.Sprintf("%0129d", 0) + `"`, []string{"score_id", "1 to 128 characters"}},
		{`score_url = "https://cdn.example/a.sib"
  score_id = "4f0c8a3e-1b2c-4d5e-8f90-123456789abc"`, []string{"score_id", "is a UUID"}},
		{`score_url = "https://cdn.example/a.sib"
  timeouts {
    create = "soon"
  }`, []string{"Invalid Attribute Value Time Duration", `"soon" must be a string containing`}},
	})
}

// TestAccScore_importMissing: importing an id that no score has says so in the
// provider's words.
func TestAccScore_importMissing(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: emu.providerConfig() + `
resource "mediaplatform_score" "test" {
  score_url = "https://cdn.example/scores/missing.sib"
}
`,
			ResourceName:  "mediaplatform_score.test",
			ImportState:   true,
			ImportStateId: "no-such-score",
			ExpectError:   errorPattern("Cannot import score", `No score with the UUID or alias "no-such-score" exists on the platform`),
		}},
	})
}

// TestAccScore_finalPublishAnswerIsNotReadAgain (issue 63, item 1): on a platform that
// renders as it publishes (the publish's answer is already idle, with its renderings),
// an apply sends the publishes and no read of a score or a list to wait for their
// rendering; on one that answers pending, the wait reads.
func TestAccScore_finalPublishAnswerIsNotReadAgain(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		sync  bool
		reads bool
	}{{"rendersAsItPublishes", true, false}, {"answersPending", false, true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			emu := newTestEmulatorWith(t, "the score API's request counts", emulator.Options{RenderDelay: testRenderDelay})
			ctl := emu.control(t, "the score API's request counts")
			ctl.SetFaults(emulator.Faults{Readings: emulator.Readings{SynchronousRendering: tc.sync}})
			const scores = 5
			config := emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  count     = %d
  score_url = "https://cdn.example/final/${count.index}.sib"
}
`, scores)
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testProviderFactories(t),
				Steps: []resource.TestStep{{
					Config: config,
					Check: func(*terraform.State) error {
						st := ctl.Stats()
						base := "GET " + ctl.PublishingURL("") + "/scores"
						reads := st.Requests[base] + st.Requests[base+"/{id}"]
						publishes := st.Requests["POST "+ctl.PublishingURL("")+"/scores"]
						t.Logf("%s: %d publishes, %d reads of scores or lists", tc.name, publishes, reads)
						if publishes != scores {
							return fmt.Errorf("%d publishes, want %d", publishes, scores)
						}
						if (reads > 0) != tc.reads {
							return fmt.Errorf("%d reads of scores or lists during the apply, want reads: %t", reads, tc.reads)
						}
						return nil
					},
				}},
			})
		})
	}
}
