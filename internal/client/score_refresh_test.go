package client

// The adaptive refresh (RefreshScore): the same answers as GetScore, from one
// listing when that is cheaper, under the rules of scoreRefresh.

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// refreshRequests is what a refresh cost on env's emulator: GETs of single scores,
// list pages and counts, between two snapshots of the stats.
type refreshRequests struct{ gets, pages, counts int }

func (env *emuEnv) refreshRequests(before, after emulator.Stats) refreshRequests {
	base := env.emu.PublishingURL("")
	d := func(route string) int { return after.Requests[route] - before.Requests[route] }
	return refreshRequests{
		gets: d("GET " + base + "/scores/{id}"), pages: d("GET " + base + "/scores"), counts: d("POST " + base + "/scores/count"),
	}
}

func (r refreshRequests) total() int { return r.gets + r.pages + r.counts }

// newRefreshEnv starts an emulator whose platform holds n scores (every third with an
// alias), seeded rather than published through the API (a publish is a request
// through the race detector: the package's tests published some 5,000 of them, the
// most CPU of any of its parts), with statuses that hold still, and returns it with
// the scores in the order they were created, as one listing reads them.
func newRefreshEnv(t *testing.T, n int) (*emuEnv, []*Score) {
	t.Helper()
	seed := &emulator.Seed{Scores: make([]emulator.SeedScore, n)}
	index := make(map[string]int, n)
	for i := range seed.Scores {
		seed.Scores[i].ScoreURL = fmt.Sprintf("https://cdn.example/refresh/%d.sib", i)
		if i%3 == 0 {
			seed.Scores[i].ScoreID = fmt.Sprintf("refresh-%d", i)
		}
		index[seed.Scores[i].ScoreURL] = i
	}
	env := newEmuEnv(t, emulator.Options{RenderDelay: time.Hour, Seed: seed})
	listed, err := env.client().ListAllScores(env.ctx, ScoreCriteria{}, 0, 0)
	if err != nil {
		t.Fatalf("listing the seeded scores: %v", err)
	}
	scores := make([]*Score, n)
	for _, s := range listed {
		if i, ok := index[s.ScoreURL]; ok {
			scores[i] = s
		}
	}
	for i, s := range scores {
		if s == nil {
			t.Fatalf("the listing of the %d seeded scores lacks score %d", n, i)
		}
	}
	return env, scores
}

// refreshAll refreshes every key with ten reads at a time, as Terraform's default
// parallelism does, and returns the answers in order.
func refreshAll(ctx context.Context, t *testing.T, c *Client, keys []string) []*Score {
	t.Helper()
	out := make([]*Score, len(keys))
	sem := make(chan struct{}, 10)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	for i, key := range keys {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			s, err := c.RefreshScore(ctx, key)
			if err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("%s: %w", key, err))
				mu.Unlock()
			}
			out[i] = s
		})
	}
	wg.Wait()
	for _, err := range errs {
		t.Error(err)
	}
	return out
}

func ids(scores []*Score) []string {
	out := make([]string, len(scores))
	for i, s := range scores {
		out[i] = s.ID
	}
	return out
}

