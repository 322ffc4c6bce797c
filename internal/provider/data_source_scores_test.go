package provider

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// dsFilterFixture publishes six scores for the filter tests: three rendered from
// a.sib, one transposed from b.sib, and two whose rendering fails (.invalid host),
// all from files of this test's own. It returns them in the list's order, and the two
// URLs that repeat.
func dsFilterFixture(t *testing.T, emu *testEmulator) (scores []*client.Score, urlA, urlBad string) {
	t.Helper()
	name := accName()
	urlA, urlB, urlBad := accScoreURL(name+"-a"), accScoreURL(name+"-b"), accBrokenScoreURL(name+"-bad")
	scores = dsPublishScores(t, emu,
		client.PublishScoreInput{ScoreURL: urlA},
		client.PublishScoreInput{ScoreURL: urlBad},
		client.PublishScoreInput{ScoreURL: urlA, Alias: name + "-a2"},
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

// dsQuery is one data source of a filter test and what it must report. A query
// without a score_url filter sees every score on the platform: it only holds on a
// platform of the test's own, and is left out on a shared one.
type dsQuery struct {
	name, args string
	checks     map[string]knownvalue.Check // attribute: check
	everyScore bool
}

// dsQueries returns the configuration of the queries of typ and their state checks.
func dsQueries(t *testing.T, emu *testEmulator, typ string, queries []dsQuery) (config string, checks []statecheck.StateCheck) {
	t.Helper()
	for _, q := range queries {
		if q.everyScore && emu.shared() {
			t.Logf("external platform: not checked: %s.%s, a query over every score on a shared platform", typ, q.name)
			continue
		}
		config += fmt.Sprintf("data %q %q {\n%s\n}\n", typ, q.name, q.args)
		for attribute, check := range q.checks {
			checks = append(checks, dsExpect("data."+typ+"."+q.name, attribute, check))
		}
	}
	return config, checks
}

// TestDataSourceScores_filters lists scores with each filter and with offset and
// max_results, and checks every score against what the platform holds.
func TestDataSourceScores_filters(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	scores, urlA, urlBad := dsFilterFixture(t, emu)
	failed := dsWhere(scores, func(s *client.Score) bool { return s.Status == client.ScoreStatusError })
	fromA := dsWhere(scores, func(s *client.Score) bool { return s.ScoreURL == urlA })
	idle := dsWhere(scores, func(s *client.Score) bool { return s.Status == client.ScoreStatusIdle })
	if len(failed) != 2 || len(fromA) != 3 || len(idle) != 4 {
		t.Fatalf("fixture: %d failed, %d from a.sib, %d idle; want 2, 3, 4", len(failed), len(fromA), len(idle))
	}
	list := func(want knownvalue.Check) map[string]knownvalue.Check {
		return map[string]knownvalue.Check{"scores": want}
	}
	config, checks := dsQueries(t, emu, "mediaplatform_scores", []dsQuery{
		{name: "all", checks: list(dsScoreList(scores)), everyScore: true},
		{name: "failed", args: `status = "error"`, checks: list(dsScoreList(failed)), everyScore: true},
		{name: "from_a", args: fmt.Sprintf("score_url = %q", urlA), checks: list(dsScoreList(fromA))},
		{name: "idle_from_a_paged", args: fmt.Sprintf("status = \"idle\"\n score_url = %q\n offset = 1\n max_results = 1", urlA),
			checks: list(dsScoreList(fromA[1:2]))},
		{name: "failed_from_bad", args: fmt.Sprintf("status = \"error\"\n score_url = %q\n offset = 1", urlBad),
			checks: list(dsScoreList(failed[1:]))},
		{name: "window", args: "offset = 2\n max_results = 3", everyScore: true, checks: map[string]knownvalue.Check{
			"scores": dsScoreList(scores[2:5]), "offset": knownvalue.Int64Exact(2),
		}},
		{name: "past_the_end", args: "offset = 6", checks: list(knownvalue.ListSizeExact(0)), everyScore: true},
		{name: "no_match", args: fmt.Sprintf("status = \"idle\"\n score_url = %q", urlBad), checks: list(knownvalue.ListSizeExact(0))},
	})

	expectRead(t, emu.providerConfig()+config,
		checks...)
}

// TestAccDataSourceScores_pagination lists 250 scores with exactly 3 list requests
// (pages of 100, 100 and 50), and 150 of them with 2.
func TestAccDataSourceScores_pagination(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	// One file for all, so that a score_url filter finds exactly this test's scores.
	scoreURL := accScoreURL(accName() + "-many")
	scores := dsPublishMany(t, emu, scoreURL, 250)
	ctl := emu.optionalControl(t, "the number of list requests")
	listRequests := func(want int, since *int) resource.TestCheckFunc {
		return func(*terraform.State) error {
			if ctl == nil {
				return nil
			}
			route := dsListRoute(ctl)
			if got := ctl.Stats().Requests[route] - *since; got != want {
				return fmt.Errorf("%s was requested %d times for one read, want %d", route, got, want)
			}
			return nil
		}
	}
	var before int
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{
			{
				// The check runs after the plan (which reads the data source once) and
				// the apply of that plan (which does not read it again).
				PreConfig: func() {
					if ctl != nil {
						before = ctl.Stats().Requests[dsListRoute(ctl)]
					}
				},
				Config: emu.providerConfig() + fmt.Sprintf(`
data "mediaplatform_scores" "all" {
  score_url = %q
}
`, scoreURL),
				Check: listRequests(3, &before),
				ConfigStateChecks: []statecheck.StateCheck{
					dsExpect("data.mediaplatform_scores.all", "scores", knownvalue.ListSizeExact(250)),
					statecheck.ExpectKnownValue("data.mediaplatform_scores.all", dsPath("scores", 0, "id"), knownvalue.StringExact(scores[0].ID)),
					statecheck.ExpectKnownValue("data.mediaplatform_scores.all", dsPath("scores", 100, "id"), knownvalue.StringExact(scores[100].ID)),
					statecheck.ExpectKnownValue("data.mediaplatform_scores.all", dsPath("scores", 249, "id"), knownvalue.StringExact(scores[249].ID)),
				},
			},
			{
				PreConfig: func() {
					if ctl != nil {
						before = ctl.Stats().Requests[dsListRoute(ctl)]
					}
				},
				Config: emu.providerConfig() + fmt.Sprintf(`
data "mediaplatform_scores" "some" {
  score_url   = %q
  max_results = 150
}
`, scoreURL),
				Check: listRequests(2, &before),
				ConfigStateChecks: []statecheck.StateCheck{
					dsExpect("data.mediaplatform_scores.some", "scores", knownvalue.ListSizeExact(150)),
					statecheck.ExpectKnownValue("data.mediaplatform_scores.some", dsPath("scores", 149, "id"), knownvalue.StringExact(scores[149].ID)),
				},
			},
		},
	})
}

