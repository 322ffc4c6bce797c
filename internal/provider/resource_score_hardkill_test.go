package provider

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// hardKillConfig is a configuration of four aliased scores, with adopt_unrecorded set
// or not.
func hardKillConfig(emu *testEmulator, name string, adopt bool) string {
	return emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  count              = 4
  score_url          = "https://cdn.example/%[1]s/${count.index}.sib"
  score_id           = "%[1]s-${count.index}"
  wait_for_rendering = false
  adopt_unrecorded   = %[2]t
}
`, name, adopt)
}

// publishOrphans publishes, as the provider's own user, what a run of hardKillConfig
// killed after these publishes and before Terraform saved its state leaves behind:
// the scores of the first n resources, in no state.
func publishOrphans(t *testing.T, emu *testEmulator, name string, n int) []*client.Score {
	t.Helper()
	c := emu.client(t)
	defer func() { _ = c.Close(context.Background()) }()
	var orphans []*client.Score
	for i := range n {
		s, err := c.PublishScore(context.Background(), client.PublishScoreInput{
			ScoreURL: fmt.Sprintf("https://cdn.example/%s/%d.sib", name, i), Alias: fmt.Sprintf("%s-%d", name, i),
		})
		if err != nil {
			t.Fatal(err)
		}
		orphans = append(orphans, s)
	}
	afterTheKilledRun()
	return orphans
}

// oneAliasTwiceConfig is two resources of one configuration with the same alias and
// address, both with adopt_unrecorded.
func oneAliasTwiceConfig(emu *testEmulator, alias string) string {
	return emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "twice" {
  count              = 2
  score_url          = %q
  score_id           = %q
  wait_for_rendering = false
  adopt_unrecorded   = true
}
`, accScoreURL(alias), alias)
}

// afterTheKilledRun waits until the scores published so far are older than the clock's
// tolerance: adopt_unrecorded takes only a score published before the run began, by
// more than that margin, and a run started again after a hard kill comes later than
// that (here, the next provider process would start within milliseconds).
func afterTheKilledRun() {
	time.Sleep(client.ClockTolerance + 250*time.Millisecond)
}

// TestAccScoreHardKillRecovery (issue 42): a run killed with SIGKILL after it
// published three aliased scores and before Terraform saved them leaves them in no
// state. The next apply stops on each, and each error says the one step that
// recovers: set adopt_unrecorded. With it set, the apply adopts the three (they have
// the configured alias, score_url and options, and the provider's own user published
// them), publishes the fourth, and the platform holds each score once.
func TestAccScoreHardKillRecovery(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	ctl := emu.control(t, "score counts")
	name := accName()
	orphans := publishOrphans(t, emu, name, 3)
	checks := []statecheck.StateCheck{}
	for i, s := range orphans {
		checks = append(checks, statecheck.ExpectKnownValue(fmt.Sprintf("mediaplatform_score.test[%d]", i),
			tfjsonpath.New("id"), knownvalue.StringExact(s.ID)))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: hardKillConfig(emu, name, false),
			ExpectError: errorPattern("Unable to publish score", "published at", "with this resource's score_url",
				"a run of this configuration that was stopped before it could save its state",
				"set adopt_unrecorded = true on the resource and apply again", "terraform import"),
		}, {
			Config:            hardKillConfig(emu, name, true),
			ConfigStateChecks: checks,
			Check:             wantScores(ctl, 4),
		}},
	})
}

// TestAccScoreHardKillRecovery_notOwnUser: adopt_unrecorded never takes a score that
// another user published, though it has the configured alias, score_url and options:
// it may be another configuration's.
func TestAccScoreHardKillRecovery_notOwnUser(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	ctl := emu.control(t, "score counts")
	name := accName()
	cfg := emu.config()
	cfg.Username, cfg.Password = emulatortest.ViewerUsername, emulatortest.ViewerPassword
	other, err := client.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := other.PublishScore(context.Background(), client.PublishScoreInput{
		ScoreURL: fmt.Sprintf("https://cdn.example/%s/0.sib", name), Alias: name + "-0",
	})
	if err != nil {
		t.Fatal(err)
	}
	emu.deleteAtCleanup(t)(theirs.ID)
	_ = other.Close(context.Background())
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config:      hardKillConfig(emu, name, true),
			ExpectError: errorPattern("Unable to publish score", theirs.ID, `but by user "viewer", not by this provider's user "alice"`),
		}},
	})
	if _, ok := ctl.Score(theirs.ID); !ok {
		t.Errorf("the other user's score %s is gone", theirs.ID)
	}
}

// TestAccScoreHardKillRecovery_oneScoreOnce: two resources of one configuration that
// name the same alias and address never both take the score that holds it.
func TestAccScoreHardKillRecovery_oneScoreOnce(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	name := accName()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: oneAliasTwiceConfig(emu, name),
			// Either refusal may come first: the second resource's 409 met the score
			// published since the run began, or, on a loaded machine, its own publish's
			// answer was lost and the score it found is the first resource's already.
			ExpectError: errorPattern("Unable to publish score", "Give each resource its own score_id"),
		}},
	})
}