// TestRefreshScoreBatches: 250 reads on a platform of 250 scores cost a count, the
// three list pages and a few GETs, and the answers equal GetScore's, attribute for
// attribute (by UUID and by alias); with RefreshIndividual every read is one GET.
func TestRefreshScoreBatches(t *testing.T) {
	t.Parallel()
	env, scores := newRefreshEnv(t, 250) // statuses hold still
	keys := ids(scores)
	for _, s := range scores {
		if s.Alias != "" {
			keys = append(keys, s.Alias)
		}
	}

	before := env.stats()
	batched := refreshAll(env.ctx, t, env.client(), keys)
	cost := env.refreshRequests(before, env.stats())
	t.Logf("%d reads on a platform of 250: %+v", len(keys), cost)
	// The reads that start before the count answers read for themselves: one wave of
	// ten (Terraform's parallelism) on an idle machine, about two under the race
	// detector on a loaded one.
	if cost.pages != 3 || cost.counts != 1 || cost.total() > 25 {
		t.Errorf("%d reads on a platform of 250 cost %+v, want 1 count, 3 pages and at most 25 requests", len(keys), cost)
	}

	before = env.stats()
	individual := refreshAll(env.ctx, t, env.client(func(cfg *Config) { cfg.RefreshStrategy = RefreshIndividual }), keys)
	if cost := env.refreshRequests(before, env.stats()); cost.gets != len(keys) || cost.total() != len(keys) {
		t.Errorf("with RefreshIndividual %d reads cost %+v, want one GET each", len(keys), cost)
	}
	direct := env.client()
	for i, key := range keys {
		want, err := direct.GetScore(env.ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(batched[i], want) {
			t.Errorf("RefreshScore(%q) from the listing differs from GetScore:\n%s\n%s", key, raw(batched[i]), want.Raw)
		}
		if !reflect.DeepEqual(individual[i], want) {
			t.Errorf("RefreshScore(%q) with RefreshIndividual differs from GetScore:\n%s\n%s", key, raw(individual[i]), want.Raw)
		}
	}
}

// TestRefreshScoreFewReadsLargePlatform: 10 reads on a platform of 1,500 scores cost
// at most 11 requests (their GETs and one count), never a listing; one read costs
// one GET.
func TestRefreshScoreFewReadsLargePlatform(t *testing.T) {
	t.Parallel()
	env, scores := newRefreshEnv(t, 1500) // statuses hold still

	before := env.stats()
	refreshAll(env.ctx, t, env.client(), ids(scores[:1]))
	if cost := env.refreshRequests(before, env.stats()); cost.total() != 1 || cost.gets != 1 {
		t.Errorf("one read cost %+v, want one GET", cost)
	}
	before = env.stats()
	refreshAll(env.ctx, t, env.client(), ids(scores[:10]))
	if cost := env.refreshRequests(before, env.stats()); cost.pages != 0 || cost.total() > 11 {
		t.Errorf("10 reads on a platform of 1,500 cost %+v, want at most 11 requests and no list page", cost)
	}
}

// TestRefreshScoreWritesAndAbsence: after a listing, a publish and a delete through
// the client discard it (the new score is found, the deleted one is gone); a score
// the listing lacks is read with a GET, and reported gone only on the GET's word.
func TestRefreshScoreWritesAndAbsence(t *testing.T) {
	t.Parallel()
	env, scores := newRefreshEnv(t, 30) // statuses hold still
	c := env.client()
	refreshAll(env.ctx, t, c, ids(scores))

	// Published out of band after the listing: not in it, found by a GET.
	other := env.client()
	late, err := other.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/refresh/late.sib"})
	if err != nil {
		t.Fatal(err)
	}
	before := env.stats()
	if got, err := c.RefreshScore(env.ctx, late.ID); err != nil || got.ID != late.ID {
		t.Fatalf("a score published after the listing: %v, %v", got, err)
	}
	if cost := env.refreshRequests(before, env.stats()); cost.gets != 1 {
		t.Errorf("a score absent from the listing cost %+v, want its GET", cost)
	}
	// Absent from the listing and from the platform: gone, on the GET's word.
	if _, err := c.RefreshScore(env.ctx, "00000000-0000-4000-8000-000000000000"); !IsNotFound(err) {
		t.Errorf("a score nobody has: %v, want not found", err)
	}

	// A delete through the client discards the listing: the score is gone at once.
	if err := c.DeleteScore(env.ctx, scores[0].ID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RefreshScore(env.ctx, scores[0].ID); !IsNotFound(err) {
		t.Errorf("a score deleted through the client reads as %v, want not found", err)
	}
	// A publish through the client too.
	mine, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/refresh/mine.sib", Alias: "refresh-mine"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := c.RefreshScore(env.ctx, "refresh-mine"); err != nil || got.ID != mine.ID {
		t.Errorf("a score published through the client: %v, %v", got, err)
	}
}

// TestRefreshScoreListingLifetime: a listing answers reads for snapshotLifetime from
// its request; a read that starts later reads for itself.
func TestRefreshScoreListingLifetime(t *testing.T) {
	t.Parallel()
	env, scores := newRefreshEnv(t, 20) // statuses hold still
	c := env.client()
	var mu sync.Mutex
	now := time.Now()
	c.refresh.clk = funcClock{now: func() time.Time { mu.Lock(); defer mu.Unlock(); return now }, after: time.After}
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }

	refreshAll(env.ctx, t, c, ids(scores))
	before := env.stats()
	advance(snapshotLifetime - time.Second)
	refreshAll(env.ctx, t, c, ids(scores[:5]))
	if cost := env.refreshRequests(before, env.stats()); cost.total() != 0 {
		t.Errorf("reads within the listing's lifetime cost %+v, want nothing", cost)
	}
	advance(2 * time.Second)
	before = env.stats()
	if _, err := c.RefreshScore(env.ctx, scores[0].ID); err != nil {
		t.Fatal(err)
	}
	if cost := env.refreshRequests(before, env.stats()); cost.total() == 0 {
		t.Error("a read after the listing's lifetime was answered from it")
	}
}

