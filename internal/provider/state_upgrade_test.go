package provider

// Upgrading the provider: a state written by an earlier release plans nothing with
// today's build, with and without the refresh.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// resourceAttributes are the top-level attributes of every resource type at its
// schema's version. A schema that changes without its version fails
// TestSchemaVersionsFollowAttributes: an attribute with a default added to a schema
// whose version stays would plan an update of every resource an earlier release wrote.
var resourceAttributes = map[string]struct {
	version    int64
	attributes []string
}{
	"mediaplatform_score": {1, []string{"adopt_unrecorded", "created_at", "id", "page_count", "purge_on_destroy",
		"score_id", "score_url", "status", "transpose", "updated_at", "wait_for_rendering"}},
	"mediaplatform_score_view": {2, []string{"created_at", "expires_at", "expires_in", "expires_locally_at", "id", "lang",
		"license_string", "pages", "printable", "renew_before", "score", "viewer_url"}},
	"mediaplatform_external_authentication": {0, []string{"deletion_policy", "domain_name", "enabled", "id", "servers"}},
}

// TestSchemaVersionsFollowAttributes: every resource type's top-level attributes are
// those recorded for its schema version; a new attribute bumps the version (the
// upgrade fills its default: defaultFillingUpgraders) and is added to earlierStates.
func TestSchemaVersionsFollowAttributes(t *testing.T) {
	t.Parallel()
	resp, err := providerserver.NewProtocol6(New("test")())().GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for typ, s := range resp.ResourceSchemas {
		want, ok := resourceAttributes[typ]
		if !ok {
			t.Errorf("resource type %s has no row in resourceAttributes", typ)
			continue
		}
		var have []string
		for _, a := range s.Block.Attributes {
			have = append(have, a.Name)
		}
		slices.Sort(have)
		if s.Version != want.version || !slices.Equal(have, want.attributes) {
			t.Errorf("%s: version %d with attributes %v; recorded: version %d with %v. An attribute added or removed "+
				"bumps the schema's Version (its state upgrade fills a default: defaultFillingUpgraders) and is recorded "+
				"here and in earlierStates", typ, s.Version, have, want.version, want.attributes)
		}
	}
}

// earlierStates says, for every resource type, how the oldest release whose state a
// user may still hold wrote it: its schema version and the attributes added since.
// A new attribute adds itself here (and bumps the schema's Version).
var earlierStates = map[string]struct {
	version int
	without []string
}{
	// Before adopt_unrecorded (76462de and earlier): version 0.
	"mediaplatform_score": {version: 0, without: []string{"adopt_unrecorded"}},
	// Before expires_locally_at: version 1 (version 0 had the view id as id).
	"mediaplatform_score_view": {version: 1, without: []string{"expires_locally_at"}},
	// Unchanged since the first release.
	"mediaplatform_external_authentication": {version: 0},
}

// writeEarlierState rewrites the workspace's local state as an earlier release wrote
// it (earlierStates), every resource type of which must be in it.
func writeEarlierState(t *testing.T, dir string) {
	t.Helper()
	name := filepath.Join(dir, "terraform.tfstate")
	raw, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var state map[string]any
	if err := json.Unmarshal(raw, &state); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	resources, _ := state["resources"].([]any)
	for _, item := range resources {
		r, _ := item.(map[string]any)
		typ, _ := r["type"].(string)
		earlier, ok := earlierStates[typ]
		if !ok || r["mode"] != "managed" {
			continue
		}
		seen[typ] = true
		instances, _ := r["instances"].([]any)
		for _, item := range instances {
			inst, _ := item.(map[string]any)
			inst["schema_version"] = earlier.version
			attrs, _ := inst["attributes"].(map[string]any)
			for _, a := range earlier.without {
				if _, ok := attrs[a]; !ok {
					t.Fatalf("%s has no attribute %s to take out: earlierStates is out of date", r["type"], a)
				}
				delete(attrs, a)
			}
		}
	}
	for typ := range earlierStates {
		if !seen[typ] {
			t.Fatalf("the state holds no %s", typ)
		}
	}
	serial, _ := state["serial"].(float64)
	state["serial"] = serial + 1
	out, err := json.MarshalIndent(state, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, name, string(out))
}

