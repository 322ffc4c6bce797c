package client

// Counting scores, and the check of a count against the list.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync/atomic"
)

// CountScores counts the scores matching the criteria (POST /scores/count).
//
// A count of a set that other clients change is a snapshot, never an error (contract
// §V4). Each count is checked against the list of the same request (checkCount); a
// check can fail because the platform ignored a parameter, or because scores left the
// set between the count and its check. Only an answer that stays impossible is
// refused: the same count twice in a row, each time against a list that ends the same
// number of scores short at the same score, which is what a platform that ignores a
// parameter gives and what a set that moves does not. A set that moves under every
// check is counted again, up to maxCounts times, and its last count is the answer:
// it was a size the set had. (A platform that ignored a parameter while its set moved
// under each of those checks cannot be told apart from an honest one, and is not.)
func (c *Client) CountScores(ctx context.Context, in CountScoresInput) (int, error) {
	base, err := c.PublishingURL()
	if err != nil {
		return 0, err
	}
	if in.Limit < 0 || in.Offset < 0 {
		return 0, fmt.Errorf("counting scores: offset %d and limit %d must not be negative", in.Offset, in.Limit)
	}
	q, body, criteria := scoreQueryParams(in.Criteria, in.Offset, in.Limit)
	var last *countCheck
	for attempt := 1; ; attempt++ {
		count, bodySent, err := c.countOnce(ctx, base, q, body, criteria)
		if err != nil {
			return 0, err
		}
		check, err := c.checkCount(ctx, in, count)
		var countErr *CountError
		if errors.As(err, &countErr) && !bodySent && len(body) > 0 {
			// A count by GET without a body that cannot be true: the platform may read
			// the parameters from a body only (contract §V2). Count again with one.
			c.showGetBody(ctx, "a count by GET that cannot be true for its query")
			attempt--
			last = nil
			continue
		}
		if !errors.As(err, &countErr) || !countErr.Moving {
			return count, err
		}
		if last != nil && *last == check {
			countErr.Attempts = attempt
			return count, err
		}
		if attempt == maxCounts {
			logDebug(c.logContext(ctx), "the set of scores moved under every check of its count; the last count is a snapshot",
				map[string]any{"count": count, "attempts": attempt})
			return count, nil
		}
		logDebug(c.logContext(ctx), "a count did not match the list checked after it; the set may have changed, counting again",
			map[string]any{"count": count, "attempt": attempt, "short_by": check.short})
		last = &check
	}
}

// scoreCounting is how this platform counts.
type scoreCounting struct {
	// byGet is set once POST /scores/count was answered 405: this platform counts with
	// GET (contract §V3).
	byGet atomic.Bool
}

// maxCounts bounds the counts CountScores takes of a set that keeps moving.
const maxCounts = 8

// checkWindow is how many positions before a count's last one a failed check lists,
// to see where the list ends.
const checkWindow = 20

// countCheck is what the check of a count that the list did not bear out saw: the
// count, how many scores short of it the list ended, and the last score it listed.
type countCheck struct {
	count, short int
	tail         string
}

// countOnce asks the platform for the count once, and says whether the request that
// counted carried the body.
func (c *Client) countOnce(ctx context.Context, base string, q url.Values, body map[string]any,
	criteria map[string]string) (count int, bodySent bool, err error) {
	var out *int
	// Counting changes nothing, so it is safe to repeat. The specification lists the
	// count as POST and shows GET in its example (contract §V3): after a 405 to the
	// POST, this platform counts with GET for the rest of the process.
	req := &request{method: http.MethodPost, url: base + "/scores/count", query: q, body: body, auth: authPlatform,
		retrySafe: true, wrapper: "count"}
	if c.counting.byGet.Load() {
		req.method = http.MethodGet
		if !c.getBodyShown() {
			req.body = nil // a GET carries a body only once the platform asked for one
		}
	}
	err = c.withCriteria(ctx, req, criteria, body, &out)
	if statusOf(err) == http.StatusMethodNotAllowed && req.method == http.MethodPost {
		c.counting.byGet.Store(true)
		c.warnFallback(ctx, "count-get", "the platform counts scores with GET (POST answered 405); using GET from now on", nil)
		req.method = http.MethodGet
		if !c.getBodyShown() {
			req.body = nil
		}
		err = c.withCriteria(ctx, req, criteria, body, &out)
	}
	if err != nil {
		return 0, false, c.addressError(c.publishingSetting(), base, "/scores/count", err)
	}
	if out == nil {
		return 0, false, errors.New("counting scores: the answer holds no count")
	}
	form, _ := c.criteria.form()
	return *out, req.body != nil || (form == criteriaBody && len(criteria) > 0), nil
}

