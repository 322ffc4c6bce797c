package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"
)

// restoreConfig is the configuration of the restore tests: six aliased scores whose
// score_url is v1 or v2 (moved: the first three, after the backup), one aliased score
// replaced with the same score_url after the backup (tainted), four unaliased ones,
// and, after the backup, three more (late: two aliased).
func restoreConfig(emu *testEmulator, name, moved string, late bool) string {
	config := emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "aliased" {
  count              = 6
  score_url          = "https://cdn.example/%[1]s/${count.index < 3 ? %[2]q : "v1"}/${count.index}.sib"
  score_id           = "%[1]s-bk-${count.index}"
  wait_for_rendering = false
}
resource "mediaplatform_score" "same" {
  score_url          = "https://cdn.example/%[1]s/same.sib"
  score_id           = "%[1]s-same"
  wait_for_rendering = false
}
resource "mediaplatform_score" "plain" {
  count              = 4
  score_url          = "https://cdn.example/%[1]s/plain-${count.index}.sib"
  wait_for_rendering = false
}
`, name, moved)
	if late {
		config += fmt.Sprintf(`
resource "mediaplatform_score" "late" {
  count              = 3
  score_url          = "https://cdn.example/%[1]s/late-${count.index}.sib"
  score_id           = count.index < 2 ? "%[1]s-late-${count.index}" : null
  wait_for_rendering = false
}
`, name)
	}
	return config
}

// TestAccScoreRestore (issue 41 item 3): after an apply, the platform is restored to
// an older backup. The scores created since are gone; three aliases are held again by
// the older scores of another score_url that the state's scores replaced, and one by
// the older score of the same score_url. The plan shows what the apply does (the
// three moved scores and the same one replaced, the three late ones created, nothing
// else), the apply converges in one run without an import, and the older scores are
// not left behind: before, the plan promised creates the platform refused (the alias
// is used by another score), and the next plan wanted the same creates.
func TestAccScoreRestore(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	ctl := emu.control(t, "backup and restore")
	name := accName()
	var backup emulator.ScoreBackup
	var before map[string]string // alias → UUID at the backup
	replaced := []plancheck.PlanCheck{}
	for _, address := range []string{"mediaplatform_score.aliased[0]", "mediaplatform_score.aliased[1]",
		"mediaplatform_score.aliased[2]", "mediaplatform_score.same"} {
		replaced = append(replaced, plancheck.ExpectResourceAction(address, plancheck.ResourceActionReplace))
	}
	for i := range 3 {
		replaced = append(replaced, plancheck.ExpectResourceAction(fmt.Sprintf("mediaplatform_score.late[%d]", i), plancheck.ResourceActionCreate))
	}
	for i := 3; i < 6; i++ {
		replaced = append(replaced, plancheck.ExpectResourceAction(fmt.Sprintf("mediaplatform_score.aliased[%d]", i), plancheck.ResourceActionNoop))
	}
	for i := range 4 {
		replaced = append(replaced, plancheck.ExpectResourceAction(fmt.Sprintf("mediaplatform_score.plain[%d]", i), plancheck.ResourceActionNoop))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: restoreConfig(emu, name, "v1", false),
			Check: func(*terraform.State) error {
				backup = backupAged(ctl)
				before = aliasesOn(t, emu)
				return nil
			},
		}, {
			// After the backup: three scores move to v2 (replaced, same alias), one is
			// replaced with its score_url, three more are created.
			Config: restoreConfig(emu, name, "v2", true),
			Taint:  []string{"mediaplatform_score.same"},
			Check:  wantScores(ctl, 14),
		}, {
			PreConfig: func() { ctl.RestoreScores(backup) },
			Config:    restoreConfig(emu, name, "v2", true),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: replaced,
			},
			Check: func(s *terraform.State) error {
				after := aliasesOn(t, emu)
				for i := range 3 {
					alias := fmt.Sprintf("%s-bk-%d", name, i)
					if after[alias] == before[alias] {
						return fmt.Errorf("alias %s is still held by the restored score %s of v1", alias, before[alias])
					}
				}
				return wantScores(ctl, 14)(s)
			},
		}},
	})
}

// backupAged takes a backup of the emulator's scores and waits until the scores in it
// are older than the clock's tolerance: a score restored from a backup is taken as a
// state's only when it is older than the state's score by more than that margin, and
// a real backup is hours old, not milliseconds.
func backupAged(ctl *emulator.Emulator) emulator.ScoreBackup {
	backup := ctl.BackupScores()
	afterTheKilledRun() // the same margin: older than anything the next run publishes
	return backup
}

// aliasesOn maps each alias on the platform to the UUID of the score that holds it.
func aliasesOn(t *testing.T, emu *testEmulator) map[string]string {
	t.Helper()
	c, err := emu.newClient()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close(context.Background()) }()
	scores, err := c.ListAllScores(context.Background(), client.ScoreCriteria{}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	held := map[string]string{}
	for _, s := range scores {
		if s.Alias != "" {
			held[s.Alias] = s.ID
		}
	}
	return held
}

// TestAccScoreRestore_newerHolderNotAdopted: a score this state recorded is deleted out
// of band and its alias taken by a newer score (another configuration's publish): the
// provider does not take that score as the state's, and the apply fails on the alias
// as before, naming what to do.
func TestAccScoreRestore_newerHolderNotAdopted(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	ctl := emu.control(t, "score counts")
	alias := accName()
	config := emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url          = %q
  score_id           = %q
  wait_for_rendering = false
}
`, accScoreURL(alias), alias)
	var mine string
	var theirs *client.Score
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: config,
			Check: func(s *terraform.State) error {
				mine = s.RootModule().Resources["mediaplatform_score.test"].Primary.ID
				return nil
			},
		}, {
			PreConfig: func() {
				c := emu.client(t)
				if err := c.DeleteScore(context.Background(), mine, false); err != nil {
					t.Fatal(err)
				}
				var err error
				if theirs, err = c.PublishScore(context.Background(), client.PublishScoreInput{
					ScoreURL: accScoreURL(alias + "-theirs"), Alias: alias,
				}); err != nil {
					t.Fatal(err)
				}
				emu.deleteAtCleanup(t)(theirs.ID)
				_ = c.Close(context.Background())
			},
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("mediaplatform_score.test", plancheck.ResourceActionCreate)},
			},
			ExpectError: errorPattern("Unable to publish score", "is used by another score"),
		}},
	})
	if _, ok := ctl.Score(theirs.ID); !ok {
		t.Errorf("the other configuration's score %s under %q is gone", theirs.ID, alias)
	}
}

