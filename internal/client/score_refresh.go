package client

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
	// maxPagesInFlight bounds the list pages read at once: one per read waiting for
	// the listing, at most this many.
	maxPagesInFlight = 10
	// minWait is the least a read may wait for the count or the listing. On loopback a
	// GET takes a fraction of a millisecond and a page of 100 scores a few: below a few
	// milliseconds, a wait costs less than Terraform's own work on one resource, while
	// giving up on it costs a request.
	minWait = 5 * time.Millisecond
)

// scoreRefresh decides, for the reads of RefreshScore, between one GET per score
// and one listing of the platform's scores, and makes sure that no read is ever
// slower for it than its own GET, whatever the platform's size:
//
//   - The first read is a GET. The second starts a count of the platform's scores
//     (one request); the reads that come while it runs wait for it as long as two
//     GETs take (before the first GET is measured: as long as the count takes, at
//     most request_timeout), then make their own GET.
//   - With the count known, once the reads since the last write reach the number of
//     list pages that hold the platform's scores (the rent-or-buy rule), a listing is
//     requested. It reads pages only while reads want them: each read that does not
//     find its score in the pages read so far waits, and every waiting read keeps
//     one page in flight (at most maxPagesInFlight), in the list's order. When the
//     reads stop coming, or all find their scores, no further page is read: a team
//     that manages a small share of a large platform pays a page or two, not the
//     whole list.
//   - A read waits for the listing no longer than its own GET takes (the measured
//     cost of a GET, or of a list page when that is longer: the listing's requests
//     are the GETs it saves; half of it again as a margin, at least minWait); then
//     it makes its GET. The pages already read answer
//     what they hold; a complete listing answers every read.
//   - A listing answers only reads that start after it was requested (the count
//     that decides on it being its first request), for snapshotLifetime; every write
//     through the client (publish, delete) discards it and the count. A score it
//     lacks is read with a GET (never reported gone on its word); a page that fails,
//     comes back short before the last, or lists only scores listed before ends
//     the listing for this generation, and reads go on with GETs.
//   - A score the listing gives as a summary (Score.Summary: without options, or an
//     idle score without renderings) answers no read: the read makes its GET. A page
//     of nothing but summaries shows a platform that lists summaries: from then on,
//     for the process, reads make their GETs at once and no listing is requested
//     (it would cost its count and pages on top of every GET).
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
	// summaries is set once a page held only summaries: the platform lists scores
	// without what a refresh needs, and every read makes its GET, for the process.
	summaries bool
	// getCost and pageCost are moving averages of what one GET of a score and one
	// list page took (zero before the first).
	getCost, pageCost time.Duration
	onClock           // the client's one clock, set by New
	// created holds the creation times (the platform's clock) of the scores this
	// process published or refreshed from a state, by UUID and by alias: a 404 for one
	// of them is doubted while it is young (readAgainWhileYoung).
	created map[string]time.Time
}

// noteCreated records that the score known as key (its UUID or alias) was created at
// createdAt on the platform's clock; a zero time records nothing.
func (r *scoreRefresh) noteCreated(key string, createdAt time.Time) {
	if key == "" || createdAt.IsZero() {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.created == nil {
		r.created = map[string]time.Time{}
	}
	r.created[key] = createdAt
}

// noteScore records the creation time of s under its UUID and its alias.
func (r *scoreRefresh) noteScore(s *Score) {
	if s != nil {
		r.noteCreated(s.ID, s.CreatedAt)
		r.noteCreated(s.Alias, s.CreatedAt)
	}
}

// createdAt is the creation time recorded for the score known as key, or zero.
func (r *scoreRefresh) createdAt(key string) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.created[key]
}

// observe adds one measured duration to a moving average (weight 1/4).
func observe(avg *time.Duration, d time.Duration) {
	if *avg == 0 {
		*avg = d
		return
	}
	*avg += (d - *avg) / 4
}

// waitBound is how long a read may wait for the listing: what its own GET would take
// (see scoreRefresh), with half of it again as a margin: a page requested with the
// read answers in about a GET's time, and giving up on it a millisecond early would
// cost the read a whole round trip more. Called with r.mu held.
func (r *scoreRefresh) waitBound() time.Duration {
	return max(r.getCost*3/2, r.pageCost*3/2, minWait)
}

type countResult struct {
	generation uint64
	// requested is when the read that needed the count started: the listing decided
	// on by this count counts as requested then, the count being its first request.
	requested time.Time
	done      chan struct{}
	total     int
	err       error
}

// finished reports whether the count has its answer.
func (c *countResult) finished() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// scoreSnapshot is one listing of the platform's scores, read page by page while
// reads want it. Its fields other than generation, requested and pages are guarded
// by scoreRefresh.mu.
type scoreSnapshot struct {
	generation uint64
	// requested is when the listing was requested (see countResult.requested); it
	// answers reads that start from then on, for snapshotLifetime.
	requested time.Time
	// pages is how many list pages hold the scores the count found.
	pages int

	byKey    map[string]*Score // by UUID and by alias, from the pages read
	next     int               // the next page to request
	inFlight int               // pages requested and not yet read
	read     int               // pages read
	waiting  int               // reads waiting for a page
	err      error             // set when the listing failed
	changed  chan struct{}     // closed (and replaced) whenever a page arrives or the listing ends
}

