package client

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Render wait strategies (Config.RenderWait).
const (
	// RenderWaitShared: the waits of one process share their reads (the default).
	RenderWaitShared = "shared"
	// RenderWaitIndividual: every wait polls its own score with a GET.
	RenderWaitIndividual = "individual"
)

// renderMargin is added to a learned rendering time before a score is read, or an
// eighth of that time when that is less: a platform that renders at once (the
// emulator without a render delay) is read as soon as a wave is complete.
const renderMargin = 20 * time.Millisecond

// maxRenderHold bounds how long a round waits for the waits of a wave still on their
// way (their publishes on the wire, or Terraform still starting their creates) before
// it reads the waits that are there.
const maxRenderHold = time.Second

// renderWait shares the rendering waits of one process. Terraform runs many creates
// at once (10 by default), each of which publishes its score and waits for it to
// render; polled one by one, the waits cost five GETs a score and crowd out the
// publishes under a rate limit. Here one goroutine, the reader, serves every wait, in
// rounds, and a round reads only the waits of this process:
//
//   - Each wait is due at a time: once the platform's rendering time is known (learned
//     from a score that finished: its updatedAt less its createdAt, one clock, and no
//     more than this machine's clock saw of its wait, in case that clock stepped; 0
//     for a platform that renders at once), when its score should have finished;
//     before that, and after a read that found it unfinished, after a backoff of its
//     own (pollStart, doubling to pollMax), as the individual poll does.
//   - A round starts when the whole wave is due: Terraform holds at most its
//     parallelism of creates at once, and once as many waits as the most creates ever
//     seen at once (publishing or waiting) are waiting, the wave is complete and is
//     read when its last wait is due. A wave not complete waits for the waits still
//     on their way: while a publish is on the wire, and as long as creates go on
//     arriving (until a pause half as long again as the longest within a complete
//     wave), at most maxRenderHold. A wait read before and still unfinished is read
//     again when its backoff ends, without the waits of a wave not yet due.
//   - A round reads every wait due then, and no other score: one wait reads its own
//     score with a GET; several read the platform's newest scores, where this
//     process's scores are (the tail of the list, found with one count and kept up by
//     this client's publishes, or its head for a platform that lists the newest
//     first), one page of 100 per 100 waits.
//   - A score missing from that page (others published meanwhile, or the platform
//     lists in another order) is read with a GET before anything is concluded, and
//     the next page is placed afresh. A score that failed to render ends its own wait
//     with its own status; the others go on.
//
// So a round costs one request per 100 waits, and a wave one round: an apply of N
// scores at Terraform's parallelism P reads about N ÷ P times, whatever the size of
// the platform, the number of scores in the run or the speed of the machine (which
// only moves when the waits of a wave arrive, not how many share a read).
//
// Why not ask the list for what is still rendering (the specification's list criteria
// allow a status filter)? Criteria match by equality, so pending and rendering are a
// list each, and a status the provider does not know is not asked for at all; a
// platform may read the criteria only from a body it never gets on a GET (contract
// §V1, V2), so a filter may be ignored without a word; and a score that left the
// filtered list is not thereby read: the wait returns the final score, which a
// filtered list of the unfinished does not hold. The newest page holds all three.
type renderWait struct {
	mu      sync.Mutex
	waiters map[*renderWaiter]struct{}
	running bool
	wake    chan struct{} // a new wait may be due earlier than the loop sleeps

	// renderTime is the time from a publish to a final status, learned once
	// renderKnown.
	renderTime  time.Duration
	renderKnown bool
	// onWire is the number of this client's publishes on the wire; peak is the
	// most creates seen at once (publishes on the wire and waits), the size of a wave;
	// activity is when a wait last arrived or a publish began or ended; quiet is the
	// longest pause in that within a complete wave (the longest of the last ones),
	// half as long again.
	onWire   int
	peak     int
	activity time.Time
	quiet    time.Duration
	// newestFirst is set once the platform was seen listing the newest scores first;
	// total is the count of scores estimated for placing the tail page (valid when
	// totalKnown), kept up by this client's publishes.
	newestFirst, totalKnown bool
	total                   int

	onClock // the client's one clock, set by New
}