// TestAccScoreRestore_destroy: after a restore, destroying a resource whose state's
// score is gone deletes the restored score that holds its alias, which the refresh
// took as the resource's, instead of leaving it on the platform.
func TestAccScoreRestore_destroy(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	ctl := emu.control(t, "backup and restore")
	alias := accName()
	config := func(version string) string {
		return emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url          = "https://cdn.example/%[1]s/%[2]s.sib"
  score_id           = %[1]q
  wait_for_rendering = false
}
`, alias, version)
	}
	var backup emulator.ScoreBackup
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: config("v1"),
			Check: func(*terraform.State) error {
				backup = backupAged(ctl)
				return nil
			},
		}, {
			Config: config("v2"),
		}, {
			PreConfig: func() { ctl.RestoreScores(backup) },
			Config:    emu.providerConfig(),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("mediaplatform_score.test", plancheck.ResourceActionDestroy)},
			},
			Check: wantScores(ctl, 0),
		}},
	})
}

// TestAccScore_warningsOfAChangedPlatform runs through the CLI what the resource.Test tests above
// cannot read: the warnings. After a restore, the plan warns for each score taken as
// a resource's, naming its alias, the UUID gone and the UUID taken, and shows the
// replacement; after a hard kill, the apply with adopt_unrecorded warns for each score
// adopted, naming it.
func TestAccScore_warningsOfAChangedPlatform(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	emu := newTestEmulator(t)
	ctl := emu.control(t, "backup and restore")
	alias := accName()
	config := func(version string, adopt bool) string {
		return fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url          = "https://cdn.example/%[1]s/%[2]s.sib"
  score_id           = %[1]q
  wait_for_rendering = false
}
resource "mediaplatform_score" "orphan" {
  score_url          = "https://cdn.example/%[1]s/orphan.sib"
  score_id           = "%[1]s-orphan"
  wait_for_rendering = false
  adopt_unrecorded   = %[3]t
}
`, alias, version, adopt)
	}
	w := newWorkspace(t, emu, config("v1", false))
	w.run("apply", "-auto-approve", "-target=mediaplatform_score.test")
	held := aliasesOn(t, emu)[alias]
	backup := backupAged(ctl)
	w.write(config("v2", false))
	w.run("apply", "-auto-approve", "-target=mediaplatform_score.test")
	gone := aliasesOn(t, emu)[alias]
	ctl.RestoreScores(backup)

	out := w.run("plan", "-target=mediaplatform_score.test")
	for _, want := range []*regexp.Regexp{
		errorPattern("Warning: Score restored from a backup taken as this resource's", "Score "+gone, alias,
			"is held by score "+held),
		errorPattern("mediaplatform_score.test must be replaced"),
		errorPattern("Plan: 1 to add, 0 to change, 1 to destroy."),
	} {
		if !want.MatchString(out) {
			t.Errorf("the plan after the restore lacks %q:\n%s", want, out)
		}
	}
	w.run("apply", "-auto-approve", "-target=mediaplatform_score.test")

	// A hard kill: the orphan's score was published, and no state holds it.
	c := emu.client(t)
	s, err := c.PublishScore(t.Context(), client.PublishScoreInput{
		ScoreURL: fmt.Sprintf("https://cdn.example/%s/orphan.sib", alias), Alias: alias + "-orphan",
	})
	if err != nil {
		t.Fatal(err)
	}
	_ = c.Close(t.Context())
	afterTheKilledRun()
	w.write(config("v2", true))
	out = w.run("apply", "-auto-approve")
	if want := errorPattern("Warning: Score adopted", "Nothing to do: score "+s.ID, alias+"-orphan", "is this resource's now"); !want.MatchString(out) {
		t.Errorf("the apply that adopted %s lacks %q:\n%s", s.ID, want, out)
	}
	if out := w.run("plan"); !strings.Contains(out, "No changes.") {
		t.Errorf("after the restore and the adoption the plan is not empty:\n%s", out)
	}
	if n := ctl.Stats().Scores; n != 2 {
		t.Errorf("the platform holds %d scores, want 2", n)
	}
	w.run("destroy", "-auto-approve")
}