// bringsNews reports whether a page holds a score not listed yet. Called with
// scoreRefresh.mu held.
func (s *scoreSnapshot) bringsNews(page []*Score) bool {
	for _, score := range page {
		if _, ok := s.byKey[score.ID]; !ok {
			return true
		}
	}
	return false
}

// complete reports whether every page was read. Called with scoreRefresh.mu held.
func (s *scoreSnapshot) complete() bool { return s.read == s.pages }

// broadcast wakes every read waiting on the listing. Called with scoreRefresh.mu held.
func (s *scoreSnapshot) broadcast() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// invalidate discards the listing and the count: a write changed the platform.
func (r *scoreRefresh) invalidate() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.generation++
	r.reads = 0
	if s := r.snapshot; s != nil && s.err == nil {
		s.err = errors.New("a write through the client made the listing stale")
		s.broadcast()
	}
	r.count, r.snapshot, r.failed = nil, nil, false
}

// RefreshScore reads a score by UUID or alias for a refresh, like GetScore and with
// the same results, but with RefreshAuto it may answer from one listing of the
// platform's scores (see scoreRefresh).
func (c *Client) RefreshScore(ctx context.Context, idOrAlias string) (*Score, error) {
	if c.cfg.RefreshStrategy == RefreshIndividual {
		return c.GetScore(ctx, idOrAlias)
	}
	if s, ok := c.fromSnapshot(ctx, idOrAlias, c.refresh.now()); ok {
		return s, nil
	}
	start := time.Now()
	s, err := c.GetScore(ctx, idOrAlias)
	if err == nil || IsNotFound(err) {
		c.refresh.mu.Lock()
		observe(&c.refresh.getCost, time.Since(start))
		c.refresh.mu.Unlock()
	}
	return s, err
}

// fromSnapshot answers a read that started at start from a listing when the rules
// allow it; ok is false when the read is to make its own GET.
func (c *Client) fromSnapshot(ctx context.Context, idOrAlias string, start time.Time) (*Score, bool) {
	r := &c.refresh
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reads++
	gen := r.generation
	if snap := r.snapshot; snap.answers(gen, start) {
		return c.lookup(ctx, snap, idOrAlias, r.after(r.waitBound()))
	}
	if r.failed || r.summaries || r.reads == 1 {
		return nil, false
	}
	// Reads keep coming: learn how many scores a listing would read (again, when the
	// count is older than a listing may be).
	count := r.count
	if count == nil || count.generation != gen || start.Sub(count.requested) >= snapshotLifetime {
		count = &countResult{generation: gen, requested: start, done: make(chan struct{})}
		r.count = count
		go c.countForRefresh(ctx, count)
	}
	if !count.finished() {
		// Wait for the count, one request as a GET is, which may say that a listing
		// answers this read: as long as two GETs take (its answer takes counting), or,
		// while no GET has been measured yet (the first wave of reads), as long as the
		// count takes, at most what a GET may take (request_timeout).
		wait := c.cfg.RequestTimeout // what one GET may take at most
		if r.getCost > 0 {
			wait = 2 * r.waitBound()
		}
		countDeadline := r.after(wait)
		r.mu.Unlock()
		select {
		case <-count.done:
		case <-countDeadline:
		case <-ctx.Done():
		}
		r.mu.Lock()
		if !count.finished() || r.generation != gen {
			return nil, false
		}
	}
	deadline := r.after(r.waitBound())
	if snap := r.snapshot; snap.answers(gen, start) {
		return c.lookup(ctx, snap, idOrAlias, deadline)
	}
	if count.err != nil || r.failed || r.reads < pagesFor(count.total) || start.Before(count.requested) {
		return nil, false
	}
	snap := &scoreSnapshot{
		generation: gen, requested: count.requested, pages: pagesFor(count.total),
		byKey: map[string]*Score{}, changed: make(chan struct{}),
	}
	r.snapshot = snap
	logDebug(c.logContext(ctx), "listing the scores for a batched refresh", map[string]any{"count": count.total, "reads": r.reads})
	return c.lookup(ctx, snap, idOrAlias, deadline)
}

// answers reports whether the listing may answer a read that started at start in
// generation gen.
func (s *scoreSnapshot) answers(gen uint64, start time.Time) bool {
	return s != nil && s.generation == gen && s.err == nil && !start.Before(s.requested) &&
		start.Sub(s.requested) < snapshotLifetime
}

// pagesFor is the number of list pages that hold total scores (at least one).
func pagesFor(total int) int {
	return max(1, (total+MaxListLimit-1)/MaxListLimit)
}