// TestAccScoreHardKillRecovery_notThisRunsPublish: two resources of one configuration
// name the same alias and address, and the first one's publish lands while its answer
// is held (a slow answer, or a lost one that the lagging-read recovery looks for for
// up to 10 s). The second meets the alias held and must not adopt that score: it was
// published during this run, and adopt_unrecorded takes only a killed run's leftovers.
// Before, the second adopted it and the first recorded it too: two states held one
// score, and the apply succeeded.
func TestAccScoreHardKillRecovery_notThisRunsPublish(t *testing.T) {
	t.Parallel()
	emu, proxy := newProxiedTestEmulator(t, "a held publish answer")
	ctl := emu.control(t, "score counts")
	alias := accName()
	release := make(chan struct{})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	proxy.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/scores$`, Hold: release, Times: 1})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			PreConfig: func() {
				// The first answer is let through once the second resource has looked up
				// the alias it met held, and had a second to act on what it found.
				go func() {
					for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
						if proxy.Count(http.MethodGet, `/scores/`+regexp.QuoteMeta(alias)+`$`) > 0 {
							time.Sleep(time.Second)
							break
						}
					}
					once.Do(func() { close(release) })
				}()
			},
			Config: oneAliasTwiceConfig(emu, alias),
			// Either refusal: the second resource's 409 met a score published since the
			// run began, or (a loaded machine, the first answer held past
			// request_timeout) the score its lost publish found is the first one's.
			ExpectError: errorPattern("Unable to publish score", "Give each resource its own score_id"),
		}},
	})
	if n := proxy.Count(http.MethodGet, `/scores/`+regexp.QuoteMeta(alias)+`$`); n == 0 {
		t.Errorf("the second resource never looked the alias up: the test proves nothing")
	}
	if n := ctl.Stats().Scores; n != 0 {
		t.Errorf("after the destroy the platform holds %d scores, want 0", n)
	}
}

// TestAccScoreHardKillRecovery_createBeforeDestroy: with create_before_destroy and
// adopt_unrecorded, the replacement of a score whose rendering failed (tainted) meets
// its own alias held by the score it replaces. It does not adopt it: the apply refuses
// with an error that says how out (remove create_before_destroy), the score stays, and
// without create_before_destroy the replacement publishes a new score. Before, the
// replacement adopted the very score it replaced, whose rendering had failed, and the
// apply failed on it and tainted it again, on every apply.
func TestAccScoreHardKillRecovery_createBeforeDestroy(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	ctl := emu.control(t, "score counts")
	alias := accName()
	config := func(cbd bool) string {
		return emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url        = %q
  score_id         = %q
  adopt_unrecorded = true
  lifecycle {
    create_before_destroy = %t
  }
}
`, accBrokenScoreURL(alias), alias, cbd)
	}
	var failed string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config:      config(true),
			ExpectError: errorPattern("Score rendering failed", "tainted"),
		}, {
			PreConfig: func() { failed = aliasesOn(t, emu)[alias] },
			Config:    config(true),
			ExpectError: errorPattern("Unable to publish score", "remove create_before_destroy", "whose rendering failed",
				`(status "error")`, "adopt_unrecorded never takes such a score"),
		}, {
			// The way out the error names: the score is deleted, then published again.
			Config:      config(false),
			ExpectError: errorPattern("Score rendering failed", "tainted"),
		}, {
			PreConfig: func() {
				if now := aliasesOn(t, emu)[alias]; now == failed || now == "" {
					t.Errorf("the replacement without create_before_destroy left alias %q with score %q, want a new score "+
						"in place of %s", alias, now, failed)
				}
				if _, ok := ctl.Score(failed); ok {
					t.Errorf("the replaced score %s is still on the platform", failed)
				}
			},
			Config:             config(false),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		}},
	})
}

