package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/querycheck"
	"github.com/hashicorp/terraform-plugin-testing/querycheck/queryfilter"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

// TestAccScoreList_query runs `terraform query` over scores published out of band:
// the alias prefix filters in the provider, status and score_url on the platform, the
// limit is honoured, a result is named by its alias or else its file, and with
// include_resource it carries the resource as an import would store it.
func TestAccScoreList_query(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	c := emu.client(t)
	record := emu.deleteAtCleanup(t)
	prefix := accName() + "-"
	publish := func(in client.PublishScoreInput) *client.Score {
		s, err := c.PublishScore(context.Background(), in)
		if err != nil {
			t.Fatalf("publishing a score: %v", err)
		}
		record(s.ID)
		return s
	}
	var adopted []*client.Score
	for i := range 3 {
		alias := fmt.Sprintf("%s%d", prefix, i)
		adopted = append(adopted, publish(client.PublishScoreInput{ScoreURL: accScoreURL(alias), Alias: alias, Transpose: i == 1}))
	}
	publish(client.PublishScoreInput{ScoreURL: accScoreURL(accName()), Alias: "other-" + accName()})
	fileURL := "https://cdn.example/scores/" + accName() + "/Nocturne%20No.%202.sib"
	unnamed := publish(client.PublishScoreInput{ScoreURL: fileURL})
	if err := c.Close(context.Background()); err != nil {
		t.Fatal(err)
	}

	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)},
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Query: true,
			Config: emu.providerConfig() + fmt.Sprintf(`
list "mediaplatform_score" "prefixed" {
  provider         = mediaplatform
  include_resource = true
  config {
    alias_prefix = %q
  }
}
list "mediaplatform_score" "limited" {
  provider = mediaplatform
  limit    = 2
  config {
    alias_prefix = %q
  }
}
list "mediaplatform_score" "by_url" {
  provider = mediaplatform
  config {
    score_url = %q
  }
}
`, prefix, prefix, fileURL),
			QueryResultChecks: []querycheck.QueryResultCheck{
				querycheck.ExpectLength("mediaplatform_score.prefixed", 3),
				querycheck.ExpectLength("mediaplatform_score.limited", 2),
				querycheck.ExpectLength("mediaplatform_score.by_url", 1),
				querycheck.ExpectIdentity("mediaplatform_score.by_url", map[string]knownvalue.Check{"id": knownvalue.StringExact(unnamed.ID)}),
				querycheck.ExpectResourceDisplayName("mediaplatform_score.by_url",
					queryfilter.ByResourceIdentity(map[string]knownvalue.Check{"id": knownvalue.StringExact(unnamed.ID)}),
					knownvalue.StringExact("Nocturne No. 2.sib")),
				querycheck.ExpectResourceDisplayName("mediaplatform_score.prefixed",
					queryfilter.ByResourceIdentity(map[string]knownvalue.Check{"id": knownvalue.StringExact(adopted[0].ID)}),
					knownvalue.StringExact(adopted[0].Alias)),
				querycheck.ExpectResourceKnownValues("mediaplatform_score.prefixed",
					queryfilter.ByResourceIdentity(map[string]knownvalue.Check{"id": knownvalue.StringExact(adopted[1].ID)}),
					[]querycheck.KnownValueCheck{
						{Path: tfjsonpath.New("score_url"), KnownValue: knownvalue.StringExact(adopted[1].ScoreURL)},
						{Path: tfjsonpath.New("score_id"), KnownValue: knownvalue.StringExact(adopted[1].Alias)},
						{Path: tfjsonpath.New("transpose"), KnownValue: knownvalue.Bool(true)},
						{Path: tfjsonpath.New("purge_on_destroy"), KnownValue: knownvalue.Bool(false)},
						{Path: tfjsonpath.New("id"), KnownValue: knownvalue.StringRegexp(regexp.MustCompile("^" + adopted[1].ID + "$"))},
					}),
			},
		}},
	})
}

// TestAccScoreList_adoptWithQuery adopts 250 scores published out of band, the way the guide says:
// `terraform query -generate-config-out` writes resource and import blocks, the plan
// imports all of them with no change, and after the apply the plan is empty.
func TestAccScoreList_adoptWithQuery(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	const scores = 250
	emu := newTestEmulator(t)
	w := newWorkspace(t, emu, "")
	w.skipBelowCLI("1.14.0")
	ctl := emu.control(t, "request counts")
	c := emu.client(t)
	record := emu.deleteAtCleanup(t)
	for i := range scores {
		in := client.PublishScoreInput{ScoreURL: fmt.Sprintf("https://cdn.example/adopt/%s/score-%03d.sib", accName(), i)}
		if i%2 == 0 {
			in.Alias = fmt.Sprintf("%s-%03d", accName(), i)
			in.Transpose = i%4 == 0
		}
		s, err := c.PublishScore(context.Background(), in)
		if err != nil {
			t.Fatalf("publishing score %d: %v", i, err)
		}
		record(s.ID)
	}
	if err := c.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(w.dir, "scores.tfquery.hcl"), `
# Terraform stops a list at 100 results unless told otherwise.
list "mediaplatform_score" "all" {
  provider = mediaplatform
  limit    = 1000
}
`)

	before := ctl.Stats()
	w.run("query", "-no-color", "-generate-config-out=generated.tf")
	after := ctl.Stats()
	listRoute := dsListRoute(ctl)
	if n := after.Requests[listRoute] - before.Requests[listRoute]; n != scores/client.MaxListLimit+1 {
		t.Errorf("the query read %d pages for %d scores, want %d: %s", n, scores, scores/client.MaxListLimit+1, requestDelta(before, after))
	}
	t.Logf("terraform query -generate-config-out over %d scores: %s", scores, requestDelta(before, after))
	generated, err := os.ReadFile(filepath.Join(w.dir, "generated.tf"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(generated), "import {"); n != scores {
		t.Fatalf("generated.tf holds %d import blocks, want %d:\n%.2000s", n, scores, generated)
	}

	before = ctl.Stats()
	out := w.run("plan")
	t.Logf("terraform plan importing %d scores: %s", scores, requestDelta(before, ctl.Stats()))
	if want := fmt.Sprintf("Plan: %d to import, 0 to add, 0 to change, 0 to destroy.", scores); !strings.Contains(out, want) {
		t.Fatalf("the plan of the generated configuration is not %q:\n%.3000s", want, out)
	}
	w.run("apply", "-auto-approve")
	before = ctl.Stats()
	if out := w.run("plan", "-detailed-exitcode"); !strings.Contains(out, "No changes.") {
		t.Errorf("after the import the plan is not empty:\n%.3000s", out)
	}
	t.Logf("terraform plan after the import: %s", requestDelta(before, ctl.Stats()))
}