// dsPublishMany publishes n scores of one file concurrently (without waiting for
// rendering) and returns them in the list's order. They are deleted when the test
// ends.
func dsPublishMany(t *testing.T, emu *testEmulator, scoreURL string, n int) []*client.Score {
	t.Helper()
	c := emu.client(t)
	deleteAtEnd := emu.deleteAtCleanup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	scores := make([]*client.Score, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for range 8 {
		wg.Go(func() {
			for i := range next {
				scores[i], errs[i] = c.PublishScore(ctx, client.PublishScoreInput{ScoreURL: scoreURL})
				if errs[i] == nil {
					deleteAtEnd(scores[i].ID)
				}
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

// TestDataSourceScores_validation rejects bad filters at plan time, before any request.
func TestDataSourceScores_validation(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	testRejectedBeforeRequests(t, emu, blockConfig(emu, `data "mediaplatform_scores" "test"`), []rejectedConfig{
		{`offset = -1`, []string{"offset", "at least 0, got: -1"}},
		{`max_results = 0`, []string{"max_results", "at least 1, got: 0"}},
		{`score_url = "ftp://cdn.example/a.sib"`, []string{"score_url", "absolute http or https URL", `scheme "ftp"`}},
		{`score_url = "cdn.example/a.sib"`, []string{"score_url", "absolute http or https URL"}},
		{`status = ""`, []string{"status", "length must be at least 1"}},
	})
}

// TestAccState_shortPagesListEverything caps the platform's pages at 50: the scores
// data source still lists all 250 scores.
func TestAccState_shortPagesListEverything(t *testing.T) {
	t.Parallel()
	emu, proxy := newProxiedTestEmulator(t, "capped pages")
	c := emu.client(t)
	const n = 250
	for i := range n {
		if _, err := c.PublishScore(context.Background(), client.PublishScoreInput{ScoreURL: accScoreURL(fmt.Sprintf("page-%d", i))}); err != nil {
			t.Fatal(err)
		}
	}
	proxy.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/scores$`, Query: faultproxy.CapLimit(50)})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: emu.providerConfig() + `
data "mediaplatform_scores" "all" {}
`,
			Check: resource.TestCheckResourceAttr("data.mediaplatform_scores.all", "scores.#", fmt.Sprint(n)),
		}},
	})
	if proxy.Count(http.MethodGet, `/scores$`) < n/50 {
		t.Errorf("only %d list requests: the cap was not in force", proxy.Count(http.MethodGet, `/scores$`))
	}
}
