package client

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Refresh strategies of RefreshScore (Config.RefreshStrategy).
const (
	// RefreshAuto serves many reads from one paged listing of the platform's scores
	// once that is the cheaper way (the default).
	RefreshAuto = "auto"
	// RefreshIndividual reads every score with a GET of its own.
	RefreshIndividual = "individual"
)

// Tuning of the adaptive refresh.
const (
	// snapshotLifetime bounds how long a listing of the scores answers reads: reads
	// that start later than this after the listing was requested read for
	// themselves. It covers one refresh walk: once the listing is there, Terraform's
	// reads of a plan are answered in microseconds each, so 100,000 of them fit; and
	// it bounds how old an answer can be to what a plan of that length risks anyway.
	snapshotLifetime = 30 * time.Second
	// snapshotPages is how many list pages are read at a time.
	snapshotPages = 4
)

// scoreRefresh decides, for the reads of RefreshScore, between one GET per score
// and one listing of all the platform's scores, the cheaper of the two:
//
//   - The first read is a GET. When a second read comes while no count is known, it
//     counts the platform's scores (one request); reads arriving meanwhile wait for
//     the count, so that they take part in the decision.
//   - With the count known, reads go on as GETs until as many have been made as the
//     listing would cost (its pages), then one listing (pages read concurrently)
//     answers every read that starts after it was requested, those waiting for it
//     included: the classic rent-or-buy rule, never more than about twice the
//     cheaper strategy's requests plus the count, whatever the number of reads and
//     the platform's size. A configuration of one score pays nothing extra.
//   - A listing answers only reads that start after it was requested (the count
//     that decides on it being its first request: the reads that waited for the
//     count are answered from it, the reads before it are not), for
//     snapshotLifetime; every write through the client (publish, delete) discards
//     it and the count. A score it lacks is read with a GET (never reported gone on
//     its word); a failed listing falls back to GETs.
type scoreRefresh struct {
	mu sync.Mutex
	// generation counts the writes: a listing or count from an earlier generation
	// is stale.
	generation uint64
	// reads counts the reads since the last write.
	reads int
	// count is the latest count of the platform's scores, nil while none is known.
	count *countResult
	// snapshot is the latest listing, nil while none was requested.
	snapshot *scoreSnapshot
	// failed is set after a listing failed: this generation reads with GETs.
	failed bool
	// now is the clock (tests); nil is time.Now.
	now func() time.Time
}

func (r *scoreRefresh) clock() time.Time {
	if r.now != nil {
		return r.now()
	}
	return time.Now()
}

type countResult struct {
	generation uint64
	// requested is when the first read that needed the count started: the listing
	// decided on by this count counts as requested then, the count being its first
	// request.
	requested time.Time
	done      chan struct{}
	total     int
	err       error
}

type scoreSnapshot struct {
	generation uint64
	// requested is when the listing was requested (see countResult.requested); it
	// answers reads that start from then on, for snapshotLifetime.
	requested time.Time
	done      chan struct{}
	byKey     map[string]*Score // by UUID and by alias
	err       error
}

// invalidate discards the listing and the count: a write changed the platform.
func (r *scoreRefresh) invalidate() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.generation++
	r.reads = 0
	r.count, r.snapshot, r.failed = nil, nil, false
}

// RefreshScore reads a score by UUID or alias for a refresh, like GetScore and with
// the same results, but with RefreshAuto it may answer from one listing of all the
// platform's scores (see scoreRefresh).
func (c *Client) RefreshScore(ctx context.Context, idOrAlias string) (*Score, error) {
	if c.cfg.RefreshStrategy == RefreshIndividual {
		return c.GetScore(ctx, idOrAlias)
	}
	if s, ok := c.fromSnapshot(ctx, idOrAlias, c.refresh.clock()); ok {
		return s, nil
	}
	return c.GetScore(ctx, idOrAlias)
}

