package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

// TestAccDataSourceScore reads one score by its UUID and another by its alias, and
// checks every attribute against the score the platform holds.
func TestAccDataSourceScore(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	plainName, alias := accName(), accName()
	scores := dsPublishScores(t, emu,
		client.PublishScoreInput{ScoreURL: accScoreURL(plainName)},
		client.PublishScoreInput{ScoreURL: accScoreURL(alias), Alias: alias, Transpose: true},
	)
	plain, aliased := scores[0], scores[1]
	if plain.Alias != "" {
		plain, aliased = aliased, plain
	}
	if aliased.Status != client.ScoreStatusIdle || aliased.PageCount() == 0 {
		t.Fatalf("the emulator did not render the score: %+v", aliased)
	}

	var checks []statecheck.StateCheck
	expectScore := func(address, id string, s *client.Score) {
		checks = append(checks,
			dsExpect(address, "id", knownvalue.StringExact(id)),
			dsExpect(address, "uuid", knownvalue.StringExact(s.ID)))
		for name, check := range dsScoreAttributes(s) {
			checks = append(checks, dsExpect(address, name, check))
		}
	}
	expectScore("data.mediaplatform_score.by_uuid", plain.ID, plain)
	expectScore("data.mediaplatform_score.by_alias", alias, aliased)

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: emu.providerConfig() + fmt.Sprintf(`
data "mediaplatform_score" "by_uuid" {
  id = %q
}
data "mediaplatform_score" "by_alias" {
  id = %q
}
`, plain.ID, alias),
			ConfigStateChecks: checks,
		}},
	})
}

// TestAccDataSourceScore_errors reports an unknown score clearly, and rejects an id
// that can be neither a UUID nor an alias before any request.
func TestAccDataSourceScore_errors(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{
			{
				Config: emu.providerConfig() + `
data "mediaplatform_score" "test" {
  id = "bad alias!"
}
`,
				ExpectError: errorPattern("id", "a score UUID or a score alias", `got "bad alias!"`),
			},
			{
				PreConfig: func() { expectNoRequests(t, emu) },
				Config: emu.providerConfig() + `
data "mediaplatform_score" "test" {
  id = "no-such-score"
}
`,
				ExpectError: errorPattern("Score not found", `No score with the UUID or alias "no-such-score" exists`, "publishing/NOT_FOUND"),
			},
		},
	})
}