// viewerClient is a client of the emulator as another platform user than the
// provider's: another configuration's publisher.
func viewerClient(t *testing.T, emu *testEmulator) *client.Client {
	t.Helper()
	cfg := emu.config()
	cfg.Username, cfg.Password = emulatortest.ViewerUsername, emulatortest.ViewerPassword
	c, err := client.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

// TestAccScoreRestore_notAnotherUsersScore: a score this state recorded is gone and
// its alias is held by a score that looks older but was published by another user: it
// is never taken as the state's, so neither the plan's replacement nor the destroy
// deletes it; the plan creates the score and the apply fails on the alias. Two ways it happens: another configuration publishes the alias after the
// state's score was deleted out of band, as the platform's clock steps back an hour
// (its createdAt then reads older than the state's score); and a restore from a
// backup brings back another user's older score. Before, both were taken as restored,
// and the apply deleted them.
func TestAccScoreRestore_notAnotherUsersScore(t *testing.T) {
	t.Parallel()
	config := func(emu *testEmulator, alias string) string {
		return emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url          = %q
  score_id           = %q
  wait_for_rendering = false
}
`, accScoreURL(alias), alias)
	}
	run := func(t *testing.T, emu *testEmulator, alias string, afterCreate func(mine string) *client.Score) {
		ctl := emu.control(t, "faults and score counts")
		var mine string
		var theirs *client.Score
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testProviderFactories(t),
			Steps: []resource.TestStep{{
				Config: config(emu, alias),
				Check: func(s *terraform.State) error {
					mine = s.RootModule().Resources["mediaplatform_score.test"].Primary.ID
					return nil
				},
			}, {
				PreConfig: func() { theirs = afterCreate(mine) },
				Config:    config(emu, alias),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("mediaplatform_score.test", plancheck.ResourceActionCreate)},
				},
				ExpectError: errorPattern("Unable to publish score", "is used by another score"),
			}},
		})
		if _, ok := ctl.Score(theirs.ID); !ok {
			t.Errorf("the other user's score %s under %q is gone", theirs.ID, alias)
		}
	}
	t.Run("published as the platform's clock steps back", func(t *testing.T) {
		t.Parallel()
		emu := newTestEmulator(t)
		ctl := emu.control(t, "the platform's clock")
		alias := accName()
		run(t, emu, alias, func(mine string) *client.Score {
			if err := emu.client(t).DeleteScore(context.Background(), mine, false); err != nil {
				t.Fatal(err)
			}
			ctl.SetFaults(emulator.Faults{ClockOffsetSeconds: -3600})
			theirs, err := viewerClient(t, emu).PublishScore(context.Background(), client.PublishScoreInput{
				ScoreURL: accScoreURL(alias + "-theirs"), Alias: alias,
			})
			if err != nil {
				t.Fatal(err)
			}
			emu.deleteAtCleanup(t)(theirs.ID)
			return theirs
		})
	})
	t.Run("restored from a backup", func(t *testing.T) {
		t.Parallel()
		emu := newTestEmulator(t)
		ctl := emu.control(t, "backup and restore")
		alias := accName()
		viewer := viewerClient(t, emu)
		theirs, err := viewer.PublishScore(context.Background(), client.PublishScoreInput{
			ScoreURL: accScoreURL(alias + "-theirs"), Alias: alias,
		})
		if err != nil {
			t.Fatal(err)
		}
		emu.deleteAtCleanup(t)(theirs.ID)
		backup := backupAged(ctl)
		if err := viewer.DeleteScore(context.Background(), theirs.ID, false); err != nil {
			t.Fatal(err)
		}
		run(t, emu, alias, func(string) *client.Score {
			ctl.RestoreScores(backup)
			return theirs
		})
	})
}

// TestRestoredHolder: a score that holds the alias of the state's score is taken as
// restored only when the provider's own user published it before the state's score,
// by more than the platform clock's tolerance: one a second older may be a newer
// publish on a clock that stepped back a second.
func TestRestoredHolder(t *testing.T) {
	t.Parallel()
	created := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	state := scoreModel{ScoreID: types.StringValue("a"), CreatedAt: types.StringValue(created.Format(time.RFC3339Nano))}
	for _, c := range []struct {
		older     time.Duration
		publisher string
		want      bool
	}{
		{older: time.Hour, publisher: "alice", want: true},
		{older: client.ClockTolerance + time.Millisecond, publisher: "alice", want: true},
		{older: time.Second, publisher: "alice", want: false},
		{older: -time.Second, publisher: "alice", want: false},
		{older: time.Hour, publisher: "viewer", want: false},
		{older: time.Hour, publisher: "", want: false},
	} {
		holder := &client.Score{Alias: "a", Publisher: c.publisher, CreatedAt: created.Add(-c.older)}
		if got := restoredHolder(state, holder, "alice"); got != c.want {
			t.Errorf("a holder %s older, published by %q: restoredHolder = %t, want %t", c.older, c.publisher, got, c.want)
		}
	}
}
