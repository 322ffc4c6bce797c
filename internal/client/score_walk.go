package client

import (
	"context"
	"errors"
	"fmt"
	"iter"
)

// The walk over the pages of GET /scores.
//
// The platform is shared: while a walk reads its pages, other clients publish and
// delete scores, and the specification promises no order for the list (contract §V9).
// Offset paging then goes wrong in two ways. A score deleted before the walk's
// position moves every later score back by one, so the first score of the next page
// lands on the page already read and is never listed. A score inserted before the
// position moves every later score forward, so the next page repeats one already
// listed. The walk below lists every score that is present from the walk's start to
// its end exactly once, whatever the churn, or fails saying that the platform changed
// too fast to list; it never returns a partial list without a word.
//
// The overlap rule. Each page after the first is read so that it overlaps the
// previous one by WalkOverlap scores (the next offset is the previous offset plus the
// page's length, less WalkOverlap). A page is anchored when it holds a score the walk
// has already listed. Every score listed so far has this property: every score that
// precedes it in the list's order and has been present all along was listed too (by
// induction: the first page starts at the walk's offset, and each anchored page holds
// everything from its anchor on). So when a page is anchored, the walk has missed
// nothing up to the page's end, and it lists the page's scores it has not listed yet;
// repeats (scores pushed forward by inserts) are skipped. When a page is not anchored,
// more scores were deleted before it than the overlap absorbs, and the scores that
// moved back in front of it may never have been listed: the walk steps back (by the
// overlap, then twice as far each time) until a page is anchored, or it is back at its
// starting offset, where every page is anchored by definition.
//
// Progress. Only a page that brings nothing new at all, read forward and as full as
// the platform's pages are, means that the platform ignored the offset (contract §V2):
// that is a PagingError. A walk that reads maxReadsWithoutNews pages in a row that
// list nothing new (steps back included), or steps back more than maxStepBacks plus
// twice its forward pages, cannot keep up with the platform's changes and ends in a
// ListChangedError. A step back for every page read forward is not that: under heavy
// churn on a slow link, it is the price of a complete list.
//
// The cost is WalkOverlap scores a page: N scores in pages of 100 take N/98+1
// requests instead of N/100+1 (20,000 scores: 205 instead of 201), plus one request
// for each step back, which takes a delete before the position between two reads
// (at 2 deletes a second and 30 ms a request, a few in 200 pages).
const (
	// WalkOverlap is how many scores of a page the next page reads again. Two keeps a
	// page anchored when one of them was deleted, or one delete happened before it.
	// Exported for the data source's documentation.
	WalkOverlap = 2
	// maxReadsWithoutNews bounds the pages read in a row that list nothing new (steps
	// back included) before the walk gives up.
	maxReadsWithoutNews = 16
	// maxStepBacks is how many steps back any walk may take beyond two for each page
	// read forward.
	maxStepBacks = 64
)

// scoreWalk is the state of one walk (see the comment above).
type scoreWalk struct {
	start int                 // the walk's starting offset, where every page is anchored
	seen  map[string]struct{} // the scores listed so far, by UUID
	// served is the longest page the platform has answered; fullPageSeen is set once a
	// page was as long as asked (the platform serves pages that long).
	served       int
	fullPageSeen bool

	forward, stepBacks int // pages read forward, and steps back
	withoutNews        int // pages read in a row that listed nothing new
	step               int // the next step back's length (0 after an anchored page)
}

// pageVerdict is what the walk makes of a page.
type pageVerdict struct {
	fresh []*Score // the page's scores not listed before, in the platform's order
	// stepBack is set when the page is not anchored: the walk reads again further back.
	stepBack bool
	// last is set when the page ends the walk.
	last bool
}

// AllScores iterates over every score matching criteria from offset on, in the
// platform's order, stopping after limit scores when limit > 0. The pages overlap, so
// that a list that other clients change while it is read is still listed whole (see
// scoreWalk). A platform may cap its pages below the size asked for: a short page ends
// the walk only once a full page has shown the platform's page size, or when it brings
// nothing new. An error ends the sequence.
func (c *Client) AllScores(ctx context.Context, criteria ScoreCriteria, offset, limit int) iter.Seq2[*Score, error] {
	return func(yield func(*Score, error) bool) {
		w := &scoreWalk{start: offset, seen: map[string]struct{}{}}
		pos, n := offset, 0
		for {
			size := w.pageSize(pos, limit-n, limit > 0)
			// Whether this page's request carries a body is decided now: another call
			// of the process may find meanwhile that the platform needs one.
			bodySent := c.getBodyShown()
			page, err := c.ListScores(ctx, ListScoresInput{Criteria: criteria, Offset: pos, Limit: size})
			if err != nil {
				yield(nil, err)
				return
			}
			if len(page) > size {
				page = page[:size]
			}
			v, err := w.judge(page, pos, size)
			var pagingErr *PagingError
			if errors.As(err, &pagingErr) && !bodySent && (pos > 0 || criteria != ScoreCriteria{}) {
				// No progress with the parameters in the query string only: the platform
				// may read them from a body only (contract §V2). Read the page again
				// with one.
				c.showGetBody(ctx, "a page of the walk brought nothing new")
				continue
			}
			if err != nil {
				yield(nil, err)
				return
			}
			if v.stepBack {
				pos = max(w.start, pos-w.step)
				continue
			}
			for _, s := range v.fresh {
				n++
				if !yield(s, nil) || (limit > 0 && n >= limit) {
					return
				}
			}
			if v.last {
				return
			}
			pos += len(page) - min(WalkOverlap, len(page)-1)
		}
	}
}

