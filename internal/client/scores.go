package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Score status values. The API names only pending; the others are the
// contract's: pending → rendering → idle (ready) or error (rendering failed).
const (
	ScoreStatusPending   = "pending"
	ScoreStatusRendering = "rendering"
	ScoreStatusIdle      = "idle"
	ScoreStatusError     = "error"
)

// MaxListLimit is the largest page the score list accepts.
const MaxListLimit = 100

// Polling bounds for WaitForRendering and WaitForCommand.
const (
	pollStart = 100 * time.Millisecond
	pollMax   = 2 * time.Second
)

// Score is a published score.
type Score struct {
	// ID is the generated UUID.
	ID string
	// ScoreURL is the address of the score file.
	ScoreURL string
	// Alias is the publisher-assigned scoreId (publisher.scoreId), if any.
	Alias string
	// Publisher is the user who published the score (publisher.identity.user).
	Publisher string
	// Transpose is options.transpose.
	Transpose bool
	// Status is one of the ScoreStatus values (others are passed through).
	Status string
	// CreatedAt and UpdatedAt are the record's timestamps.
	CreatedAt time.Time
	UpdatedAt time.Time
	// Renderings lists the rendered formats.
	Renderings []Rendering
	// Raw is the score object as the API returned it.
	Raw json.RawMessage
	// Recovered is set by PublishScore when the publish got no usable answer and the
	// score was found on the platform instead: it says how.
	Recovered string
}

// Rendering is one rendered format of a score.
type Rendering struct {
	Format string `json:"format"`
	Pages  int    `json:"pages"`
}

// PageCount returns the number of rendered pages (the largest over the
// renderings), or 0 before rendering.
func (s *Score) PageCount() int {
	n := 0
	for _, r := range s.Renderings {
		n = max(n, r.Pages)
	}
	return n
}

