package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

// TestAccDataSourceScoreCount counts with each filter, offset and limit, against the
// scores the platform holds.
func TestAccDataSourceScoreCount(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	scores, urlA, urlBad := dsFilterFixture(t, emu.client(t))
	failed := len(dsWhere(scores, func(s *client.Score) bool { return s.Status == client.ScoreStatusError }))
	fromA := len(dsWhere(scores, func(s *client.Score) bool { return s.ScoreURL == urlA }))
	if len(scores) != 6 || failed != 2 || fromA != 3 {
		t.Fatalf("fixture: %d scores, %d failed, %d from a.sib; want 6, 2, 3", len(scores), failed, fromA)
	}
	const route = "POST /api/v1/apis/media.publishing;version=2;realm=global/scores/count"
	expectTotal := func(name string, want int) statecheck.StateCheck {
		return dsExpect("data.mediaplatform_score_count."+name, "total", knownvalue.Int64Exact(int64(want)))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(),
		Steps: []resource.TestStep{{
			Config: emu.providerConfig() + fmt.Sprintf(`
data "mediaplatform_score_count" "all" {}
data "mediaplatform_score_count" "failed" {
  status = "error"
}
data "mediaplatform_score_count" "from_a" {
  score_url = %[1]q
}
data "mediaplatform_score_count" "idle_from_a_after_one" {
  status    = "idle"
  score_url = %[1]q
  offset    = 1
}
data "mediaplatform_score_count" "limited" {
  limit = 4
}
data "mediaplatform_score_count" "window" {
  offset = 4
  limit  = 100
}
data "mediaplatform_score_count" "failed_past_the_end" {
  score_url = %[2]q
  offset    = 2
}
data "mediaplatform_score_count" "unknown_status" {
  status = "archived"
}
`, urlA, urlBad),
			ConfigStateChecks: []statecheck.StateCheck{
				expectTotal("all", len(scores)),
				expectTotal("failed", failed),
				expectTotal("from_a", fromA),
				expectTotal("idle_from_a_after_one", fromA-1),
				expectTotal("limited", 4),
				expectTotal("window", len(scores)-4),
				expectTotal("failed_past_the_end", 0),
				expectTotal("unknown_status", 0),
			},
			Check: func(*terraform.State) error {
				if n := emu.requests(route); n != 8 {
					return fmt.Errorf("%s was requested %d times, want 8 (one per data source)", route, n)
				}
				return nil
			},
		}},
	})
}

// TestAccDataSourceScoreCount_validation rejects an out-of-range offset or limit at
// plan time, before any request.
func TestAccDataSourceScoreCount_validation(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	var steps []resource.TestStep
	for _, tc := range []struct {
		args string
		err  []string
	}{
		{`offset = -1`, []string{"offset", "at least 0, got: -1"}},
		{`limit = 0`, []string{"limit", "between 1 and 100, got: 0"}},
		{`limit = 101`, []string{"limit", "between 1 and 100, got: 101"}},
		{`score_url = "https://"`, []string{"score_url", "no host"}},
	} {
		steps = append(steps, resource.TestStep{
			Config:      emu.providerConfig() + "data \"mediaplatform_score_count\" \"test\" {\n  " + tc.args + "\n}\n",
			ExpectError: errorPattern(tc.err...),
		})
	}
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: testProviderFactories(), Steps: steps})
	expectNoRequests(t, emu)
}