// TestRefreshScoreFailedListing: when the list answers 500, every read still gets
// its score, by GET.
func TestRefreshScoreFailedListing(t *testing.T) {
	t.Parallel()
	env, scores := newRefreshEnv(t, 40) // statuses hold still
	c, proxy := env.proxiedClient()
	proxy.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/scores$`, Respond: &faultproxy.Answer{Status: http.StatusInternalServerError}})
	got := refreshAll(env.ctx, t, c, ids(scores))
	for i, s := range got {
		if s == nil || s.ID != scores[i].ID {
			t.Errorf("read %d: %v, want score %s", i, s, scores[i].ID)
		}
	}
	if proxy.Count(http.MethodGet, `/scores$`) == 0 {
		t.Error("no listing was tried: the test does not exercise the fallback")
	}
}

func raw(s *Score) string {
	if s == nil {
		return "<nil>"
	}
	return string(s.Raw)
}

// TestRefreshScoreWaitsNoLongerThanAGet: a read that finds the listing in flight
// waits for it only until its own GET's time is up (the injected timer fires), then
// reads for itself, while the page it waited for is still on its way.
func TestRefreshScoreWaitsNoLongerThanAGet(t *testing.T) {
	t.Parallel()
	env, scores := newRefreshEnv(t, 250) // statuses hold still
	c, proxy := env.proxiedClient()
	timeUp := make(chan time.Time)
	c.refresh.clk = funcClock{now: time.Now, after: func(time.Duration) <-chan time.Time { return timeUp }}
	release := make(chan struct{})
	proxy.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/scores$`, Hold: release})

	for _, s := range scores[:2] { // a GET, then the count (and a GET)
		if _, err := c.RefreshScore(env.ctx, s.ID); err != nil {
			t.Fatal(err)
		}
	}
	// The third read reaches the three pages a listing costs: it requests the listing
	// and waits for its first page, held by the proxy, until its time is up.
	got := make(chan *Score, 1)
	go func() {
		s, err := c.RefreshScore(env.ctx, scores[2].ID)
		if err != nil {
			t.Error(err)
		}
		got <- s
	}()
	for proxy.Count(http.MethodGet, `/scores$`) == 0 {
		time.Sleep(time.Millisecond)
	}
	timeUp <- time.Now()
	if s := <-got; s == nil || s.ID != scores[2].ID {
		t.Fatalf("the read that gave up waiting: %v", s)
	}
	if n := proxy.Count(http.MethodGet, `/scores/[^/]+$`); n != 3 {
		t.Errorf("%d GETs, want 3: the third read made its own once its time was up", n)
	}
	close(release)
}