// UnmarshalJSON reads the wire form of a score.
func (s *Score) UnmarshalJSON(b []byte) error {
	var w struct {
		ID        string `json:"id"`
		ScoreURL  string `json:"scoreUrl"`
		Publisher struct {
			ScoreID  string `json:"scoreId"`
			Identity struct {
				User string `json:"user"`
			} `json:"identity"`
		} `json:"publisher"`
		Options struct {
			Transpose bool `json:"transpose"`
		} `json:"options"`
		Status     string      `json:"status"`
		CreatedAt  flexTime    `json:"createdAt"`
		UpdatedAt  flexTime    `json:"updatedAt"`
		Renderings []Rendering `json:"renderings"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*s = Score{
		ID: w.ID, ScoreURL: w.ScoreURL, Alias: w.Publisher.ScoreID, Publisher: w.Publisher.Identity.User,
		Transpose: w.Options.Transpose, Status: w.Status,
		CreatedAt: w.CreatedAt.Time, UpdatedAt: w.UpdatedAt.Time,
		Renderings: w.Renderings, Raw: append(json.RawMessage(nil), b...),
	}
	return nil
}

// PublishScoreInput are the parameters of PublishScore.
type PublishScoreInput struct {
	// ScoreURL is the public address of the score file (required).
	ScoreURL string
	// Alias is an optional scoreId by which the score can also be addressed.
	Alias string
	// Transpose enables rendering of transposed scores.
	Transpose bool
}

// ScoreCriteria filter scores by equality; empty fields do not filter.
type ScoreCriteria struct {
	Status   string
	ScoreURL string
	Alias    string
}

func (c ScoreCriteria) document() map[string]string {
	doc := map[string]string{}
	if c.Status != "" {
		doc["status"] = c.Status
	}
	if c.ScoreURL != "" {
		doc["scoreUrl"] = c.ScoreURL
	}
	if c.Alias != "" {
		doc["scoreId"] = c.Alias
	}
	return doc
}

// ListScoresInput are the parameters of ListScores.
type ListScoresInput struct {
	Criteria ScoreCriteria
	// Offset is the number of matching scores to skip.
	Offset int
	// Limit is the page size, 1 to MaxListLimit; 0 leaves the service
	// default (50).
	Limit int
}

// CountScoresInput are the parameters of CountScores.
type CountScoresInput struct {
	Criteria ScoreCriteria
	// Offset is where counting begins.
	Offset int
	// Limit caps the count; 0 means no cap.
	Limit int
}

// ViewInput are the settings of CreateView.
type ViewInput struct {
	// Printable says whether the viewer may print (nil: service default).
	Printable *bool
	// Pages are the pages displayed, e.g. "1-3,5".
	Pages string
	// LicenseString is text embedded in the view for licensing information.
	LicenseString string
	// Lang is the viewer language as a BCP 47 tag.
	Lang string
	// ExpiresIn is the view lifetime in seconds, 0 to 86400 (0: service
	// default of 2 hours).
	ExpiresIn int
}

// View is a time-limited view of a score. ViewerURL is a bearer secret:
// whoever has it can open the view.
type View struct {
	ID        string
	ScoreID   string
	ViewerURL string
	CreatedAt time.Time
	ExpiresAt time.Time
	Settings  ViewSettings
	// Raw is the view object as the API returned it (it holds ViewerURL).
	Raw json.RawMessage
}

// ViewSettings are the settings a view was created with.
type ViewSettings struct {
	Printable     bool   `json:"printable"`
	Pages         string `json:"pages"`
	LicenseString string `json:"licenseString"`
	Lang          string `json:"lang"`
}

// UnmarshalJSON reads the wire form of a view.
func (v *View) UnmarshalJSON(b []byte) error {
	var w struct {
		ID        string       `json:"id"`
		ScoreID   string       `json:"scoreId"`
		ViewerURL string       `json:"viewerUrl"`
		CreatedAt flexTime     `json:"createdAt"`
		ExpiresAt flexTime     `json:"expiresAt"`
		Settings  ViewSettings `json:"settings"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*v = View{
		ID: w.ID, ScoreID: w.ScoreID, ViewerURL: w.ViewerURL,
		CreatedAt: w.CreatedAt.Time, ExpiresAt: w.ExpiresAt.Time,
		Settings: w.Settings, Raw: append(json.RawMessage(nil), b...),
	}
	return nil
}

// Health is the publishing service's health report.
type Health struct {
	Status   string
	Verifier string
	// Healthy is true when Status is "ok" (in any case).
	Healthy bool
	// Raw is the answer when it is JSON.
	Raw json.RawMessage
	// Note says why Status is "unknown" (an answer that holds no status).
	Note string
}

// scoreURL returns the address of one score.
func (c *Client) scoreURL(idOrAlias string) (string, error) {
	if idOrAlias == "" {
		return "", errors.New("no score id or alias given")
	}
	base, err := c.PublishingURL()
	if err != nil {
		return "", err
	}
	return base + "/scores/" + url.PathEscape(idOrAlias), nil
}

// PublishScore publishes a score. A request whose outcome is unknown (no clean
// answer, or a 2xx that is not the platform's) is never repeated blindly: the
// platform is searched for the score this request can have created (see
// recoverPublish). Found, it is returned with Recovered saying so; certainly not
// created, the publish is sent again (max_retries times); otherwise the error says
// what was found. A conflict (409) on an alias fails unless it follows such an
// unknown outcome and the alias holds a score this run can have created.
func (c *Client) PublishScore(ctx context.Context, in PublishScoreInput) (*Score, error) {
	// A listing read before the publish no longer tells the truth; nor does one
	// read while it is on the wire, so the refresh is reset before and after.
	c.refresh.invalidate()
	defer c.refresh.invalidate()
	base, err := c.PublishingURL()
	if err != nil {
		return nil, err
	}
	if in.ScoreURL == "" {
		return nil, errors.New("publishing score: no score URL given")
	}
	body := map[string]any{
		"scoreUrl": in.ScoreURL,
		"options":  map[string]any{"transpose": in.Transpose},
	}
	if in.Alias != "" {
		body["scoreId"] = in.Alias
	}
	ctx = c.logContext(ctx)

	// firstSent is when the first request that may have acted was sent: a score this
	// run created cannot be older.
	var firstSent time.Time
	for attempt := 0; ; attempt++ {
		var out *Score
		req := &request{
			method: http.MethodPost, url: base + "/scores", body: body, auth: authPlatform,
			outcomeDetail: "the score may have been created", wrapper: "score",
		}
		sent := time.Now()
		resp, err := c.do(ctx, req, &out)
		if err == nil && (out == nil || out.ID == "") {
			// The platform accepted the request (2xx) but its answer does not say
			// which score it created: as good as no answer.
			err = req.unknownOutcome(pathOf(resp.url), errors.New("the answer holds no score"))
		}
		switch {
		case err == nil:
			c.renders.published()
			return c.completePublished(ctx, out, in), nil

		case IsUnknownOutcome(err) && ctx.Err() == nil:
			if firstSent.IsZero() {
				firstSent = sent
			}
			s, rerr := c.recoverPublish(ctx, in, firstSent, err)
			switch {
			case rerr != nil:
				return nil, rerr
			case s != nil:
				logDebug(ctx, "publish outcome was unknown; found the score it created", map[string]any{"attempt": attempt + 1})
				return s, nil
			case attempt >= c.cfg.MaxRetries:
				return nil, err
			}
			logDebug(ctx, "publish outcome was unknown and it created no score; publishing again", map[string]any{"attempt": attempt + 1})
			if werr := sleepCtx(ctx, backoff(c.cfg.RetryWaitMin, c.cfg.RetryWaitMax, attempt, nil)); werr != nil {
				return nil, err
			}

		case IsConflict(err) && !firstSent.IsZero():
			// An earlier attempt may have created the score after all.
			if s, rerr := c.recoverPublish(ctx, in, firstSent, err); rerr == nil && s != nil {
				return s, nil
			}
			return nil, err

		default:
			// The platform always serves POST /scores: a 404 means the address is wrong.
			return nil, c.addressError(c.publishingSetting(), base, "/scores", err)
		}
	}
}

// completePublished returns the score a publish answered, read back when the answer
// lacks a field the state needs (its scoreUrl, status or creation time): the
// specification shows no response body, and a platform may answer only the new
// score's id. Should the read fail, the fields are taken from what was published
// (a new score is pending), and the next refresh reads the rest.
func (c *Client) completePublished(ctx context.Context, s *Score, in PublishScoreInput) *Score {
	if s.ScoreURL != "" && s.Status != "" && !s.CreatedAt.IsZero() {
		return s
	}
	c.warnFallback(ctx, "publish-answer", "the platform's answer to a publish lacks fields the state needs (scoreUrl, "+
		"status or createdAt); the provider reads each published score back", nil)
	if full, err := c.GetScore(ctx, s.ID); err == nil && full.ID == s.ID {
		return full
	} else if err != nil {
		logDebug(ctx, "reading a published score back failed; taking its fields from the request", map[string]any{"error": err.Error()})
	}
	if s.ScoreURL == "" {
		s.ScoreURL = in.ScoreURL
	}
	if s.Alias == "" {
		s.Alias = in.Alias
	}
	if s.Status == "" {
		s.Status = ScoreStatusPending
	}
	s.Transpose = in.Transpose
	return s
}

// recoverPublish looks for the score that a publish of in, first sent at sent (this
// machine's clock), can have created although no answer said so (cause). It returns
// the score (with Recovered set), or nil when the request certainly created none, or
// an error.
//
// A score counts only when it was created no earlier than the request was sent,
// judged on the platform's clock (PlatformTime) with ClockTolerance: another
// configuration may hold a score of the same alias or address, created before, and
// adopting it would give one score to two states. With an alias, the score under the
// alias must also have the same scoreUrl; an older one, or one of another scoreUrl,
// is the conflict the platform's 409 would have reported. Without an alias, the
// scores of that scoreUrl are listed: exactly one new one is adopted, several are an
// error that lists them.
func (c *Client) recoverPublish(ctx context.Context, in PublishScoreInput, sent time.Time, cause error) (*Score, error) {
	since := func() time.Time {
		t, _ := c.PlatformTime(sent) // after the look-up, whose answer set the clock
		return t.Add(-ClockTolerance)
	}
	if in.Alias != "" {
		s, err := c.GetScore(ctx, in.Alias)
		switch {
		case IsNotFound(err):
			return nil, nil
		case err != nil:
			return nil, fmt.Errorf("publishing score with alias %q: %w (and looking the alias up failed: %w)", in.Alias, cause, err)
		case s.ScoreURL != in.ScoreURL:
			return nil, aliasConflict(in.Alias, fmt.Sprintf("is already used by score %s with another scoreUrl", s.ID))
		case s.CreatedAt.Before(since()):
			return nil, aliasConflict(in.Alias, fmt.Sprintf("is already used by score %s, published at %s, before this "+
				"publish was sent (%s on the platform's clock): another configuration or an earlier run manages it",
				s.ID, s.CreatedAt.Format(time.RFC3339), since().Add(ClockTolerance).Format(time.RFC3339)))
		}
		s.Recovered = fmt.Sprintf("found under its alias %q after %v", in.Alias, cause)
		return s, nil
	}
	var found []*Score
	for s, err := range c.AllScores(ctx, ScoreCriteria{ScoreURL: in.ScoreURL}, 0, 0) {
		if err != nil {
			return nil, fmt.Errorf("%w (and looking for the score by its scoreUrl failed: %w)", cause, err)
		}
		if s.ScoreURL == in.ScoreURL && s.Alias == "" && s.Transpose == in.Transpose && !s.CreatedAt.Before(since()) {
			found = append(found, s)
		}
	}
	switch len(found) {
	case 0:
		return nil, nil
	case 1:
		found[0].Recovered = fmt.Sprintf("found by its scoreUrl, the only score of that address created since the publish "+
			"was sent, after %v", cause)
		return found[0], nil
	}
	ids := make([]string, len(found))
	for i, s := range found {
		ids[i] = s.ID
	}
	return nil, &AmbiguousPublishError{ScoreURL: in.ScoreURL, IDs: ids, Err: cause}
}

// aliasConflict is the 409 the platform answers for an alias in use.
func aliasConflict(alias, detail string) *APIError {
	return &APIError{
		Status: http.StatusConflict, Code: "publishing/CONFLICT",
		Message: fmt.Sprintf("alias %q %s", alias, detail), Method: http.MethodPost, Path: "/scores",
	}
}

// AmbiguousPublishError is a publish whose answer was lost, after which several
// scores of its scoreUrl were found created since it was sent: any of them may be
// the one it created.
type AmbiguousPublishError struct {
	ScoreURL string
	// IDs are the UUIDs of the scores found.
	IDs []string
	Err error
}

// Error lists the scores found.
func (e *AmbiguousPublishError) Error() string {
	return fmt.Sprintf("the publish got no usable answer (%v), and %d scores of this scoreUrl were created since it was "+
		"sent: %s. Import the one this configuration manages and delete the others", e.Err, len(e.IDs), strings.Join(e.IDs, ", "))
}

// Unwrap returns the error of the publish.
func (e *AmbiguousPublishError) Unwrap() error { return e.Err }

// GetScore reads one score by UUID or alias. A missing score gives an error
// for which IsNotFound holds.
func (c *Client) GetScore(ctx context.Context, idOrAlias string) (*Score, error) {
	u, err := c.scoreURL(idOrAlias)
	if err != nil {
		return nil, err
	}
	var out *Score
	if _, err := c.do(ctx, &request{method: http.MethodGet, url: u, auth: authPlatform, wrapper: "score"}, &out); err != nil {
		return nil, c.confirmScoreGone(ctx, err)
	}
	if out == nil || out.ID == "" {
		return nil, fmt.Errorf("reading score %q: the answer holds no score", idOrAlias)
	}
	return out, nil
}

// ListScores returns one page of scores, in the platform's order (the contract's
// platform orders them by creation time; the specification shows no order).
func (c *Client) ListScores(ctx context.Context, in ListScoresInput) ([]*Score, error) {
	base, err := c.PublishingURL()
	if err != nil {
		return nil, err
	}
	if in.Limit < 0 || in.Limit > MaxListLimit {
		return nil, fmt.Errorf("listing scores: limit %d is not between 1 and %d", in.Limit, MaxListLimit)
	}
	if in.Offset < 0 {
		return nil, fmt.Errorf("listing scores: offset %d is negative", in.Offset)
	}
	q, body, err := scoreQueryParams(in.Criteria, in.Offset, in.Limit)
	if err != nil {
		return nil, err
	}
	var out []*Score
	req := &request{method: http.MethodGet, url: base + "/scores", query: q, body: body, auth: authPlatform, wrapper: "scores"}
	if _, err := c.do(ctx, req, &out); err != nil {
		return nil, c.addressError(c.publishingSetting(), base, "/scores", err)
	}
	return out, nil
}

// scoreQueryParams are the parameters of a list or count call, both in the query
// string and as a JSON body: a platform may read them from either only (contract
// §V1, §V2), and the contract's platform lets the body win when both carry them.
// A zero offset or limit is left out (the platform's default).
func scoreQueryParams(criteria ScoreCriteria, offset, limit int) (url.Values, map[string]any, error) {
	q, body := url.Values{}, map[string]any{}
	if offset > 0 {
		q.Set("offset", strconv.Itoa(offset))
		body["offset"] = offset
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
		body["limit"] = limit
	}
	if doc := criteria.document(); len(doc) > 0 {
		b, err := json.Marshal(doc)
		if err != nil {
			return nil, nil, err
		}
		q.Set("score", string(b))
		body["score"] = doc
	}
	return q, body, nil
}

// ListAllScores collects AllScores into a slice.
func (c *Client) ListAllScores(ctx context.Context, criteria ScoreCriteria, offset, limit int) ([]*Score, error) {
	scores := []*Score{}
	for s, err := range c.AllScores(ctx, criteria, offset, limit) {
		if err != nil {
			return nil, err
		}
		scores = append(scores, s)
	}
	return scores, nil
}

// CountScores counts the scores matching the criteria (POST /scores/count).
//
// A count of a set that other clients change is a snapshot, never an error (contract
// §V4): when the answer fails checkCount in a way that scores leaving the set between
// the count and the check would explain, the count is taken again, up to maxCounts
// times, and the first count that passes is the answer. A platform that ignored a
// parameter gives an impossible answer every time; a set that moves fails a check only
// when scores leave it in the moment between the two requests, which does not happen
// maxCounts times in a row (at 100 writes a second and 10 ms a request, a check fails
// about one time in three: the last of five in a row about one count in 400; at the
// rates of a busy platform, 2 writes a second and 30 ms, never in practice).
func (c *Client) CountScores(ctx context.Context, in CountScoresInput) (int, error) {
	base, err := c.PublishingURL()
	if err != nil {
		return 0, err
	}
	if in.Limit < 0 || in.Offset < 0 {
		return 0, fmt.Errorf("counting scores: offset %d and limit %d must not be negative", in.Offset, in.Limit)
	}
	q, body, err := scoreQueryParams(in.Criteria, in.Offset, in.Limit)
	if err != nil {
		return 0, err
	}
	for attempt := 1; ; attempt++ {
		count, err := c.countOnce(ctx, base, q, body)
		if err != nil {
			return 0, err
		}
		err = c.checkCount(ctx, in, count)
		var countErr *CountError
		if !errors.As(err, &countErr) || !countErr.Moving || attempt == maxCounts {
			if countErr != nil && countErr.Moving {
				countErr.Attempts = attempt
			}
			return count, err
		}
		logDebug(c.logContext(ctx), "a count did not match the list checked after it; the set may have changed, counting again",
			map[string]any{"count": count, "attempt": attempt})
	}
}

// maxCounts bounds the counts CountScores takes of a set that keeps moving.
const maxCounts = 5

// countOnce asks the platform for the count once.
func (c *Client) countOnce(ctx context.Context, base string, q url.Values, body map[string]any) (int, error) {
	var out *int
	// Counting changes nothing, so it is safe to repeat. The specification lists the
	// count as POST and shows GET in its example (contract §V3): after a 405 to the
	// POST, this platform counts with GET for the rest of the process.
	req := &request{method: http.MethodPost, url: base + "/scores/count", query: q, body: body, auth: authPlatform,
		retrySafe: true, wrapper: "count"}
	if c.countByGet.Load() {
		req.method = http.MethodGet
	}
	_, err := c.do(ctx, req, &out)
	if statusOf(err) == http.StatusMethodNotAllowed && req.method == http.MethodPost {
		c.countByGet.Store(true)
		c.warnFallback(ctx, "count-get", "the platform counts scores with GET (POST answered 405); using GET from now on", nil)
		req.method = http.MethodGet
		_, err = c.do(ctx, req, &out)
	}
	if err != nil {
		return 0, c.addressError(c.publishingSetting(), base, "/scores/count", err)
	}
	if out == nil {
		return 0, errors.New("counting scores: the answer holds no count")
	}
	return *out, nil
}

// checkCount refuses a count that cannot be true for the request (contract §V4): a
// platform that ignored a parameter answers with a number that looks right and is
// not. A count is never negative and never above its limit; and with an offset or
// criteria, the listing of the same request must hold a score at the count's last
// position (one request of one score), or the count is above what the platform holds:
// a CountError with Moving set, since scores that left between the two requests give
// the same result.
func (c *Client) checkCount(ctx context.Context, in CountScoresInput, count int) error {
	ignored := func(params, detail string) *CountError {
		return &CountError{Count: count, Params: params, Detail: detail}
	}
	switch {
	case count < 0:
		return ignored("", "a count is never negative")
	case in.Limit > 0 && count > in.Limit:
		return ignored("limit", fmt.Sprintf("it is above the limit of %d asked for", in.Limit))
	case count == 0 || (in.Offset == 0 && len(in.Criteria.document()) == 0):
		return nil
	}
	page, err := c.ListScores(ctx, ListScoresInput{Criteria: in.Criteria, Offset: in.Offset + count - 1, Limit: 1})
	if err != nil {
		return fmt.Errorf("counting scores: checking the count of %d against the list failed: %w", count, err)
	}
	if len(page) == 0 {
		params := "offset or score (the criteria)"
		switch {
		case in.Offset == 0:
			params = "score (the criteria)"
		case len(in.Criteria.document()) == 0:
			params = "offset"
		}
		e := ignored(params, fmt.Sprintf("the list of the same request holds no score at position %d", in.Offset+count))
		e.Moving = true
		return e
	}
	return nil
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
	// Attempts is how many counts in a row failed so (when Moving).
	Attempts int
}

// Error names the count, why it cannot be true and the parameter ignored.
func (e *CountError) Error() string {
	msg := fmt.Sprintf("counting scores: the platform answered a count of %d, which cannot be true: %s", e.Count, e.Detail)
	if e.Attempts > 1 {
		msg += fmt.Sprintf(" (and so did the %d counts taken before it, each checked against the list)", e.Attempts-1)
	}
	if e.Params != "" {
		msg += "; the platform ignored the parameter " + e.Params + " (sent both in the query string and in a JSON body)"
	}
	return msg
}

// DeleteScore deletes a score by UUID or alias, purging its rendered assets
// when purge is set. A missing score gives an error for which IsNotFound holds.
func (c *Client) DeleteScore(ctx context.Context, idOrAlias string, purge bool) error {
	c.refresh.invalidate()
	defer c.refresh.invalidate()
	defer c.renders.forgetTotal() // the list shrank: the rendering waits count it again
	u, err := c.scoreURL(idOrAlias)
	if err != nil {
		return err
	}
	var q url.Values
	if purge {
		q = url.Values{"purge": {"true"}}
	}
	_, err = c.do(ctx, &request{method: http.MethodDelete, url: u, query: q, auth: authPlatform}, nil)
	if IsForeignAnswer(err) {
		// A 2xx that is not the platform's (a WAF's "request blocked" page, a catch-all
		// front end) proves nothing: the score leaves the state only once the platform
		// itself says it is gone.
		_, gerr := c.GetScore(ctx, idOrAlias)
		switch {
		case IsNotFound(gerr):
			logDebug(c.logContext(ctx), "the delete's answer was not the platform's, but the score is gone", nil)
			return nil
		case gerr == nil:
			return fmt.Errorf("%w; and the score still exists on the platform, so it was not deleted", err)
		default:
			return fmt.Errorf("%w; and whether the score is gone is unknown: reading it failed: %w", err, gerr)
		}
	}
	return c.confirmScoreGone(ctx, err)
}

// confirmScoreGone checks a 404 from a score's address before it counts as "the
// score is gone" (contract §0): a wrong publishing address or a gateway without
// the route answers 404 too. The score collection must answer (GET
// /scores?limit=1 → 200); once it has, the answer is remembered for the life of
// the client. When it does not, the 404 becomes an *AddressError, for which
// IsNotFound is false. Any other error is returned as it is.
func (c *Client) confirmScoreGone(ctx context.Context, err error) error {
	if !IsNotFound(err) || c.scoresCollectionSeen.Load() {
		return err
	}
	base, berr := c.PublishingURL()
	if berr != nil {
		return err
	}
	_, lerr := c.do(ctx, &request{method: http.MethodGet, url: base + "/scores", query: url.Values{"limit": {"1"}}, auth: authPlatform}, nil)
	switch {
	case lerr == nil:
		c.scoresCollectionSeen.Store(true)
		return err
	case IsNotFound(lerr):
		return c.addressError(c.publishingSetting(), base, "/scores", fmt.Errorf("%w; and the score list at the same address answered %w", err, lerr))
	default:
		return fmt.Errorf("%w (whether the score is gone is unknown: checking the score list failed: %w)", stripNotFound(err), lerr)
	}
}

// stripNotFound returns err's text as an error for which IsNotFound is false.
func stripNotFound(err error) error { return errors.New(err.Error()) }

// CreateView creates a time-limited view of a score (UUID or alias).
func (c *Client) CreateView(ctx context.Context, scoreIDOrAlias string, in ViewInput) (*View, error) {
	u, err := c.scoreURL(scoreIDOrAlias)
	if err != nil {
		return nil, err
	}
	settings := map[string]any{}
	if in.Printable != nil {
		settings["printable"] = *in.Printable
	}
	if in.Pages != "" {
		settings["pages"] = in.Pages
	}
	if in.LicenseString != "" {
		settings["licenseString"] = in.LicenseString
	}
	if in.Lang != "" {
		settings["lang"] = in.Lang
	}
	body := map[string]any{"settings": settings}
	if in.ExpiresIn > 0 {
		body["expiresIn"] = in.ExpiresIn
	}
	var out *View
	// A spare view cannot be listed or used by anyone without its URL and
	// expires on its own, so repeating a lost request is harmless.
	req := &request{method: http.MethodPost, url: u + "/view", body: body, auth: authPlatform, retrySafe: true, wrapper: "view"}
	if _, err := c.do(ctx, req, &out); err != nil {
		return nil, err
	}
	if out == nil || out.ViewerURL == "" {
		return nil, fmt.Errorf("creating a view of score %q: the answer holds no view", scoreIDOrAlias)
	}
	return out, nil
}

// Health reads the publishing service's health report (GET /core/health). The
// specification calls the call unreliable ("not strictly part of the public API and
// must not be relied upon") and shows no body of its own, so whatever a 2xx carries,
// Health reports what it can and fails on no answer's shape (contract §V): the
// contract's {"service": {"healthStatus": …}}, a top-level status, or a short text
// ("OK") give the status as reported; anything else (an HTML page, other JSON) is
// status "unknown", with Note saying why. Only a failed request is an error.
func (c *Client) Health(ctx context.Context) (*Health, error) {
	base, err := c.PublishingURL()
	if err != nil {
		return nil, err
	}
	resp, err := c.do(ctx, &request{method: http.MethodGet, url: base + "/core/health", auth: authPlatform, textAnswer: true}, nil)
	var foreign *ForeignAnswerError
	if errors.As(err, &foreign) && strings.HasSuffix(foreign.Path, "/core/health") {
		// The health answer itself, not the login on the way to it.
		return &Health{Status: healthUnknown, Note: foreign.Error()}, nil
	}
	if err != nil {
		return nil, err
	}
	h := readHealth(resp.body)
	h.Healthy = strings.EqualFold(h.Status, "ok")
	if h.Status == healthUnknown {
		c.warnFallback(ctx, "health", "the health answer holds no status the provider can read; reported as unknown", nil)
	}
	return h, nil
}

// healthUnknown is the status of a health answer that says none.
const healthUnknown = "unknown"

// readHealth takes the status out of a 2xx health answer of any form.
func readHealth(body []byte) *Health {
	body = bytes.TrimSpace(body)
	var doc struct {
		Service struct {
			HealthStatus   string `json:"healthStatus"`
			HealthVerifier string `json:"healthVerifier"`
		} `json:"service"`
		HealthStatus string `json:"healthStatus"`
		Status       string `json:"status"`
	}
	if json.Valid(body) {
		if json.Unmarshal(body, &doc) == nil {
			for _, status := range []string{doc.Service.HealthStatus, doc.HealthStatus, doc.Status} {
				if status != "" {
					return &Health{Status: status, Verifier: doc.Service.HealthVerifier, Raw: json.RawMessage(body)}
				}
			}
		}
		return &Health{Status: healthUnknown, Note: "the answer is JSON without a health status", Raw: json.RawMessage(body)}
	}
	// A short word of text ("OK", "healthy"): the status as reported.
	if text := string(body); len(text) > 0 && len(text) <= 32 && !strings.ContainsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_' && r != ' '
	}) {
		return &Health{Status: text}
	}
	return &Health{Status: healthUnknown, Note: "the answer is text that says no status"}
}

