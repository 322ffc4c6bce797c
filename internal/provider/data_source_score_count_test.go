package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

// TestDataSourceScoreCount counts with each filter, offset and limit, against the
// scores the platform holds.
func TestDataSourceScoreCount(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	scores, urlA, urlBad := dsFilterFixture(t, emu)
	failed := len(dsWhere(scores, func(s *client.Score) bool { return s.Status == client.ScoreStatusError }))
	fromA := len(dsWhere(scores, func(s *client.Score) bool { return s.ScoreURL == urlA }))
	if len(scores) != 6 || failed != 2 || fromA != 3 {
		t.Fatalf("fixture: %d scores, %d failed, %d from a.sib; want 6, 2, 3", len(scores), failed, fromA)
	}
	total := func(want int) map[string]knownvalue.Check {
		return map[string]knownvalue.Check{"total": knownvalue.Int64Exact(int64(want))}
	}
	queries := []dsQuery{
		{name: "all", checks: total(len(scores)), everyScore: true},
		{name: "failed", args: `status = "error"`, checks: total(failed), everyScore: true},
		{name: "from_a", args: fmt.Sprintf("score_url = %q", urlA), checks: total(fromA)},
		{name: "idle_from_a_after_one", args: fmt.Sprintf("status = \"idle\"\n score_url = %q\n offset = 1", urlA), checks: total(fromA - 1)},
		// At least the fixture's six scores exist, shared platform or not.
		{name: "limited", args: "limit = 4", checks: total(4)},
		{name: "window", args: "offset = 4\n limit = 100", checks: total(len(scores) - 4), everyScore: true},
		{name: "failed_past_the_end", args: fmt.Sprintf("score_url = %q\n offset = 2", urlBad), checks: total(0)},
		// No score has a status the platform does not know.
		{name: "unknown_status", args: `status = "archived"`, checks: total(0)},
	}
	config, checks := dsQueries(t, emu, "mediaplatform_score_count", queries)
	ctl := emu.optionalControl(t, "one count request per data source")
	expectRead(t, emu.providerConfig()+config, checks...)
	if ctl != nil {
		route := "POST " + ctl.PublishingURL("") + "/scores/count"
		if n := ctl.Stats().Requests[route]; n != len(queries) {
			t.Errorf("%s was requested %d times, want %d (one per data source)", route, n, len(queries))
		}
	}
}

// TestDataSourceScoreCount_validation rejects an out-of-range offset or limit at
// plan time, before any request.
func TestDataSourceScoreCount_validation(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	testRejectedBeforeRequests(t, emu, blockConfig(emu, `data "mediaplatform_score_count" "test"`), []rejectedConfig{
		{`offset = -1`, []string{"offset", "at least 0, got: -1"}},
		{`limit = 0`, []string{"limit", "between 1 and 100, got: 0"}},
		{`limit = 101`, []string{"limit", "between 1 and 100, got: 101"}},
		{`score_url = "https://"`, []string{"score_url", "no host"}},
	})
}