// TestAccScoreHardKillRecovery_createBeforeDestroyHealthy: with create_before_destroy
// and adopt_unrecorded, the replacement of a score tainted by hand whose rendering did
// not fail meets its alias held by the score it replaces, published before the run by
// the provider's user with the same address, and adopts it: the id stays, destroying
// the replaced object keeps the score ("Score kept"), and the platform still holds it.
func TestAccScoreHardKillRecovery_createBeforeDestroyHealthy(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	ctl := emu.control(t, "score counts")
	alias := accName()
	config := emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url          = %q
  score_id           = %q
  wait_for_rendering = false
  adopt_unrecorded   = true
  lifecycle {
    create_before_destroy = true
  }
}
`, accScoreURL(alias), alias)
	var first string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: config,
			Check: func(s *terraform.State) error {
				first = s.RootModule().Resources["mediaplatform_score.test"].Primary.ID
				return nil
			},
		}, {
			PreConfig: afterTheKilledRun,
			Config:    config,
			Taint:     []string{"mediaplatform_score.test"},
			Check: func(s *terraform.State) error {
				if id := s.RootModule().Resources["mediaplatform_score.test"].Primary.ID; id != first {
					return fmt.Errorf("the replacement holds score %s, want the adopted %s", id, first)
				}
				if _, ok := ctl.Score(first); !ok {
					return fmt.Errorf("the state holds score %s, which the platform does not", first)
				}
				return wantScores(ctl, 1)(s)
			},
		}},
	})
}

// TestAccScore_hardKillRecovery kills terraform with SIGKILL while 8 aliased scores it published
// wait for their rendering, before it saved any of them, as an out-of-memory kill or a
// lost CI machine does; the configuration sets adopt_unrecorded. The next apply
// succeeds in one run: it adopts every score the killed run published, warning for
// each, publishes nothing twice, and the plan after it is empty. Before, that apply
// stopped once per score ("Unable to publish score", import by hand).
func TestAccScore_hardKillRecovery(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	const scores = 8
	emu := newTestEmulatorWith(t, "scores that render for seconds", emulator.Options{RenderDelay: 2 * time.Second})
	ctl := emu.control(t, "score counts")
	name := accName()
	w := newWorkspace(t, emu, fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  count            = %d
  score_url        = "https://cdn.example/%[2]s/${count.index}.sib"
  score_id         = "%[2]s-${count.index}"
  adopt_unrecorded = true
}
`, scores, name))
	cmd := w.command("apply", "-auto-approve")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	for deadline := time.Now().Add(90 * time.Second); ctl.Stats().Scores < scores; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the platform never held %d scores:\n%s", scores, out.String())
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	afterTheKilledRun()
	// The orphaned provider notices within a second and removes its token.
	for deadline := time.Now().Add(15 * time.Second); ctl.Stats().LiveTokens > 0 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	inState := 0
	if list, err := w.command("state", "list").Output(); err == nil {
		inState = strings.Count(string(list), "mediaplatform_score.")
	}
	if inState == scores {
		t.Fatalf("the killed run saved all %d scores: the test proves nothing:\n%s", scores, out.String())
	}

	again := w.run("apply", "-auto-approve")
	// Terraform shows one warning of a summary, and counts the others.
	n := strings.Count(again, "Warning: Score adopted")
	if m := regexp.MustCompile(`Warning: Score adopted[\s\S]*?\(and (\d+) more similar warnings? elsewhere\)`).FindStringSubmatch(again); m != nil {
		more, _ := strconv.Atoi(m[1])
		n += more
	}
	if n != scores-inState {
		t.Errorf("the apply after kill -9 adopted %d scores, want the %d the killed run left out of the state:\n%s",
			n, scores-inState, again)
	}
	if n := ctl.Stats().Scores; n != scores {
		t.Errorf("after the apply the platform holds %d scores, want %d (none published twice)", n, scores)
	}
	if plan := w.run("plan"); !strings.Contains(plan, "No changes.") {
		t.Errorf("after the recovery the plan is not empty:\n%s", plan)
	}
	t.Logf("kill -9 with %d scores published and %d in the state; the next apply adopted %d", scores, inState, scores-inState)
	w.run("destroy", "-auto-approve")
}

// TestImportedScoreIsNotAdopted: a score imported in this run is held by this run, so
// adopt_unrecorded does not give it to another resource, though it has the alias,
// address and publisher adoption looks for and was published before the run. Before,
// the resource that met its alias adopted it, and two addresses managed one score.
// (Terraform configures a new client for each walk, so an import and a create of one
// client are shown here, on the resource itself.)
func TestImportedScoreIsNotAdopted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	emu := newTestEmulator(t)
	alias := accName()
	s, err := emu.client(t).PublishScore(ctx, client.PublishScoreInput{ScoreURL: accScoreURL(alias), Alias: alias})
	if err != nil {
		t.Fatal(err)
	}
	emu.deleteAtCleanup(t)(s.ID)
	afterTheKilledRun()

	r := &scoreResource{client: emu.client(t)}
	var schema fwresource.SchemaResponse
	r.Schema(ctx, fwresource.SchemaRequest{}, &schema)
	imported := &fwresource.ImportStateResponse{State: tfsdk.State{
		Schema: schema.Schema, Raw: tftypes.NewValue(schema.Schema.Type().TerraformType(ctx), nil),
	}}
	r.ImportState(ctx, fwresource.ImportStateRequest{ID: alias}, imported)
	if imported.Diagnostics.HasError() {
		t.Fatalf("the import failed: %v", imported.Diagnostics)
	}
	plan := scoreModel{
		ScoreURL: scoreURLOf(accScoreURL(alias)), ScoreID: types.StringValue(alias),
		Transpose: types.BoolValue(false), AdoptUnrecorded: types.BoolValue(true),
	}
	if got, hint := r.unrecordedScore(ctx, plan, "the 409's hint"); got != nil {
		t.Errorf("the score %s imported in this run was adopted by another resource: %s", got.ID, hint)
	} else if !strings.Contains(hint, "which another resource of this run already created, adopted or imported") {
		t.Errorf("the refusal does not say the score is held by this run: %s", hint)
	}
}
