package provider

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
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
	return orphans
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
			ExpectError: errorPattern("Unable to publish score", "set adopt_unrecorded = true on the resource and apply again",
				"published at", "with this resource's score_url", "a run of this configuration that was stopped before it could "+
					"save its state", "terraform import"),
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
	cfg.Username, cfg.Password = "viewer", "viewer-secret"
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
			Config: emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "twice" {
  count              = 2
  score_url          = %q
  score_id           = %q
  wait_for_rendering = false
  adopt_unrecorded   = true
}
`, accScoreURL(name), name),
			ExpectError: errorPattern("Unable to publish score", "Give each resource its own score_id", "which another resource of this run already created or adopted"),
		}},
	})
}

// TestAccScoreHardKillRecovery_createBeforeDestroy: with create_before_destroy, the
// replacement of a tainted score meets its own alias held by the score it replaces,
// which adopt_unrecorded takes (same alias, address and user); destroying the replaced
// object must then leave that score, now the replacement's, on the platform.
func TestAccScoreHardKillRecovery_createBeforeDestroy(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	ctl := emu.control(t, "score counts")
	alias := accName()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url          = %q
  score_id           = %q
  wait_for_rendering = false
  adopt_unrecorded   = true
  lifecycle {
    create_before_destroy = true
  }
}
`, accScoreURL(alias), alias),
		}, {
			Config: emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url          = %q
  score_id           = %q
  wait_for_rendering = false
  adopt_unrecorded   = true
  lifecycle {
    create_before_destroy = true
  }
}
`, accScoreURL(alias), alias),
			Taint: []string{"mediaplatform_score.test"},
			Check: func(s *terraform.State) error {
				id := s.RootModule().Resources["mediaplatform_score.test"].Primary.ID
				if _, ok := ctl.Score(id); !ok {
					return fmt.Errorf("the state holds score %s, which the platform does not", id)
				}
				return wantScores(ctl, 1)(s)
			},
		}},
	})
}

// testHardKillRecovery kills terraform with SIGKILL while 8 aliased scores it published
// wait for their rendering, before it saved any of them, as an out-of-memory kill or a
// lost CI machine does; the configuration sets adopt_unrecorded. The next apply
// succeeds in one run: it adopts every score the killed run published, warning for
// each, publishes nothing twice, and the plan after it is empty. Before, that apply
// stopped once per score ("Unable to publish score", import by hand).
func testHardKillRecovery(t *testing.T, newWorkspace func(*testing.T, *testEmulator, string) *workspace) {
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
