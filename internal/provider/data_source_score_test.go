package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

// TestDataSourceScore reads one score by its UUID and another by its alias, and
// checks every attribute against the score the platform holds.
func TestDataSourceScore(t *testing.T) {
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

	expectRead(t, emu.providerConfig()+fmt.Sprintf(`
data "mediaplatform_score" "by_uuid" {
  id = %q
}
data "mediaplatform_score" "by_alias" {
  id = %q
}
`, plain.ID, alias),
		checks...)
}

// TestDataSourceScore_errors reports an unknown score clearly, and rejects an id
// that can be neither a UUID nor an alias before any request.
func TestDataSourceScore_errors(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	expectPlanError(t, emu.providerConfig()+`
data "mediaplatform_score" "test" {
  id = "bad alias!"
}
`, errorPattern("id", "a score UUID or a score alias", `got "bad alias!"`))
	expectNoRequests(t, emu)
	expectPlanError(t, emu.providerConfig()+`
data "mediaplatform_score" "test" {
  id = "no-such-score"
}
`, errorPattern("Score not found", `No score with the UUID or alias "no-such-score" exists`, "publishing/NOT_FOUND"))
}
