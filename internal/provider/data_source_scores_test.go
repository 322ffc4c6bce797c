package provider

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

// dsFilterFixture publishes six scores for the filter tests: three rendered from
// a.sib, one transposed from b.sib, and two whose rendering fails (.invalid host).
// It returns them in the list's order, and the two URLs that repeat.
func dsFilterFixture(t *testing.T, c *client.Client) (scores []*client.Score, urlA, urlBad string) {
	t.Helper()
	urlA, urlB, urlBad := "https://cdn.example/a.sib", "https://cdn.example/b.sib", "https://scores.invalid/bad.sib"
	scores = dsPublishScores(t, c,
		client.PublishScoreInput{ScoreURL: urlA},
		client.PublishScoreInput{ScoreURL: urlBad},
		client.PublishScoreInput{ScoreURL: urlA, Alias: "ds-a2"},
		client.PublishScoreInput{ScoreURL: urlB, Transpose: true},
		client.PublishScoreInput{ScoreURL: urlBad},
		client.PublishScoreInput{ScoreURL: urlA},
	)
	return scores, urlA, urlBad
}

// dsWhere returns the scores for which keep holds, in order.
func dsWhere(scores []*client.Score, keep func(*client.Score) bool) []*client.Score {
	var out []*client.Score
	for _, s := range scores {
		if keep(s) {
			out = append(out, s)
		}
	}
	return out
}

// TestAccDataSourceScores_filters lists scores with each filter and with offset and
// max_results, and checks every score against what the platform holds.
func TestAccDataSourceScores_filters(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	scores, urlA, urlBad := dsFilterFixture(t, emu.client(t))
	failed := dsWhere(scores, func(s *client.Score) bool { return s.Status == client.ScoreStatusError })
	fromA := dsWhere(scores, func(s *client.Score) bool { return s.ScoreURL == urlA })
	idle := dsWhere(scores, func(s *client.Score) bool { return s.Status == client.ScoreStatusIdle })
	if len(failed) != 2 || len(fromA) != 3 || len(idle) != 4 {
		t.Fatalf("fixture: %d failed, %d from a.sib, %d idle; want 2, 3, 4", len(failed), len(fromA), len(idle))
	}

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(),
		Steps: []resource.TestStep{{
			Config: emu.providerConfig() + fmt.Sprintf(`
data "mediaplatform_scores" "all" {}
data "mediaplatform_scores" "failed" {
  status = "error"
}
data "mediaplatform_scores" "from_a" {
  score_url = %[1]q
}
data "mediaplatform_scores" "idle_from_a_paged" {
  status      = "idle"
  score_url   = %[1]q
  offset      = 1
  max_results = 1
}
data "mediaplatform_scores" "failed_from_bad" {
  status    = "error"
  score_url = %[2]q
  offset    = 1
}
data "mediaplatform_scores" "window" {
  offset      = 2
  max_results = 3
}
data "mediaplatform_scores" "past_the_end" {
  offset = 6
}
data "mediaplatform_scores" "no_match" {
  status    = "idle"
  score_url = %[2]q
}
`, urlA, urlBad),
			ConfigStateChecks: []statecheck.StateCheck{
				dsExpect("data.mediaplatform_scores.all", "scores", dsScoreList(scores)),
				dsExpect("data.mediaplatform_scores.failed", "scores", dsScoreList(failed)),
				dsExpect("data.mediaplatform_scores.from_a", "scores", dsScoreList(fromA)),
				dsExpect("data.mediaplatform_scores.idle_from_a_paged", "scores", dsScoreList(fromA[1:2])),
				dsExpect("data.mediaplatform_scores.failed_from_bad", "scores", dsScoreList(failed[1:])),
				dsExpect("data.mediaplatform_scores.window", "scores", dsScoreList(scores[2:5])),
				dsExpect("data.mediaplatform_scores.window", "offset", knownvalue.Int64Exact(2)),
				dsExpect("data.mediaplatform_scores.past_the_end", "scores", knownvalue.ListSizeExact(0)),
				dsExpect("data.mediaplatform_scores.no_match", "scores", knownvalue.ListSizeExact(0)),
			},
		}},
	})
}

