package client

import (
	"context"
	"fmt"
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

// renderCluster gathers into one read the waits due within this much of each other,
// at least: the creates of one Terraform wave start as the waits of the previous wave
// end, spread by Terraform's own work between them. Once the rendering time is known,
// the window is a quarter of it, at most maxRenderCluster: reading the wave's early
// scores a little late costs less than a read more, and a wave read at once restarts at
// once, so the waves stay together. The cap trades reads for time: at -parallelism=50
// (waves of 50 spread over about 250 ms by Terraform), 1,000 creates took 1,067
// requests at 0.87 x the time of one poll per score with a 250 ms window, 1,090 at
// 0.80 x with 150 ms, 1,200 at 0.76 x with 50 ms (BENCHMARKS.md, 2026-11-25).
const (
	renderCluster    = 50 * time.Millisecond
	maxRenderCluster = 150 * time.Millisecond
)

// renderMargin is added to a learned rendering time before a score is read.
const renderMargin = 20 * time.Millisecond

// renderWait shares the rendering waits of one process. Terraform runs many creates
// at once (10 by default), each of which waits for its score to render; polled one by
// one, the waits cost five GETs a score and crowd out the publishes under a rate
// limit. Here one goroutine serves every wait:
//
//   - Each wait is due at a time: once the platform's rendering time is known (learned
//     from a score that finished: its updatedAt less its createdAt, one clock, and no
//     more than this machine's clock saw of its wait, in case that clock stepped), when
//     its score should have finished; before that, and after a read that found it
//     unfinished, after a backoff of its own (pollStart, doubling to pollMax), as the
//     individual poll does.
//   - When a wait is due, every wait due within renderCluster of it is read with it.
//     One due wait reads its own score with a GET (a single create still polls its own
//     score). Several read one list page: the newest scores, at the end where the
//     platform lists them (the tail of the list, found with a count, or its head for a
//     platform that lists the newest first), at one request for up to 100 waits.
//   - A score missing from that page (others published meanwhile, or the platform
//     lists in another order) is read with a GET before anything is concluded, and
//     the next page is placed afresh. A score that failed to render ends its own wait
//     with its own status; the others go on.
//
// The creates of one wave finish in the same read, so Terraform starts the next wave
// together, and the waves stay together: 1000 creates at Terraform's default
// parallelism cost about 100 reads instead of 5000.
type renderWait struct {
	mu      sync.Mutex
	waiters map[*renderWaiter]struct{}
	running bool
	wake    chan struct{} // a new wait may be due earlier than the loop sleeps

	// renderTime is the time from a publish to a final status, learned (0: unknown).
	renderTime time.Duration
	// newestFirst is set once the platform was seen listing the newest scores first;
	// total is the count of scores estimated for placing the tail page (valid when
	// totalKnown), kept up by this client's publishes.
	newestFirst, totalKnown bool
	total                   int

	// now and after are the clock (tests); nil is the time package's.
	now   func() time.Time
	after func(time.Duration) <-chan time.Time
}

// renderWaiter is one wait.
type renderWaiter struct {
	id      string
	since   time.Time // when the wait began, right after the publish answered
	due     time.Time
	backoff time.Duration
	last    *Score        // the latest read
	result  *Score        // the final read, when done
	err     error         // what ended the wait otherwise
	done    chan struct{} // closed when result or err is set
}

func (r *renderWait) clock() time.Time {
	if r.now != nil {
		return r.now()
	}
	return time.Now()
}

func (r *renderWait) timer(d time.Duration) <-chan time.Time {
	if r.after != nil {
		return r.after(d)
	}
	return time.After(d)
}

// published tells the wait that this client published a score: the list grew by one.
func (r *renderWait) published() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.total++
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
	w.since = r.clock()
	w.due = w.since.Add(pollStart) // a score just published is pending
	if r.renderTime > 0 {
		w.due = w.since.Add(r.renderTime + renderMargin)
	}
	if r.waiters == nil {
		r.waiters = map[*renderWaiter]struct{}{}
		r.wake = make(chan struct{}, 1)
	}
	r.waiters[w] = struct{}{}
	if !r.running {
		r.running = true
		go c.renderLoop(c.logContext(c.detached(ctx)))
	}
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}

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

// finalStatus reports whether a score's status is final (idle or error).
func (c *Client) finalStatus(ctx context.Context, s *Score) bool {
	if !KnownScoreStatus(s.Status) {
		logDebug(ctx, "score has a status the provider does not know; waiting on", map[string]any{"status": s.Status})
	}
	return s.Status == ScoreStatusIdle || s.Status == ScoreStatusError
}

// renderLoop serves the waits while there are any.
func (c *Client) renderLoop(ctx context.Context) {
	r := &c.renders
	for {
		r.mu.Lock()
		if len(r.waiters) == 0 {
			r.running = false
			r.mu.Unlock()
			return
		}
		at := r.nextRead()
		now := r.clock()
		r.mu.Unlock()
		if at.After(now) {
			select {
			case <-r.timer(at.Sub(now)):
			case <-r.wake:
				continue // a new wait: it may be due earlier
			}
		}
		r.mu.Lock()
		now = r.clock()
		var due []*renderWaiter
		for w := range r.waiters {
			if !w.due.After(now) {
				due = append(due, w)
			}
		}
		r.mu.Unlock()
		if len(due) > 0 {
			c.readWaiters(ctx, due)
		}
	}
}