// checkCount refuses a count that cannot be true for the request (contract §V4): a
// platform that ignored a parameter answers with a number that looks right and is
// not. A count is never negative and never above its limit; and with an offset or
// criteria, the listing of the same request must hold a score at the count's last
// position (one request of one score), or the count is above what the platform
// holds: a CountError with Moving set, since scores that left between the two
// requests give the same result. A list that ends short is listed once more over the
// checkWindow positions before that last one, to see where it ends (the countCheck).
func (c *Client) checkCount(ctx context.Context, in CountScoresInput, count int) (countCheck, error) {
	ignored := func(params, detail string) *CountError {
		return &CountError{Count: count, Params: params, Detail: detail}
	}
	switch {
	case count < 0:
		return countCheck{}, ignored("", "a count is never negative")
	case in.Limit > 0 && count > in.Limit:
		return countCheck{}, ignored("limit", fmt.Sprintf("it is above the limit of %d asked for", in.Limit))
	case count == 0 || (in.Offset == 0 && len(in.Criteria.document()) == 0):
		return countCheck{}, nil
	}
	lastPos := in.Offset + count - 1
	page, err := c.ListScores(ctx, ListScoresInput{Criteria: in.Criteria, Offset: lastPos, Limit: 1})
	if err != nil {
		return countCheck{}, fmt.Errorf("counting scores: checking the count of %d against the list failed: %w", count, err)
	}
	if len(page) > 0 {
		return countCheck{}, nil
	}
	// Where does the list end? The positions before the last one, in one request.
	check := countCheck{count: count, short: 1}
	if from := max(in.Offset, lastPos-checkWindow); from < lastPos {
		page, err := c.ListScores(ctx, ListScoresInput{Criteria: in.Criteria, Offset: from, Limit: lastPos - from})
		if err != nil {
			return countCheck{}, fmt.Errorf("counting scores: checking the count of %d against the list failed: %w", count, err)
		}
		check.short = lastPos - from + 1 - min(len(page), lastPos-from)
		if len(page) > 0 {
			check.tail = page[len(page)-1].ID
		}
	}
	params := "offset or score (the criteria)"
	switch {
	case in.Offset == 0:
		params = "score (the criteria)"
	case len(in.Criteria.document()) == 0:
		params = "offset"
	}
	e := ignored(params, fmt.Sprintf("the list of the same request holds no score at position %d", in.Offset+count))
	e.Moving = true
	return check, e
}

// CountError is a count that cannot be true for its request: the platform ignored
// one of its parameters (contract §V4).
type CountError struct {
	Count int
	// Params names the parameters the platform must have ignored ("" when unknown).
	Params string
	// Detail says why the count cannot be true.
	Detail string
	// Moving is set when scores leaving the set between the count and its check
	// would explain the failure too: CountScores then counts again.
	Moving bool
	// Attempts is how many counts were taken before the answer was refused (when
	// Moving): the last two gave the same count against the same list.
	Attempts int
}

// Error names the count, why it cannot be true and the parameter ignored.
func (e *CountError) Error() string {
	msg := fmt.Sprintf("counting scores: the platform answered a count of %d, which cannot be true: %s", e.Count, e.Detail)
	if e.Attempts > 1 {
		msg += fmt.Sprintf(" (and so did the count taken before it, against the same list: %d counts in all)", e.Attempts)
	}
	if e.Params != "" {
		msg += "; the platform ignored the parameter " + e.Params + " (sent both in the query string and in a JSON body)"
	}
	return msg
}