// KnownScoreStatus reports whether status is one the contract names: pending,
// rendering, idle or error.
func KnownScoreStatus(status string) bool {
	switch status {
	case ScoreStatusPending, ScoreStatusRendering, ScoreStatusIdle, ScoreStatusError:
		return true
	}
	return false
}

// poll calls step until it reports done or fails, sleeping between calls with a
// backoff from pollStart, doubling up to pollMax. When ctx ends during a sleep, the
// error says what was waited for (waiting) and wraps ctx's error.
func poll(ctx context.Context, step func() (done bool, err error), waiting func() string) error {
	delay := pollStart
	for {
		done, err := step()
		if done || err != nil {
			return err
		}
		if err := sleepCtx(ctx, delay); err != nil {
			return fmt.Errorf("%s: %w", waiting(), err)
		}
		delay = min(delay*2, pollMax)
	}
}

// sleepCtx waits for d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// flexTime decodes an RFC 3339 time, tolerating null and the empty string.
type flexTime struct{ time.Time }

// UnmarshalJSON accepts an RFC 3339 string, "" or null.
func (t *flexTime) UnmarshalJSON(b []byte) error {
	var s *string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if s == nil || *s == "" {
		t.Time = time.Time{}
		return nil
	}
	v, err := time.Parse(time.RFC3339Nano, *s)
	if err != nil {
		return err
	}
	t.Time = v.UTC()
	return nil
}