// nextRead is when the loop reads next: when the earliest wait is due, or the latest
// of the waits due within the cluster window of it. Called with r.mu held.
func (r *renderWait) nextRead() time.Time {
	var first time.Time
	for w := range r.waiters {
		if first.IsZero() || w.due.Before(first) {
			first = w.due
		}
	}
	window := min(max(renderCluster, r.renderTime/4), maxRenderCluster)
	at := first
	for w := range r.waiters {
		if w.due.After(at) && w.due.Sub(first) <= window {
			at = w.due
		}
	}
	return at
}

// readWaiters reads the scores of the due waits, with one GET for a single wait or
// one list page for several, and a GET for each score the page lacks.
func (c *Client) readWaiters(ctx context.Context, due []*renderWaiter) {
	var page map[string]*Score
	if len(due) > 1 {
		page = c.newestScores(ctx, due)
	}
	missing := false
	for _, w := range due {
		s, ok := page[w.id]
		if !ok {
			if page != nil {
				missing = true
			}
			var err error
			if s, err = c.GetScore(ctx, w.id); err != nil {
				c.renders.finish(w, nil, err)
				continue
			}
		}
		c.renders.judge(ctx, c, w, s)
	}
	if missing {
		c.renders.mu.Lock()
		c.renders.totalKnown = false // place the next page afresh
		c.renders.mu.Unlock()
	}
}

// newestScores reads the page of the platform's newest scores, by id and alias, or
// nil when it cannot (the waits then read their scores with GETs).
func (c *Client) newestScores(ctx context.Context, due []*renderWaiter) map[string]*Score {
	r := &c.renders
	r.mu.Lock()
	newestFirst, known, total := r.newestFirst, r.totalKnown, r.total
	r.mu.Unlock()
	if !newestFirst && !known {
		n, err := c.CountScores(ctx, CountScoresInput{})
		if err != nil {
			logDebug(ctx, "counting scores to place the rendering wait's page failed; reading scores one by one",
				map[string]any{"error": err.Error()})
			return nil
		}
		r.mu.Lock()
		r.total, r.totalKnown, total = n, true, n
		r.mu.Unlock()
	}
	read := func(offset int) map[string]*Score {
		scores, err := c.ListScores(ctx, ListScoresInput{Offset: offset, Limit: MaxListLimit})
		if err != nil {
			logDebug(ctx, "reading the newest scores for the rendering waits failed", map[string]any{"error": err.Error()})
			return nil
		}
		byKey := make(map[string]*Score, 2*len(scores))
		for _, s := range scores {
			byKey[s.ID] = s
			if s.Alias != "" {
				byKey[s.Alias] = s
			}
		}
		return byKey
	}
	holdsAny := func(page map[string]*Score) bool {
		for _, w := range due {
			if _, ok := page[w.id]; ok {
				return true
			}
		}
		return false
	}
	if newestFirst {
		return read(0)
	}
	page := read(max(0, total-MaxListLimit))
	if page == nil || holdsAny(page) || total <= MaxListLimit {
		return page
	}
	// None of the waits' scores at the tail: a platform that lists the newest first
	// (contract §V9) holds them at the head.
	if head := read(0); holdsAny(head) {
		r.mu.Lock()
		r.newestFirst = true
		r.mu.Unlock()
		return head
	}
	return page
}

// judge ends a wait whose score reached a final status, learning the rendering time
// from it, or sets when the wait is due again.
func (r *renderWait) judge(ctx context.Context, c *Client, w *renderWaiter, s *Score) {
	if c.finalStatus(ctx, s) {
		r.mu.Lock()
		// The platform's two timestamps are one clock, but that clock may have stepped
		// between them (an NTP correction, a failover to a node with another clock): the
		// rendering took no longer than this machine's monotonic clock saw of the wait.
		if took := min(s.UpdatedAt.Sub(s.CreatedAt), r.clock().Sub(w.since)); took > 0 {
			r.renderTime = took
		}
		r.mu.Unlock()
		r.finish(w, s, nil)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	w.last = s
	now := r.clock()
	w.due = now.Add(w.backoff)
	w.backoff = min(2*w.backoff, pollMax)
	if r.renderTime > 0 {
		// Expected to finish at its rendering time: no earlier than that, no later than
		// the backoff says.
		if expected := w.since.Add(r.renderTime + renderMargin); expected.After(now) && expected.Before(w.due) {
			w.due = expected
		}
	}
}

// finish ends a wait with its final score or an error.
func (r *renderWait) finish(w *renderWaiter, s *Score, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, waiting := r.waiters[w]; !waiting {
		return // its caller gave up
	}
	delete(r.waiters, w)
	if s != nil {
		w.last = s
	}
	w.result, w.err = s, err
	close(w.done)
}
