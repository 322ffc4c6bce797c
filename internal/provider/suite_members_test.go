package provider

// Presence per member, from the answers: every member the platform's answers carry to
// the calls behind the resources (the token flow, the administrator login and
// settings, the scores and views) is either one the client needs to conclude, listed
// in client.AnswerMembers with the error the caller then gets, or optional: an answer
// without it changes nothing in the state. The members are taken from the answers
// themselves (the emulator records every member name of every success answer in a
// first run), not from a list, so a member a new answer brings gets its case.

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// membersResources are the resources every run of the members test applies.
func membersResources(alias string) string {
	return fmt.Sprintf(`
resource "mediaplatform_external_authentication" "test" {
  domain_name = "CORP"
  enabled     = true
  servers     = [{ address = "dc1.corp.example", port = 636 }, { address = "dc2.corp.example", port = 389, enabled = false }]
}
resource "mediaplatform_score" "test" {
  score_url = %[1]q
  score_id  = %[2]q
}
resource "mediaplatform_score_view" "test" {
  score = mediaplatform_score.test.score_id
}
`, accScoreURL(alias), alias)
}

// membersRun applies membersResources with the faults given, re-plans (without and
// with a refresh, as the test framework does after an apply), imports the score and
// destroys; for a needed member, the apply must end with the entry's error instead,
// and an apply without the faults must then converge. The commands run in an
// inProcessWorkspace, without the framework's other commands, since the members are
// many.
func membersRun(t *testing.T, emu *testEmulator, faults emulator.Faults, entry client.AnswerMember) {
	t.Helper()
	ctl := emu.control(t, "answers without a member")
	ctl.SetFaults(faults)
	if entry.LeavesLive {
		// A credential the client never learned of cannot be removed: it expires. The
		// emulator's end-of-test check is for the credentials the client knew.
		t.Cleanup(func() { ctl.Expire(true, true) })
	}
	alias := accName()
	w := newInProcessWorkspace(t, emu.providerConfig(), membersResources(alias))
	if entry.Needed {
		w.applyFails(regexp.MustCompile(entry.Without))
		// Then the platform gives the member again: the next apply converges, whatever
		// the failed one left (a publish whose answer named no score is kept to be
		// settled), and the destroy after it removes everything.
		ctl.SetFaults(emulator.Faults{})
		w.apply()
		w.expectEmptyPlans()
	} else {
		w.apply()
		w.expectEmptyPlans()
		w.importVerify("mediaplatform_score.test", alias, "timeouts", entry.ImportUnknown)
	}
	w.destroy()
}

// numbered matches a numbered member of the settings: its family and its number.
var numbered = regexp.MustCompile(`^(server|port|enabled)[0-9]+$`)

// membersRoute reports whether an answer of route is one the resources' calls read.
func membersRoute(route string) bool {
	for _, part := range []string{"/auth", emulator.AdminPath + "/login", emulator.AdminPath + "/externalauth", "/scores"} {
		if strings.Contains(route, part) {
			return true
		}
	}
	return false
}

// TestAccAnswerMembers records the members of every answer a run of membersResources
// meets, then, for each member in turn, has every answer leave it out: an optional
// member changes nothing (the apply, an empty plan, an import that reads what the
// apply stored); a needed one ends the apply with the error client.AnswerMembers
// names. A member without an entry fails: the table must say which it is.
func TestAccAnswerMembers(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	membersRun(t, emu, emulator.Faults{RecordMembers: true}, client.AnswerMember{})
	// A numbered member (server0, server1) is one of a family (serverN), omitted whole.
	families := map[string][]string{}
	for route, names := range emu.control(t, "the members recorded").AnswerMembers() {
		if membersRoute(route) {
			for _, n := range names {
				family := numbered.ReplaceAllString(n, "${1}N")
				if !slices.Contains(families[family], n) {
					families[family] = append(families[family], n)
				}
			}
		}
	}
	if len(families) < 20 {
		t.Fatalf("the first run recorded only %d members: %v", len(families), slices.Sorted(maps.Keys(families)))
	}
	for _, name := range slices.Sorted(maps.Keys(families)) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			entry, ok := client.AnswerMembers[name]
			if !ok {
				t.Fatalf("answers carry the member %q, which client.AnswerMembers does not classify: say whether the "+
					"client needs it (and the error without it) or reads its absence", name)
			}
			membersRun(t, newTestEmulator(t), emulator.Faults{OmitMembers: families[name]}, entry)
		})
	}
}
