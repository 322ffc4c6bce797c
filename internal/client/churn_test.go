package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// churn is another client of a shared platform: it publishes new scores and deletes
// scores that were there before, at a steady rate, until stopped. A score is marked
// deleted before its DELETE is sent, so "never deleted" is never claimed of a score
// that may be gone.
type churn struct {
	mu        sync.Mutex
	deleted   map[string]bool
	victims   []string // scores it may delete, in random order
	published atomic.Int64
	failed    atomic.Value // the first error
	stop      chan struct{}
	done      sync.WaitGroup
}

// startChurn publishes and deletes (one of victims, in their order or shuffled)
// perSecond times a second each, in workers goroutines, until the test ends or halt
// is called.
func startChurn(t *testing.T, c *Client, victims []string, perSecond, workers int, shuffle bool) *churn {
	t.Helper()
	ch := &churn{deleted: map[string]bool{}, victims: append([]string(nil), victims...), stop: make(chan struct{})}
	if shuffle {
		rand.Shuffle(len(ch.victims), func(i, j int) { ch.victims[i], ch.victims[j] = ch.victims[j], ch.victims[i] })
	}
	interval := time.Duration(workers) * time.Second / time.Duration(perSecond)
	ctx := context.Background()
	for w := range workers {
		ch.done.Go(func() {
			tick := time.NewTicker(interval)
			defer tick.Stop()
			for i := 0; ; i++ {
				select {
				case <-ch.stop:
					return
				case <-tick.C:
				}
				if _, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: fmt.Sprintf("https://cdn.example/churn-%d-%d.sib", w, i)}); err != nil {
					ch.failed.CompareAndSwap(nil, err)
				}
				ch.published.Add(1)
				ch.mu.Lock()
				if len(ch.victims) == 0 {
					ch.mu.Unlock()
					continue
				}
				victim := ch.victims[0]
				ch.victims = ch.victims[1:]
				ch.deleted[victim] = true
				ch.mu.Unlock()
				if err := c.DeleteScore(ctx, victim, false); err != nil {
					ch.failed.CompareAndSwap(nil, err)
				}
			}
		})
	}
	t.Cleanup(ch.halt)
	return ch
}

// halt stops the churn and waits for its requests to end.
func (ch *churn) halt() {
	select {
	case <-ch.stop:
	default:
		close(ch.stop)
	}
	ch.done.Wait()
}

// isDeleted reports whether the churn has deleted (or is deleting) the score.
func (ch *churn) isDeleted(id string) bool {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return ch.deleted[id]
}

// listOrders are the two list orders a walk meets: the contract's (oldest first) and
// the newest first of contract §V9.
var listOrders = []struct {
	name     string
	readings emulator.Readings
}{
	{"oldest first", emulator.Readings{}},
	{"newest first", emulator.Readings{NewestFirst: true}},
}

// seededChurnEnv is an emulator holding n scores, answering after latency, with the
// readings given, and a client of it.
func seededChurnEnv(t *testing.T, n int, latency time.Duration, readings emulator.Readings) (*emuEnv, *Client) {
	t.Helper()
	seed := &emulator.Seed{}
	for i := range n {
		seed.Scores = append(seed.Scores, emulator.SeedScore{ScoreURL: fmt.Sprintf("https://cdn.example/seeded-%d.sib", i)})
	}
	env := newEmuEnv(t, emulator.Options{RenderDelay: -1, Seed: seed,
		Faults: emulator.Faults{LatencyMs: int(latency / time.Millisecond), Readings: readings}})
	return env, env.client()
}

// TestCountUnderChurn: counts of a set that other clients change are snapshots,
// never errors (contract §V4): filtered and offset counts while scores are published
// and deleted all answer, and each answer lies between the set's smallest and largest
// size during the test. Before the recount, several in 30 failed with "cannot be
// true".
func TestCountUnderChurn(t *testing.T) {
	t.Parallel()
	env, c := seededChurnEnv(t, 300, 10*time.Millisecond, emulator.Readings{})
	ids := make([]string, 0, 300)
	for s, err := range c.AllScores(env.ctx, ScoreCriteria{}, 0, 0) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
	}
	// The churn publishes a score and deletes the newest seeded one it has not
	// deleted yet: the scores at the end of the list come and go. Its rate keeps pace
	// with this machine: about one and a half changes in the time a quiet count and its
	// check take (60 a second on a machine where that is 25 ms; at 2.5, 100 a second,
	// one run in eight had a count refused five times in a row even on an idle
	// machine), so that a slower machine meets the same churn per count.
	start := time.Now()
	if _, err := c.CountScores(env.ctx, CountScoresInput{Offset: 10}); err != nil {
		t.Fatal(err)
	}
	quiet := time.Since(start)
	rate := int(min(max(1.5/quiet.Seconds(), 5), 100))
	slices.Reverse(ids)
	ch := startChurn(t, env.client(), ids, rate, 4, false)
	var failed []string
	for i := range 30 {
		in := CountScoresInput{Criteria: ScoreCriteria{Status: "idle"}}
		if i%2 == 1 {
			in = CountScoresInput{Offset: 10}
		}
		n, err := c.CountScores(env.ctx, in)
		var countErr *CountError
		switch {
		case errors.As(err, &countErr):
			failed = append(failed, err.Error())
		case err != nil:
			t.Fatal(err)
		case n < 200 || n > 600:
			t.Errorf("count %d of %+v: not a size the set had", n, in)
		}
	}
	ch.halt()
	if ch.published.Load() < 10 {
		t.Fatalf("the churn published only %d scores: the test proves nothing", ch.published.Load())
	}
	t.Logf("%d scores published and deleted meanwhile (%d a second; a quiet count took %s); %d of 30 counts refused",
		ch.published.Load(), rate, quiet, len(failed))
	for _, f := range failed {
		t.Errorf("a count of a moving set was refused: %s", f)
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
