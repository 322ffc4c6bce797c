package client

// The rendering wait's reads: what one round of the reader (render_wait.go) sends for
// the waits due (a GET for one, the platform's newest list page for several, a GET for
// a score the page lacks) and what each score it finds means for its wait.

import "context"

// readWaiters reads the scores of the due waits, with one GET for a single wait or
// the newest list pages for several, and a GET for each score the pages lack or give
// as a summary once it has finished (Score.Summary: a listing without renderings).
func (c *Client) readWaiters(ctx context.Context, due []*renderWaiter) {
	var page map[string]*Score
	if len(due) > 1 {
		page = c.newestScores(ctx, due)
	}
	missing := false
	for _, w := range due {
		s, ok := page[w.id]
		if !ok && page != nil {
			missing = true
		}
		// A summary of a finished score (the page left its renderings out) is read
		// whole, once, as the wait ends with it.
		if !ok || s.Summary() && c.finalStatus(ctx, s) || s.Status == "" {
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

// newestScores reads the platform's newest scores, one page per MaxListLimit waits,
// by id and alias, or nil when it cannot (the waits then read their scores with GETs).
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
	pages := (len(due) + MaxListLimit - 1) / MaxListLimit
	// read reads the pages from offset on, toward the older scores: forward for a
	// platform that lists the newest first, backward from the tail otherwise.
	read := func(offset int, forward bool) map[string]*Score {
		byKey := map[string]*Score{}
		for i := range pages {
			at := offset + i*MaxListLimit
			if !forward {
				at = offset - i*MaxListLimit
			}
			if at <= -MaxListLimit {
				break
			}
			scores, err := c.ListScores(ctx, ListScoresInput{Offset: max(0, at), Limit: MaxListLimit})
			if err != nil {
				logDebug(ctx, "reading the newest scores for the rendering waits failed", map[string]any{"error": err.Error()})
				if i == 0 {
					return nil
				}
				break
			}
			for _, s := range scores {
				byKey[s.ID] = s
				if s.Alias != "" {
					byKey[s.Alias] = s
				}
			}
			if len(scores) < MaxListLimit && forward {
				break // the end of the list
			}
			if at == 0 {
				break // the head of the list
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
		return read(0, true)
	}
	page := read(max(0, total-MaxListLimit), false)
	if page == nil || holdsAny(page) || total <= MaxListLimit {
		return page
	}
	// None of the waits' scores at the tail: a platform that lists the newest first
	// (contract §V9) holds them at the head.
	if head := read(0, true); holdsAny(head) {
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
	if err := statusShown(w.id, s); err != nil {
		r.finish(w, s, err)
		return
	}
	if c.finalStatus(ctx, s) {
		r.mu.Lock()
		// The platform's two timestamps are one clock, but that clock may have stepped
		// between them (an NTP correction, a failover to a node with another clock): the
		// rendering took no longer than this machine's monotonic clock saw of the wait.
		if took := min(s.UpdatedAt.Sub(s.CreatedAt), r.now().Sub(w.since)); took >= 0 && !s.UpdatedAt.IsZero() && !s.CreatedAt.IsZero() {
			r.renderTime, r.renderKnown = took, true
		}
		r.mu.Unlock()
		r.finish(w, s, nil)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	w.last, w.read = s, true
	now := r.now()
	w.due = now.Add(w.backoff)
	w.backoff = min(2*w.backoff, pollMax)
	if r.renderKnown {
		// Expected to finish at its rendering time: no earlier than that, no later than
		// the backoff says.
		if expected := w.since.Add(r.rendered()); expected.After(now) && expected.Before(w.due) {
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