// TestAccUpgrade_earlierStatePlansNothing: a state written by an earlier release (every
// resource type, as earlierStates says it was written) plans nothing with today's
// build, with -refresh=false (fast CI plans, saved plans) and with the refresh. Before,
// -refresh=false planned an update of every score: "+ adopt_unrecorded = false", and
// status, page_count and updated_at known only after the apply.
func TestAccUpgrade_earlierStatePlansNothing(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	emu := newTestEmulator(t)
	emu.takeSettings(t)
	name := accName()
	w := newWorkspace(t, emu, fmt.Sprintf(`
resource "mediaplatform_score" "aliased" {
  score_url = %[1]q
  score_id  = %[2]q
}
resource "mediaplatform_score" "plain" {
  score_url = %[3]q
}
resource "mediaplatform_score_view" "test" {
  score = mediaplatform_score.aliased.score_id
}
resource "mediaplatform_external_authentication" "test" {
  domain_name = "CORP"
  enabled     = true
  servers     = [{ address = "dc1.corp.example", port = 636 }]
}
data "mediaplatform_score" "aliased" {
  id = mediaplatform_score.aliased.score_id
}
`, accScoreURL(name), name, accScoreURL(name+"-plain")))
	w.run("apply", "-auto-approve")
	writeEarlierState(t, w.dir)
	for _, args := range [][]string{{"plan", "-refresh=false"}, {"plan"}} {
		cmd := w.command(append(args, "-detailed-exitcode")...)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "No changes.") {
			t.Errorf("terraform %s on the earlier release's state: %v, want no changes:\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// TestAccUpgrade_newerStateIsRefused pins what a downgrade meets: a build given a
// state written by a later release (a score at a schema version above its own, as
// this release's version 1 is to the builds before it) refuses it in plan, apply and
// destroy, makes no request, and leaves the state file as it was. The upgrade notes
// say so for every resource type whose schema version is above 0
// (TestUpgradeNotesNameEverySchemaVersion).
func TestAccUpgrade_newerStateIsRefused(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	emu := newTestEmulator(t)
	ctl := emu.control(t, "request counts")
	w := newWorkspace(t, emu, fmt.Sprintf("resource \"mediaplatform_score\" \"s\" {\n  score_url = %q\n}\n", accScoreURL(accName())))
	w.run("apply", "-auto-approve")

	stateFile := filepath.Join(w.dir, "terraform.tfstate")
	raw, err := os.ReadFile(stateFile)
	if err != nil {
		t.Fatal(err)
	}
	var state map[string]any
	if err := json.Unmarshal(raw, &state); err != nil {
		t.Fatal(err)
	}
	newer := resourceAttributes["mediaplatform_score"].version + 1
	resources, _ := state["resources"].([]any)
	for _, item := range resources {
		r, _ := item.(map[string]any)
		instances, _ := r["instances"].([]any)
		for _, item := range instances {
			if inst, ok := item.(map[string]any); ok {
				inst["schema_version"] = newer
			}
		}
	}
	if len(resources) == 0 {
		t.Fatalf("the state holds no resource:\n%s", raw)
	}
	out, err := json.MarshalIndent(state, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, stateFile, string(out))
	written, err := os.ReadFile(stateFile)
	if err != nil {
		t.Fatal(err)
	}

	requests := func() int {
		n := 0
		for _, c := range ctl.Stats().Requests {
			n += c
		}
		return n
	}
	before, scores := requests(), ctl.Stats().Scores
	for _, args := range [][]string{{"plan"}, {"apply", "-auto-approve"}, {"destroy", "-auto-approve"}} {
		out, err := w.command(args...).CombinedOutput()
		if err == nil {
			t.Errorf("terraform %s took a state of schema version %d:\n%s", strings.Join(args, " "), newer, out)
		}
		if want := errorPattern("Resource instance managed by newer provider version"); !want.Match(out) {
			t.Errorf("terraform %s on a newer state lacks %s:\n%s", strings.Join(args, " "), want, out)
		}
	}
	if n := requests() - before; n != 0 {
		t.Errorf("the build sent %d requests for a state it cannot read, want 0", n)
	}
	if n := ctl.Stats().Scores; n != scores {
		t.Errorf("the platform holds %d scores, want %d as before", n, scores)
	}
	if now, err := os.ReadFile(stateFile); err != nil || string(now) != string(written) {
		t.Errorf("the state file changed (%v):\n%s", err, now)
	}
	// Put back the state this build wrote, so that the test's cleanup can destroy.
	writeFile(t, stateFile, string(raw))
}

// TestUpgradeNotesNameEverySchemaVersion: the upgrade notes name every resource type
// whose state an earlier build cannot read (schema version above 0) with its version,
// and say what to do before upgrading.
func TestUpgradeNotesNameEverySchemaVersion(t *testing.T) {
	t.Parallel()
	notes, err := os.ReadFile(filepath.Join("..", "..", "docs", "guides", "upgrading.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(notes)
	for typ, r := range resourceAttributes {
		if r.version == 0 {
			continue
		}
		if want := fmt.Sprintf("| `%s` | %d |", typ, r.version); !strings.Contains(text, want) {
			t.Errorf("the upgrade notes lack the row %q", want)
		}
	}
	for _, want := range []string{"terraform state pull", "Resource instance managed by newer provider version"} {
		if !strings.Contains(text, want) {
			t.Errorf("the upgrade notes do not say %q", want)
		}
	}
}