// fromSnapshot answers a read that started at start from a listing when the rules
// allow it; ok is false when the read is to make its own GET.
func (c *Client) fromSnapshot(ctx context.Context, idOrAlias string, start time.Time) (*Score, bool) {
	r := &c.refresh
	r.mu.Lock()
	r.reads++
	gen := r.generation
	if snap := r.snapshot; snap.answers(gen, start) {
		r.mu.Unlock()
		return snap.lookup(ctx, idOrAlias)
	}
	if r.failed || r.reads == 1 {
		r.mu.Unlock()
		return nil, false
	}
	// Reads keep coming: learn how many scores a listing would read (again, when
	// the count is older than a listing may be).
	count := r.count
	if count == nil || count.generation != gen || start.Sub(count.requested) >= snapshotLifetime {
		count = &countResult{generation: gen, requested: start, done: make(chan struct{})}
		r.count = count
		go c.countForRefresh(ctx, count)
	}
	r.mu.Unlock()

	select {
	case <-count.done:
	case <-ctx.Done():
		return nil, false
	}
	r.mu.Lock()
	if r.generation != gen || count.err != nil {
		r.mu.Unlock()
		return nil, false
	}
	if snap := r.snapshot; snap.answers(gen, start) {
		r.mu.Unlock()
		return snap.lookup(ctx, idOrAlias)
	}
	if r.reads < pagesFor(count.total) || start.Before(count.requested) {
		r.mu.Unlock()
		return nil, false
	}
	snap := &scoreSnapshot{generation: gen, requested: count.requested, done: make(chan struct{})}
	r.snapshot = snap
	r.mu.Unlock()
	go c.listForRefresh(ctx, snap, count.total)
	return snap.lookup(ctx, idOrAlias)
}

// answers reports whether the listing may answer a read that started at start in
// generation gen.
func (s *scoreSnapshot) answers(gen uint64, start time.Time) bool {
	return s != nil && s.generation == gen && !start.Before(s.requested) && start.Sub(s.requested) < snapshotLifetime
}

// pagesFor is the number of list pages that hold total scores (at least one).
func pagesFor(total int) int {
	return max(1, (total+MaxListLimit-1)/MaxListLimit)
}

// lookup waits for the listing and answers from it; ok is false when the listing
// failed, the caller gave up, or the score is not in it (a GET then confirms).
func (s *scoreSnapshot) lookup(ctx context.Context, idOrAlias string) (*Score, bool) {
	select {
	case <-s.done:
	case <-ctx.Done():
		return nil, false
	}
	if s.err != nil {
		return nil, false
	}
	score, ok := s.byKey[idOrAlias]
	return score, ok
}

// countForRefresh counts the platform's scores. It runs apart from the read that
// started it, which may give up waiting without cancelling the others' count.
func (c *Client) countForRefresh(ctx context.Context, count *countResult) {
	defer close(count.done)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.cfg.RequestTimeout*time.Duration(c.cfg.MaxRetries+2))
	defer cancel()
	count.total, count.err = c.CountScores(ctx, CountScoresInput{})
	if count.err != nil {
		logDebug(c.logContext(ctx), "counting the scores for a batched refresh failed; reading scores one by one",
			map[string]any{"error": count.err.Error()})
	}
}

// listForRefresh reads the pages of the score list that the count says there are,
// snapshotPages at a time, and indexes the scores by UUID and alias. The pages are
// read by offset, so a platform that serves shorter pages than asked (or a list that
// shrank meanwhile) shows as a short page before the last: the listing is then given
// up, not trusted. A score published after the count, or pushed past the last page,
// is simply absent: its read makes a GET.
func (c *Client) listForRefresh(ctx context.Context, snap *scoreSnapshot, total int) {
	defer close(snap.done)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.cfg.RequestTimeout*time.Duration(c.cfg.MaxRetries+2))
	defer cancel()
	pages := make([][]*Score, pagesFor(total))
	errs := make([]error, len(pages))
	sem := make(chan struct{}, snapshotPages)
	var wg sync.WaitGroup
	for i := range pages {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			pages[i], errs[i] = c.ListScores(ctx, ListScoresInput{Offset: i * MaxListLimit, Limit: MaxListLimit})
		})
	}
	wg.Wait()
	err := errors.Join(errs...)
	var progress pageProgress
	for i, page := range pages {
		switch {
		case err != nil:
		case len(page) > MaxListLimit:
			err = &PagingError{Offset: i * MaxListLimit, Detail: fmt.Sprintf("a page of %d scores came back for a limit of %d",
				len(page), MaxListLimit)}
		case len(page) < MaxListLimit && i < len(pages)-1:
			err = errors.New("a list page before the last was short: the platform's pages are shorter than asked, " +
				"or the list changed while it was read")
		default:
			err = progress.check(page, i*MaxListLimit)
		}
	}
	if err != nil {
		c.refresh.mu.Lock()
		if c.refresh.generation == snap.generation {
			c.refresh.failed = true
		}
		c.refresh.mu.Unlock()
		snap.err = err
		logDebug(c.logContext(ctx), "listing the scores for a batched refresh failed; reading scores one by one",
			map[string]any{"error": err.Error()})
		return
	}
	snap.byKey = map[string]*Score{}
	for _, page := range pages {
		for _, s := range page {
			snap.byKey[s.ID] = s
			if s.Alias != "" {
				snap.byKey[s.Alias] = s
			}
		}
	}
	logDebug(c.logContext(ctx), "scores listed for a batched refresh", map[string]any{"scores": len(snap.byKey), "pages": len(pages)})
}