// lookup answers a read from the listing: from the pages read so far, waiting for
// more pages (and keeping one in flight while it waits) until deadline. ok is
// false when the read is to make its own GET: the listing failed, ended without the
// score (a GET confirms an absence), or the wait ran out. Called with r.mu held; it
// releases the lock while it waits.
func (c *Client) lookup(ctx context.Context, snap *scoreSnapshot, idOrAlias string, deadline <-chan time.Time) (*Score, bool) {
	r := &c.refresh
	for {
		if s, ok := snap.byKey[idOrAlias]; ok {
			// A summary (the listing left out options or renderings) answers nothing:
			// the read makes its GET for the whole score.
			return s, !s.Summary()
		}
		if snap.err != nil || snap.complete() {
			return nil, false
		}
		snap.waiting++
		c.requestPages(ctx, snap)
		changed := snap.changed
		r.mu.Unlock()
		var gaveUp bool
		select {
		case <-changed:
		case <-deadline:
			gaveUp = true
		case <-ctx.Done():
			gaveUp = true
		}
		r.mu.Lock()
		snap.waiting--
		if gaveUp {
			if s, ok := snap.byKey[idOrAlias]; ok && !s.Summary() {
				return s, true
			}
			return nil, false
		}
	}
}

// requestPages starts page reads, in the list's order, until one page is in flight
// for every read waiting (at most maxPagesInFlight). Called with r.mu held.
func (c *Client) requestPages(ctx context.Context, snap *scoreSnapshot) {
	for snap.err == nil && snap.next < snap.pages && snap.inFlight < min(snap.waiting, maxPagesInFlight) {
		page := snap.next
		snap.next++
		snap.inFlight++
		go c.readPage(ctx, snap, page)
	}
}

// readPage reads one page of the listing and adds its scores. It runs apart from the
// read that asked for it, which may give up waiting without cancelling the page.
func (c *Client) readPage(ctx context.Context, snap *scoreSnapshot, page int) {
	ctx, cancel := context.WithTimeout(c.detached(ctx), c.cfg.RequestTimeout*time.Duration(c.cfg.MaxRetries+2))
	defer cancel()
	start := time.Now()
	scores, err := c.ListScores(ctx, ListScoresInput{Offset: page * MaxListLimit, Limit: MaxListLimit})

	r := &c.refresh
	r.mu.Lock()
	defer r.mu.Unlock()
	snap.inFlight--
	if snap.err != nil {
		return // failed meanwhile, or discarded by a write
	}
	switch {
	case err != nil:
	case len(scores) > MaxListLimit:
		err = &PagingError{Offset: page * MaxListLimit, Detail: fmt.Sprintf("a page of %d scores came back for a limit of %d",
			len(scores), MaxListLimit)}
	case len(scores) < MaxListLimit && page < snap.pages-1:
		err = errors.New("a list page before the last was short: the platform's pages are shorter than asked, " +
			"or the list changed while it was read")
	case len(scores) == MaxListLimit && snap.read > 0 && !snap.bringsNews(scores):
		// Other clients' writes move scores between pages (one may be listed twice, or
		// not at all, which a GET then settles), but a full page of only scores already
		// listed is the platform answering one page whatever offset was asked (§V2).
		err = &PagingError{Offset: page * MaxListLimit, Detail: fmt.Sprintf("the page at offset %d lists only scores "+
			"already listed", page*MaxListLimit)}
	}
	if err != nil {
		snap.err = err
		if r.generation == snap.generation {
			r.failed = true
		}
		snap.broadcast()
		c.warnFallback(ctx, "refresh", "listing the scores for a batched refresh failed; reading scores one by one",
			map[string]any{"error": err.Error()})
		return
	}
	observe(&r.pageCost, time.Since(start))
	if len(scores) > 0 && !slices.ContainsFunc(scores, func(s *Score) bool { return !s.Summary() }) && !r.summaries {
		r.summaries = true
		c.warnFallback(ctx, "refresh-summaries", "the platform lists scores as summaries, without options or renderings; "+
			"the refresh reads each score with a GET of its own", nil)
	}
	for _, s := range scores {
		snap.byKey[s.ID] = s
		if s.Alias != "" {
			snap.byKey[s.Alias] = s
		}
	}
	snap.read++
	// The reads waiting wake up, look, and those still missing their score keep the
	// next pages coming.
	snap.broadcast()
	if snap.complete() {
		logDebug(c.logContext(ctx), "scores listed for a batched refresh", map[string]any{"pages": snap.pages})
	}
}

// countForRefresh counts the platform's scores. It runs apart from the read that
// started it.
func (c *Client) countForRefresh(ctx context.Context, count *countResult) {
	defer close(count.done)
	ctx, cancel := context.WithTimeout(c.detached(ctx), c.cfg.RequestTimeout*time.Duration(c.cfg.MaxRetries+2))
	defer cancel()
	start := time.Now()
	count.total, count.err = c.CountScores(ctx, CountScoresInput{})
	if count.err == nil {
		// Until a page is measured, a page is taken to cost what the count cost: both
		// go over the platform's whole list.
		c.refresh.mu.Lock()
		if c.refresh.pageCost == 0 {
			c.refresh.pageCost = time.Since(start)
		}
		c.refresh.mu.Unlock()
	}
	if count.err != nil {
		c.warnFallback(ctx, "refresh", "counting the scores for a batched refresh failed; reading scores one by one",
			map[string]any{"error": count.err.Error()})
	}
}