// renderWaiter is one wait.
type renderWaiter struct {
	id      string
	since   time.Time // when the wait began, right after the publish answered
	due     time.Time
	backoff time.Duration
	read    bool          // read at least once
	last    *Score        // the latest read
	result  *Score        // the final read, when done
	err     error         // what ended the wait otherwise
	done    chan struct{} // closed when result or err is set
}

// poke wakes the reader: a wait arrived or a publish ended, so the round may start
// at another time.
func (r *renderWait) poke() {
	r.mu.Lock()
	wake := r.wake
	r.mu.Unlock()
	if wake == nil {
		return
	}
	select {
	case wake <- struct{}{}:
	default:
	}
}

// published tells the wait that this client published a score: the list grew by one.
func (r *renderWait) published() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.total++
}

// rendered is how long after its wait began a score is read first, once the
// rendering time is known. Called with r.mu held.
func (r *renderWait) rendered() time.Duration {
	return r.renderTime + min(renderMargin, r.renderTime/8)
}

// publishing tells the wait that a publish is on the wire, whose wait may follow;
// the function returned says it ended.
func (r *renderWait) publishing() func() {
	r.mu.Lock()
	r.onWire++
	r.peak = max(r.peak, r.onWire+len(r.waiters))
	r.activity = r.now()
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		r.onWire--
		r.activity = r.now()
		r.mu.Unlock()
		r.poke()
	}
}

// forgetTotal makes the next shared read count the list again (this client deleted a
// score, or may have).
func (r *renderWait) forgetTotal() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.totalKnown = false
}

// WaitForRendering waits until the score reaches a final status (idle or error) and
// returns it, or the latest read when ctx ends first. With RenderWaitShared, the
// waits of the process share their reads (see renderWait).
func (c *Client) WaitForRendering(ctx context.Context, idOrAlias string) (*Score, error) {
	if c.cfg.RenderWait == RenderWaitIndividual {
		return c.waitAlone(ctx, idOrAlias)
	}
	r := &c.renders
	w := &renderWaiter{id: idOrAlias, done: make(chan struct{}), backoff: pollStart}
	r.mu.Lock()
	w.since = r.now()
	w.due = w.since.Add(pollStart) // a score just published is pending
	if r.renderKnown {
		w.due = w.since.Add(r.rendered())
	}
	if r.waiters == nil {
		r.waiters = map[*renderWaiter]struct{}{}
		r.wake = make(chan struct{}, 1)
	}
	r.waiters[w] = struct{}{}
	r.peak = max(r.peak, r.onWire+len(r.waiters))
	r.activity = w.since
	if !r.running {
		r.running = true
		go c.renderLoop(c.logContext(c.detached(ctx)))
	}
	r.mu.Unlock()
	r.poke()

	select {
	case <-w.done:
		if w.err != nil {
			return w.last, w.err
		}
		return w.result, nil
	case <-ctx.Done():
		r.mu.Lock()
		delete(r.waiters, w)
		last := w.last
		r.mu.Unlock()
		status := ""
		if last != nil {
			status = last.Status
		}
		return last, fmt.Errorf("waiting for score %s to render (status %q): %w", idOrAlias, status, ctx.Err())
	}
}

// waitAlone polls one score with GETs and a backoff of its own (RenderWaitIndividual).
func (c *Client) waitAlone(ctx context.Context, idOrAlias string) (*Score, error) {
	var last *Score
	err := poll(ctx, func() (bool, error) {
		s, err := c.GetScore(ctx, idOrAlias)
		if err != nil {
			return false, err
		}
		last = s
		if err := statusShown(idOrAlias, s); err != nil {
			return true, err
		}
		return c.finalStatus(ctx, s), nil
	}, func() string {
		status := ""
		if last != nil {
			status = last.Status
		}
		return fmt.Sprintf("waiting for score %s to render (status %q)", idOrAlias, status)
	})
	return last, err
}

