package client

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// TestWalkUnderChurn: while another client publishes and deletes scores, every
// walk over the list names every score that was there from the walk's start to its
// end exactly once, whether the platform lists the oldest first (deletes before the
// walk's position move the scores back) or the newest first (every publish moves them
// forward, contract §V9). Without the overlap, each walk missed a few scores (oldest
// first) or ended in "pages did not advance" (newest first).
func TestWalkUnderChurn(t *testing.T) {
	t.Parallel()
	for _, order := range listOrders {
		t.Run(order.name, func(t *testing.T) {
			t.Parallel()
			env, c := seededChurnEnv(t, 1500, 10*time.Millisecond, order.readings)
			start := time.Now()
			initial, err := c.ListAllScores(env.ctx, ScoreCriteria{}, 0, 0)
			if err != nil || len(initial) != 1500 {
				t.Fatalf("the quiet listing: %d scores, %v", len(initial), err)
			}
			ids := make([]string, len(initial))
			for i, s := range initial {
				ids[i] = s.ID
			}
			// The churn keeps pace with this machine: about one publish and one delete
			// per page the walk reads (measured on the quiet listing, 15 pages), at most
			// 60 a second, so that a slower machine meets the same churn per page.
			pagesPerSecond := float64(len(initial)/MaxListLimit) / time.Since(start).Seconds()
			rate := int(min(max(pagesPerSecond, 3), 60))
			ch := startChurn(t, env.client(), ids, rate, 3, true)
			var missed, walks int
			for walks < 4 {
				listed, err := c.ListAllScores(env.ctx, ScoreCriteria{}, 0, 0)
				if err != nil {
					t.Fatalf("walk %d under churn: %v", walks, err)
				}
				walks++
				count := map[string]int{}
				for _, s := range listed {
					count[s.ID]++
					if count[s.ID] == 2 {
						t.Errorf("walk %d listed score %s twice", walks, s.ID)
					}
				}
				for _, id := range ids {
					if count[id] == 0 && !ch.isDeleted(id) {
						missed++
						t.Errorf("walk %d missed score %s, present all along", walks, id)
					}
				}
			}
			ch.halt()
			if err, _ := ch.failed.Load().(error); err != nil {
				t.Fatalf("the churn failed: %v", err)
			}
			if ch.published.Load() < 10 {
				t.Fatalf("the churn published only %d scores during %d walks: the test proves nothing", ch.published.Load(), walks)
			}
			t.Logf("%d walks, %d scores published and %d deleted meanwhile (%d a second, for %.0f pages a second), %d missed",
				walks, ch.published.Load(), len(ch.deleted), rate, pagesPerSecond, missed)
		})
	}
}

// TestWalkThatCannotKeepUp: a platform whose scores before the walk's position vanish
// faster than it can step back ends the walk in an error that says so, never a
// partial list.
func TestWalkThatCannotKeepUp(t *testing.T) {
	t.Parallel()
	w := &scoreWalk{seen: map[string]struct{}{}}
	page := func(from, n int) []*Score {
		out := make([]*Score, n)
		for i := range out {
			out[i] = &Score{ID: fmt.Sprintf("s%05d", from+i)}
		}
		return out
	}
	if v, err := w.judge(page(0, 100), 0, 100); err != nil || len(v.fresh) != 100 || v.stepBack || v.last {
		t.Fatalf("first page: %+v, %v", v, err)
	}
	// Every later page holds only scores never seen: what was listed keeps vanishing.
	var err error
	for i := 1; i < 100 && err == nil; i++ {
		var v pageVerdict
		v, err = w.judge(page(1000*i, 100), 98, 100)
		if err == nil && !v.stepBack {
			t.Fatalf("page %d without an anchor was taken: %+v", i, v)
		}
	}
	var changed *ListChangedError
	if !errors.As(err, &changed) {
		t.Fatalf("got %v, want a ListChangedError", err)
	}
	t.Log(err)
}
