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
	// deleted yet: the scores at the end of the list come and go.
	slices.Reverse(ids)
	ch := startChurn(t, env.client(), ids, 100, 4, false)
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
	t.Logf("%d scores published and deleted meanwhile; %d of 30 counts refused", ch.published.Load(), len(failed))
	for _, f := range failed {
		t.Errorf("a count of a moving set was refused: %s", f)
	}
}