// TestRefreshScoreListingStopsWithTheReads: reads of the 20 oldest scores of a
// platform of 1,000 request a listing of 10 pages, which reads only the first: the
// reads that follow find their scores there, nobody waits, and no further page is
// read.
func TestRefreshScoreListingStopsWithTheReads(t *testing.T) {
	t.Parallel()
	env, scores := newRefreshEnv(t, 1000) // statuses hold still
	c := env.client()
	c.refresh.clk = funcClock{now: time.Now, after: func(time.Duration) <-chan time.Time { return nil }} // waits end only with their page
	before := env.stats()
	for _, s := range scores[:20] {
		got, err := c.RefreshScore(env.ctx, s.ID)
		if err != nil || got.ID != s.ID {
			t.Fatalf("%s: %v, %v", s.ID, got, err)
		}
	}
	cost := env.refreshRequests(before, env.stats())
	if cost.pages != 1 || cost.counts != 1 || cost.gets != 9 {
		t.Errorf("20 reads of the oldest scores of 1,000 cost %+v, want 9 GETs, 1 count and 1 page", cost)
	}
}

// TestRefreshScorePagesFollowTheWaitingReads: every read waiting for the listing keeps
// one page in flight, at most maxPagesInFlight.
func TestRefreshScorePagesFollowTheWaitingReads(t *testing.T) {
	t.Parallel()
	env, scores := newRefreshEnv(t, 2000) // statuses hold still
	c, proxy := env.proxiedClient()
	c.refresh.clk = funcClock{now: time.Now, after: func(time.Duration) <-chan time.Time { return nil }}
	for _, s := range scores[:19] { // a GET, the count, GETs until 20 reads reach the 20 pages
		if _, err := c.RefreshScore(env.ctx, s.ID); err != nil {
			t.Fatal(err)
		}
	}
	release := make(chan struct{})
	proxy.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/scores$`, Hold: release})
	var wg sync.WaitGroup
	for _, s := range scores[1990:] { // the newest: on the last page
		wg.Go(func() {
			if got, err := c.RefreshScore(env.ctx, s.ID); err != nil || got.ID != s.ID {
				t.Errorf("%s: %v, %v", s.ID, got, err)
			}
		})
	}
	deadline := time.Now().Add(10 * time.Second)
	for proxy.Count(http.MethodGet, `/scores$`) < maxPagesInFlight && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // room for a page too many to show
	if n := proxy.Count(http.MethodGet, `/scores$`); n != maxPagesInFlight {
		t.Errorf("10 reads waiting keep %d pages in flight, want %d", n, maxPagesInFlight)
	}
	getsBefore := proxy.Count(http.MethodGet, `/scores/[0-9a-f-]{36}$`)
	close(release)
	wg.Wait()
	// The reads find their scores on the last page, unless a read waited longer than
	// a GET of its own would take and bought one (the rent-or-buy rule, which a loaded
	// machine tips): the listing then ends once no read waits for it.
	n, gets := proxy.Count(http.MethodGet, `/scores$`), proxy.Count(http.MethodGet, `/scores/[0-9a-f-]{36}$`)-getsBefore
	if n > 20 || (n < 20 && gets == 0) {
		t.Errorf("%d pages read (and %d GETs) to find the newest scores of 2,000, want all 20 pages", n, gets)
	}
}

// TestRefreshUnderChurn: the batched refresh answers as GETs do while another client
// publishes and deletes: every score present all along is found, every score deleted
// before the refresh is gone, in either list order (contract §V9).
func TestRefreshUnderChurn(t *testing.T) {
	t.Parallel()
	for _, order := range listOrders {
		t.Run(order.name, func(t *testing.T) {
			t.Parallel()
			env, c := seededChurnEnv(t, 1500, 5*time.Millisecond, order.readings)
			all, err := c.ListAllScores(env.ctx, ScoreCriteria{}, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			ids := make([]string, len(all))
			for i, s := range all {
				ids[i] = s.ID
			}
			// Every other score may be deleted by the churn; of the others, 50 are deleted
			// now and the rest stay.
			var victims, gone, kept []string
			for i, id := range ids {
				switch {
				case i%2 == 0:
					victims = append(victims, id)
				case len(gone) < 50:
					gone = append(gone, id)
				default:
					kept = append(kept, id)
				}
			}
			writer := env.client()
			for _, id := range gone {
				if err := writer.DeleteScore(env.ctx, id, false); err != nil {
					t.Fatal(err)
				}
			}
			ch := startChurn(t, writer, victims, 60, 3, true)
			reads := append(append([]string(nil), kept...), gone...)
			for round := range 2 {
				reader := env.client() // a new provider process: a refresh of its own
				var wrong atomic.Int64
				var wg sync.WaitGroup
				work := make(chan string)
				for range 10 { // Terraform's default parallelism
					wg.Go(func() {
						for id := range work {
							s, err := reader.RefreshScore(context.Background(), id)
							isGone := slices.Contains(gone, id)
							switch {
							case isGone && !IsNotFound(err):
								t.Errorf("round %d: score %s, deleted before the refresh: %+v, %v", round, id, s, err)
								wrong.Add(1)
							case !isGone && (err != nil || s.ID != id):
								t.Errorf("round %d: score %s, present all along: %+v, %v", round, id, s, err)
								wrong.Add(1)
							}
						}
					})
				}
				for _, id := range reads {
					work <- id
				}
				close(work)
				wg.Wait()
				if wrong.Load() > 0 {
					t.Fatalf("round %d: %d of %d reads answered otherwise than a GET", round, wrong.Load(), len(reads))
				}
			}
			ch.halt()
			if ch.published.Load() < 10 {
				t.Fatalf("the churn published only %d scores: the test proves nothing", ch.published.Load())
			}
			requests := env.stats().Requests
			t.Logf("%d reads in 2 rounds, %d scores published and deleted meanwhile; requests: %v", 2*len(reads),
				ch.published.Load(), requests)
		})
	}
}

// TestRefreshScoreSummaries: on a platform whose listing gives each score as a summary
// (reading summaryListings), every read answers what GetScore answers (transpose and
// renderings included), with one GET each and at most one count and the listing's
// pages besides; once a page showed only summaries, the next refresh of the process
// reads with GETs alone. (On a platform that lists whole scores a refresh makes a GET
// only for the reads before the count: TestRefreshScoreBatches.)
func TestRefreshScoreSummaries(t *testing.T) {
	t.Parallel()
	// Rendered at once, so that the statuses hold still and the renderings are there.
	env := newEmuEnv(t, emulator.Options{RenderDelay: -1, Faults: emulator.Faults{Readings: emulator.Readings{SummaryListings: true}}})
	publisher := env.client()
	var keys []string
	for i := range 150 {
		s, err := publisher.PublishScore(env.ctx, PublishScoreInput{ScoreURL: fmt.Sprintf("https://cdn.example/sum/%d.sib", i), Transpose: i%2 == 0})
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, s.ID)
	}
	c := env.client()
	var pagesBefore int
	for round := range 2 {
		before := env.stats()
		got := refreshAll(env.ctx, t, c, keys)
		cost := env.refreshRequests(before, env.stats())
		t.Logf("refresh %d of %d scores listed as summaries: %+v", round+1, len(keys), cost)
		if cost.gets != len(keys) || cost.counts > 1 || cost.pages > 2 {
			t.Errorf("refresh %d: %+v; want one GET a read, at most one count and the 2 pages", round+1, cost)
		}
		if round == 1 && pagesBefore > 0 && cost.pages+cost.counts > 0 {
			t.Errorf("after a listing of summaries the refresh listed again: %+v", cost)
		}
		pagesBefore = cost.pages
		for i, s := range got {
			want, err := c.GetScore(env.ctx, keys[i])
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(s, want) {
				t.Errorf("RefreshScore(%q) differs from GetScore:\n%s\n%s", keys[i], raw(s), want.Raw)
			}
		}
	}
}