// statusShown returns a *MissingMemberError for a whole score read without a status:
// no later read can tell the wait when the rendering ends, so it ends now instead of
// polling to its timeout.
func statusShown(idOrAlias string, s *Score) error {
	if s.Status != "" {
		return nil
	}
	return &MissingMemberError{Member: "status", Object: "score " + idOrAlias,
		Need: "no read tells the rendering wait when it is rendered"}
}

// finalStatus reports whether a score's status is final (idle or error).
func (c *Client) finalStatus(ctx context.Context, s *Score) bool {
	if !KnownScoreStatus(s.Status) {
		logDebug(ctx, "score has a status the provider does not know; waiting on", map[string]any{"status": s.Status})
	}
	return s.Status == ScoreStatusIdle || s.Status == ScoreStatusError
}

// renderLoop is the reader: it serves the waits, a round at a time, while there are
// any.
func (c *Client) renderLoop(ctx context.Context) {
	r := &c.renders
	for {
		r.mu.Lock()
		if len(r.waiters) == 0 {
			r.running = false
			r.mu.Unlock()
			return
		}
		at := earliest(r.nextRound())
		now := r.now()
		r.mu.Unlock()
		if at.After(now) {
			// Woken by the timer, the round is placed again with the waits there are
			// then: a wait that arrived meanwhile may make it later (its wave is not
			// complete without it) or earlier.
			select {
			case <-r.after(at.Sub(now)):
			case <-r.wake: // a new wait, or a publish ended
			}
			continue
		}
		r.mu.Lock()
		now = r.now()
		_, wave := r.nextRound()
		whole := !wave.IsZero() && !wave.After(now)
		var due []*renderWaiter
		var sinces []time.Time
		for w := range r.waiters {
			switch {
			case w.read && !w.due.After(now):
				due = append(due, w)
			case !w.read && whole:
				due = append(due, w)
				sinces = append(sinces, w.since)
			}
		}
		if whole && len(r.waiters) >= r.peak {
			// A complete wave: the longest pause between two of its waits arriving
			// tells how long an incomplete one waits for the next. The longest seen
			// lasts, fading by a sixteenth a wave: a wave read before its last wait
			// arrived costs a read more, and the run's order of waves with it.
			slices.SortFunc(sinces, func(a, b time.Time) int { return a.Compare(b) })
			var gap time.Duration
			for i := 1; i < len(sinces); i++ {
				gap = max(gap, sinces[i].Sub(sinces[i-1]))
			}
			r.quiet = min(max(gap+gap/2, r.quiet-r.quiet/16), maxRenderHold)
		}
		r.mu.Unlock()
		if len(due) > 0 {
			c.readWaiters(ctx, due)
		}
	}
}

// nextRound is when the reader reads next: at the earlier of again, when a wait read
// before and still unfinished is due again (its backoff ended), and wave, when the
// waits not read yet (the wave) are read together. Zero times: none. Called with
// r.mu held.
//
// The wave is read when the last of its waits is due, once it is complete (as many
// waits as the most creates seen at once). An incomplete wave waits besides for the
// rest: while a publish is on the wire, and until no wait arrived and no publish
// began or ended for half as long again as the longest such pause within the
// complete waves, either for at most maxRenderHold from its first wait.
func (r *renderWait) nextRound() (again, wave time.Time) {
	var lastDue, first time.Time
	fresh := false
	for w := range r.waiters {
		if w.read {
			if again.IsZero() || w.due.Before(again) {
				again = w.due
			}
			continue
		}
		fresh = true
		if w.due.After(lastDue) {
			lastDue = w.due
		}
		if first.IsZero() || w.since.Before(first) {
			first = w.since
		}
	}
	if !fresh {
		return again, time.Time{}
	}
	wave = lastDue
	if len(r.waiters) < r.peak {
		hold := r.activity.Add(r.quiet + renderMargin)
		if r.onWire > 0 || hold.After(first.Add(maxRenderHold)) {
			hold = first.Add(maxRenderHold)
		}
		wave = later(wave, hold)
	}
	return again, wave
}

// earliest is the earlier of two times, zero meaning none.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