// TestAccDataSourceScores_pagination lists 250 scores with exactly 3 list requests
// (pages of 100, 100 and 50), and 150 of them with 2.
func TestAccDataSourceScores_pagination(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	scores := dsPublishMany(t, emu.client(t), 250)
	route := dsListRoute(emu)
	if n := emu.requests(route); n != 0 {
		t.Fatalf("%d list requests before the test", n)
	}
	listRequests := func(want int, since *int) resource.TestCheckFunc {
		return func(*terraform.State) error {
			if got := emu.requests(route) - *since; got != want {
				return fmt.Errorf("%s was requested %d times for one read, want %d", route, got, want)
			}
			return nil
		}
	}
	var before int
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(),
		Steps: []resource.TestStep{
			{
				// The check runs after the plan (which reads the data source once) and
				// the apply of that plan (which does not read it again).
				Config: emu.providerConfig() + `
data "mediaplatform_scores" "all" {}
`,
				Check: listRequests(3, &before),
				ConfigStateChecks: []statecheck.StateCheck{
					dsExpect("data.mediaplatform_scores.all", "scores", knownvalue.ListSizeExact(250)),
					statecheck.ExpectKnownValue("data.mediaplatform_scores.all", dsPath("scores", 0, "id"), knownvalue.StringExact(scores[0].ID)),
					statecheck.ExpectKnownValue("data.mediaplatform_scores.all", dsPath("scores", 100, "id"), knownvalue.StringExact(scores[100].ID)),
					statecheck.ExpectKnownValue("data.mediaplatform_scores.all", dsPath("scores", 249, "id"), knownvalue.StringExact(scores[249].ID)),
				},
			},
			{
				PreConfig: func() { before = emu.requests(route) },
				Config: emu.providerConfig() + `
data "mediaplatform_scores" "some" {
  max_results = 150
}
`,
				Check: listRequests(2, &before),
				ConfigStateChecks: []statecheck.StateCheck{
					dsExpect("data.mediaplatform_scores.some", "scores", knownvalue.ListSizeExact(150)),
					statecheck.ExpectKnownValue("data.mediaplatform_scores.some", dsPath("scores", 149, "id"), knownvalue.StringExact(scores[149].ID)),
				},
			},
		},
	})
}

// dsPublishMany publishes n scores concurrently (without waiting for rendering) and
// returns them in the list's order.
func dsPublishMany(t *testing.T, c *client.Client, n int) []*client.Score {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	scores := make([]*client.Score, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for range 8 {
		wg.Go(func() {
			for i := range next {
				scores[i], errs[i] = c.PublishScore(ctx, client.PublishScoreInput{ScoreURL: fmt.Sprintf("https://cdn.example/many/%03d.sib", i)})
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("publishing score %d: %v", i, err)
		}
	}
	dsSortScores(scores)
	return scores
}

// TestAccDataSourceScores_validation rejects bad filters at plan time, before any request.
func TestAccDataSourceScores_validation(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	var steps []resource.TestStep
	for _, tc := range []struct {
		args string
		err  []string
	}{
		{`offset = -1`, []string{"offset", "at least 0, got: -1"}},
		{`max_results = 0`, []string{"max_results", "at least 1, got: 0"}},
		{`score_url = "ftp://cdn.example/a.sib"`, []string{"score_url", "absolute http or https URL", `scheme "ftp"`}},
		{`score_url = "cdn.example/a.sib"`, []string{"score_url", "absolute http or https URL"}},
		{`status = ""`, []string{"status", "length must be at least 1"}},
	} {
		steps = append(steps, resource.TestStep{
			Config:      emu.providerConfig() + "data \"mediaplatform_scores\" \"test\" {\n  " + tc.args + "\n}\n",
			ExpectError: errorPattern(tc.err...),
		})
	}
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: testProviderFactories(), Steps: steps})
	expectNoRequests(t, emu)
}