// pageSize is the limit to ask for the page at pos: a full page, or, when the walk
// wants only wanted more scores, those and the overlap.
func (w *scoreWalk) pageSize(pos, wanted int, limited bool) int {
	size := MaxListLimit
	if limited {
		if pos > w.start {
			wanted += WalkOverlap
		}
		size = min(size, max(1, wanted))
	}
	return size
}

// judge decides what the page read at pos (asked for size scores) brings, and
// records its scores as listed.
func (w *scoreWalk) judge(page []*Score, pos, size int) (pageVerdict, error) {
	anchored := pos == w.start
	var fresh []*Score
	for _, s := range page {
		if _, ok := w.seen[s.ID]; ok {
			anchored = true
			continue
		}
		fresh = append(fresh, s)
	}
	if !anchored {
		// More scores were deleted before this page than the overlap absorbs: the
		// scores that moved in front of it may not have been listed.
		w.stepBacks++
		w.withoutNews++
		w.step = max(WalkOverlap, 2*w.step)
		if err := w.keepingUp(pos); err != nil {
			return pageVerdict{}, err
		}
		return pageVerdict{stepBack: true}, nil
	}
	steppedBack := w.step > 0
	w.step = 0
	if !steppedBack {
		w.forward++
	}
	for _, s := range fresh {
		w.seen[s.ID] = struct{}{}
	}
	w.served = max(w.served, len(page))
	w.fullPageSeen = w.fullPageSeen || len(page) == size
	if len(fresh) > 0 {
		w.withoutNews = 0
	} else {
		w.withoutNews++
	}
	switch {
	case len(page) == 0:
		return pageVerdict{last: true}, nil
	case len(fresh) == 0 && !steppedBack && pos > w.start && len(page) >= w.served && len(page) > WalkOverlap:
		// A page read forward, as long as the platform's pages are, that lists nothing
		// new: the platform answered a page already read, whatever offset was asked.
		return pageVerdict{}, &PagingError{Offset: pos, Detail: fmt.Sprintf("the page at offset %d lists only scores "+
			"already listed (%d of them, the first %s)", pos, len(page), page[0].ID)}
	case len(page) < size && (w.fullPageSeen || len(fresh) == 0 || len(page) < w.served):
		// Shorter than asked, and the platform serves longer pages: the list's end.
		return pageVerdict{fresh: fresh, last: true}, nil
	}
	if err := w.keepingUp(pos); err != nil {
		return pageVerdict{}, err
	}
	return pageVerdict{fresh: fresh}, nil
}

// keepingUp fails the walk when it cannot keep up with the platform's changes.
func (w *scoreWalk) keepingUp(pos int) error {
	if w.withoutNews > maxReadsWithoutNews || w.stepBacks > maxStepBacks+2*w.forward {
		return &ListChangedError{Offset: pos, Listed: len(w.seen), Pages: w.forward + w.stepBacks, StepBacks: w.stepBacks}
	}
	return nil
}

// ListChangedError is a walk over the list that could not become consistent: other
// clients deleted scores before the walk's position faster than it could step back
// over them, so a complete list could not be read.
type ListChangedError struct {
	// Offset is where the walk was.
	Offset int
	// Listed is how many scores it had listed; Pages how many pages it read, of which
	// StepBacks were read again further back.
	Listed, Pages, StepBacks int
}

// Error says that the platform changed too fast to list.
func (e *ListChangedError) Error() string {
	return fmt.Sprintf("listing scores: the platform's list changed too fast to be listed whole: after %d pages (%d of them "+
		"read again because scores before the walk's position were deleted) and %d scores, at offset %d, the pages still "+
		"did not line up; the provider returns no partial list", e.Pages, e.StepBacks, e.Listed, e.Offset)
}
