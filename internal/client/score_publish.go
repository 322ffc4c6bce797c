package client

// Publishing a score, and finding out what became of a publish whose answer was lost.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"
)

// PublishScore publishes a score. A request whose outcome is unknown (no clean
// answer, or a 2xx that is not the platform's) is never repeated blindly: the
// platform is searched for the score this request can have created (see
// recoverPublish). Found, it is returned with Recovered saying so; certainly not
// created (an alias the platform does not hold), the publish is sent again
// (max_retries times); otherwise the error says what was found, and a score without
// an alias that the listing did not show leaves the outcome unknown. Should ctx end
// while the outcome is unknown, the error is a *PublishCutError, which SettlePublish
// looks up. A conflict (409) on an alias fails unless it follows such an
// unknown outcome and the alias holds a score this run can have created. The score's
// creation time is recorded, so that a read of it that lags the write is doubted
// (ReadScore).
func (c *Client) PublishScore(ctx context.Context, in PublishScoreInput) (published *Score, _ error) {
	// A listing read before the publish no longer tells the truth; nor does one
	// read while it is on the wire, so the refresh is reset before and after.
	c.refresh.invalidate()
	defer c.refresh.invalidate()
	defer func() { c.refresh.noteScore(published) }()
	base, err := c.PublishingURL()
	if err != nil {
		return nil, err
	}
	if in.ScoreURL == "" {
		return nil, errors.New("publishing score: no score URL given")
	}
	defer c.renders.publishing()() // its wait, if any, belongs to the rendering wait's wave
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
	var firstSent sentAt
	for attempt := 0; ; attempt++ {
		var out *Score
		req := &request{
			method: http.MethodPost, url: base + "/scores", body: body, auth: authPlatform,
			outcomeDetail: "the score may have been created", wrapper: "score",
		}
		sent := c.sentNow()
		resp, err := c.do(ctx, req, &out)
		created := ""
		if err == nil && (out == nil || out.ID == "") {
			var ok bool
			if created, ok = createdScoreID(resp, base); !ok {
				// The platform accepted the request (2xx) but its answer does not say
				// which score it created: as good as no answer.
				err = req.unknownOutcome(pathOf(resp.url), errors.New(noScoreReason(resp)))
			}
		}
		switch {
		case err == nil && created != "":
			// 201 Created naming the new score in Location (rule 19): a proven write,
			// read back once for what the state needs.
			c.renders.published()
			logDebug(ctx, "publish answered 201 Created with the score's Location; reading it back", map[string]any{"id": created})
			return c.readPublished(ctx, &Score{ID: created}, in), nil

		case err == nil:
			c.renders.published()
			return c.completePublished(ctx, out, in), nil

		case IsUnknownOutcome(err) && ctx.Err() == nil:
			if firstSent.local.IsZero() {
				firstSent = sent
			}
			s, rerr := c.recoverPublish(ctx, in, firstSent, err)
			switch {
			case rerr != nil && ctx.Err() != nil && IsUnknownOutcome(rerr):
				// The look-up was cut: the caller may settle it later (SettlePublish).
				return nil, &PublishCutError{input: in, sent: firstSent, Err: rerr}
			case rerr != nil:
				return nil, c.unsettled(in, firstSent, rerr)
			case s != nil:
				logDebug(ctx, "publish outcome was unknown; found the score it created", map[string]any{"attempt": attempt + 1})
				return s, nil
			case attempt >= c.cfg.MaxRetries:
				return nil, err
			}
			logDebug(ctx, "publish outcome was unknown and it created no score; publishing again", map[string]any{"attempt": attempt + 1})
			if werr := sleepCtx(ctx, backoff(c.cfg.RetryWaitMin, c.cfg.RetryWaitMax, attempt, nil)); werr != nil {
				return nil, &PublishCutError{input: in, sent: firstSent, Err: err}
			}

		case IsUnknownOutcome(err):
			// The caller stopped waiting (an interrupt) while the publish was on the wire:
			// the platform may have acted. The caller may settle it (SettlePublish).
			if firstSent.local.IsZero() {
				firstSent = sent
			}
			return nil, &PublishCutError{input: in, sent: firstSent, Err: err}

		case IsConflict(err) && !firstSent.local.IsZero():
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
	return c.readPublished(ctx, s, in)
}

// readPublished reads back the score s a publish created (s holds at least its id).
// Should the read fail, the fields are taken from what was published (a new score is
// pending), and the next refresh reads the rest.
func (c *Client) readPublished(ctx context.Context, s *Score, in PublishScoreInput) *Score {
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
	s.Transpose, s.TransposeAbsent = in.Transpose, false
	return s
}

// createdScoreID is the id of the score a publish answered 201 Created for without
// one in its body (rule 19: JAX-RS's Response.created(uri), Rails's `head :created,
// location:`): the last path segment of its Location, resolved against the request's
// address, when that is under base's /scores/ on base's own host (sameHost; the path
// by EquivalentURLs). ok is false for any other answer: a Location elsewhere proves
// nothing, and the write stays an unknown outcome.
func createdScoreID(resp *response, base string) (id string, ok bool) {
	loc := resp.header.Get("Location")
	if resp.status != http.StatusCreated || loc == "" {
		return "", false
	}
	target, err := resp.url.Parse(loc)
	if err != nil {
		return "", false
	}
	b, err := url.Parse(base)
	if err != nil || !sameHost(target, b) {
		return "", false
	}
	dir, segment := path.Split(target.EscapedPath())
	id, err = url.PathUnescape(segment)
	if err != nil || id == "" || id == "." || id == ".." ||
		!EquivalentURLs(b.Scheme+"://"+b.Host+dir, base+"/scores/") {
		return "", false
	}
	return id, true
}

// noScoreReason says why a 2xx answer to a publish names no score.
func noScoreReason(resp *response) string {
	if resp.status == http.StatusCreated && resp.header.Get("Location") != "" {
		return "the answer holds no score, and its Location is not a score under publishing_url on its host"
	}
	return "the answer holds no score"
}

// SettlePublish settles, within ctx, a publish that its own context cut while its
// outcome was unknown (err, a *PublishCutError from PublishScore: an interrupt while
// the publish was on the wire or its answer was being looked for): the score it can
// have created is looked up as for a lost answer (recoverPublish) and returned, with
// Recovered set. When the look-up cannot tell, err is returned, or the look-up's own
// error (which wraps it); an err of any other kind is returned as it is.
func (c *Client) SettlePublish(ctx context.Context, err error) (*Score, error) {
	var cut *PublishCutError
	if !errors.As(err, &cut) {
		return nil, err
	}
	c.refresh.invalidate()
	defer c.refresh.invalidate()
	s, rerr := c.recoverPublish(c.logContext(ctx), cut.input, cut.sent, cut.Err)
	switch {
	case rerr != nil:
		return nil, c.unsettled(cut.input, cut.sent, rerr)
	case s == nil:
		// It created none: nothing is left to settle.
		return nil, cut.Err
	}
	c.refresh.noteScore(s)
	return s, nil
}

// PublishCutError is a publish whose context ended (an interrupt) while its outcome
// was unknown: sent, with no answer yet, or with its answer lost and the look-up for
// the score it can have created unfinished. SettlePublish looks that score up.
type PublishCutError struct {
	input PublishScoreInput
	sent  sentAt
	// Err is the unknown outcome.
	Err error
}

// Error is the unknown outcome's.
func (e *PublishCutError) Error() string { return e.Err.Error() }

// Unwrap returns the unknown outcome.
func (e *PublishCutError) Unwrap() error { return e.Err }

// UnsettledPublish is a publish whose outcome stayed unknown when the run that sent it
// gave up: what it sent, and when, which is what a later run needs to settle it
// (SettleUnsettled).
type UnsettledPublish struct {
	Input PublishScoreInput
	// Sent is when the publish was first sent, on the platform's clock as the run knew
	// it (the earlier of the offsets known then and at the end, as sentAt.onPlatform):
	// a score it created is no older, within ClockTolerance.
	Sent time.Time
}

// UnsettledPublishError is a publish whose outcome stayed unknown: sent, with no
// usable answer, and the look-up for the score it can have created failed or could
// not tell. Err says why.
type UnsettledPublishError struct {
	Publish UnsettledPublish
	Err     error
}

// Error is the unknown outcome's.
func (e *UnsettledPublishError) Error() string { return e.Err.Error() }

// Unwrap returns the unknown outcome.
func (e *UnsettledPublishError) Unwrap() error { return e.Err }

// UnsettledOf returns the publish that err leaves unsettled: a publish cut while its
// outcome was unknown (*PublishCutError) or one whose look-up could not tell
// (*UnsettledPublishError). ok is false for any other error, a publish that certainly
// created nothing included.
func (c *Client) UnsettledOf(err error) (_ UnsettledPublish, ok bool) {
	var u *UnsettledPublishError
	if errors.As(err, &u) {
		return u.Publish, true
	}
	var cut *PublishCutError
	if errors.As(err, &cut) {
		return UnsettledPublish{Input: cut.input, Sent: cut.sent.onPlatform(c)}, true
	}
	return UnsettledPublish{}, false
}

// unsettled is err, the error of a look-up after a publish of in first sent at sent,
// as an *UnsettledPublishError when it leaves the outcome unknown: not a conflict
// (the alias is another score's, so the publish created none) nor several candidates
// (*AmbiguousPublishError, which names them).
func (c *Client) unsettled(in PublishScoreInput, sent sentAt, err error) error {
	var ambiguous *AmbiguousPublishError
	if !IsUnknownOutcome(err) || errors.As(err, &ambiguous) {
		return err
	}
	return &UnsettledPublishError{Publish: UnsettledPublish{Input: in, Sent: sent.onPlatform(c)}, Err: err}
}

// SettleUnsettled settles a publish that an earlier run left unsettled (u): it returns
// the score that publish created, or nil when it certainly created none, or an error
// when the platform still cannot tell (a look-up that fails, several candidates
// without an alias). The rule is the one of a lost answer (recoverPublish): with an
// alias, the score under it with the same scoreUrl and options, created since the
// publish was sent; an alias the platform does not hold, or holds for a score that
// is older or of another address or options, means it created none. Without one, the
// only score of that scoreUrl without an alias created since; none in a listing read
// once the listing's lag is past (ListingLagBound, and ReadLagWindow where reads have
// lagged) means it created none.
func (c *Client) SettleUnsettled(ctx context.Context, u UnsettledPublish) (*Score, error) {
	ctx = c.logContext(ctx)
	// How long ago it was sent, on the platform's clock, as a moment of the client's
	// monotonic clock, so that the look-up's lag bounds count from the publish.
	now, _ := c.PlatformTime(time.Now())
	ago := max(now.Sub(u.Sent), 0)
	sent := sentAt{platform: u.Sent, mono: c.local.Now().Add(-ago)}
	cause := (&request{method: http.MethodPost, outcomeDetail: "the score may have been created"}).unknownOutcome("/scores",
		fmt.Errorf("an earlier run's publish, sent at %s on the platform's clock, got no usable answer",
			u.Sent.UTC().Format(time.RFC3339)))
	s, err := c.recoverPublish(ctx, u.Input, sent, cause)
	var unlisted *unlistedError
	if errors.As(err, &unlisted) {
		// A listing read once the listing's lag is past proves that nothing was
		// created. Read before it (on the platform's clock the look-up's answers gave),
		// it is read again once the rest of the lag is past on this run's monotonic
		// clock, at most the whole lag: the publish was sent before this run began,
		// whatever the platform's clock says after a step, so it is then that old.
		now, _ = c.PlatformTime(time.Now())
		bound := ListingLagBound + ClockTolerance
		if c.lagShown() {
			bound = max(bound, ReadLagWindow+ClockTolerance)
		}
		if ago = now.Sub(u.Sent); ago > bound {
			return nil, nil
		}
		if werr := c.local.Sleep(ctx, min(bound-ago, bound)+10*time.Millisecond); werr != nil {
			return nil, err
		}
		sent.mono = c.local.Now().Add(-bound)
		if s, err = c.recoverPublish(ctx, u.Input, sent, cause); errors.As(err, &unlisted) {
			return nil, nil
		}
	}
	if IsConflict(err) {
		return nil, nil
	}
	return s, err
}

// sentAt is when a request was sent: on this machine's clock, and the platform clock's
// offset known then (known is false while no answer had shown it); and, for how long
// ago, on the client's monotonic clock (Config.clock).
type sentAt struct {
	local  time.Time
	offset time.Duration
	known  bool
	mono   time.Time
	// platform, when set, is the moment on the platform's clock as an earlier run
	// knew it (SettleUnsettled): it stands for local and the offsets.
	platform time.Time
}

// sentNow is the moment of a request about to be sent.
func (c *Client) sentNow() sentAt {
	offset, known := c.PlatformClockOffset()
	return sentAt{local: time.Now(), offset: offset, known: known, mono: c.local.Now()}
}

// onPlatform is when s was sent, on the platform's clock. The offset learned since
// (from the look-up that asks) is taken, or the one known when the request was sent,
// whichever is earlier: should the platform's clock have stepped forward in between,
// a score created before the step has a createdAt on the clock before it, and one
// created after the step a later one; stepped back, one created after the step an
// earlier one. The earlier of the two reads a score this request created as created
// since it was sent, either way.
func (s sentAt) onPlatform(c *Client) time.Time {
	if !s.platform.IsZero() {
		return s.platform
	}
	offset, _ := c.PlatformClockOffset()
	if s.known {
		offset = min(offset, s.offset)
	}
	return s.local.Add(offset)
}

// ListingLagBound is how long a publish whose answer was lost, and which has no alias,
// is looked for in the listing before its outcome is left unknown: a listing may be
// served from a search index refreshed about every second while a GET by id is
// real-time, so a score created moments ago may be missing from it although nothing
// the platform answers ever shows a lag. It is judged on the client's monotonic clock
// from when the look-up began (the score, if any, was created before).
const ListingLagBound = 2 * time.Second

// recoverPublish looks for the score that a publish of in, first sent at sent, can
// have created although no answer said so (cause). It returns the score (with
// Recovered set), or nil when the request certainly created none, or an error.
//
// A score counts only when it was created no earlier than the request was sent,
// judged on the platform's clock (PlatformTime) with ClockTolerance: another
// configuration may hold a score of the same alias or address, created before, and
// adopting it would give one score to two states. With an alias, the score under the
// alias must also have the same scoreUrl and options; an older one, or one of another
// scoreUrl or transpose, is the conflict the platform's 409 would have reported. An
// alias that answers 404 created nothing (a publish sent again meets the platform's
// 409 if it did: the alias is unique); it is read again until the publish is
// ReadLagWindow old once the platform has shown lagging reads in this process, or
// answered 409 for an alias its read did not find.
//
// Without an alias, the scores of that scoreUrl are listed: exactly one new one is
// adopted, several are an error that lists them. A listing may lag (a search index),
// and nothing would stop a second copy, so absence there never proves that nothing
// was created: the listing is read again for ListingLagBound (and until the publish is
// ReadLagWindow old once the platform has shown lag), and a score still not found
// leaves the outcome unknown (an error wrapping cause); the publish is not sent again.
func (c *Client) recoverPublish(ctx context.Context, in PublishScoreInput, sent sentAt, cause error) (*Score, error) {
	since := func() time.Time {
		return sent.onPlatform(c).Add(-ClockTolerance) // after the look-up, whose answer set the clock
	}
	doubt := c.lagShown() || IsConflict(cause)
	// The score exists, if at all, by the time its answer failed: an index refreshed
	// within ListingLagBound of that shows it, however long the request took.
	deadline := c.local.Now().Add(ListingLagBound)
	if doubt {
		deadline = later(deadline, sent.mono.Add(ReadLagWindow))
	}
	pause := 250 * time.Millisecond
	again := func() bool {
		left := deadline.Sub(c.local.Now())
		if left <= 0 || c.local.Sleep(ctx, min(pause, left)) != nil {
			return false
		}
		pause = min(2*pause, lagRereadMax)
		return true
	}
	if in.Alias != "" {
		s, err := c.GetScore(ctx, in.Alias)
		for IsNotFound(err) && doubt && again() {
			s, err = c.GetScore(ctx, in.Alias)
		}
		switch {
		case IsNotFound(err):
			return nil, nil
		case err != nil:
			return nil, fmt.Errorf("publishing score with alias %q: %w (and looking the alias up failed: %w)", in.Alias, cause, err)
		case !EquivalentURLs(s.ScoreURL, in.ScoreURL):
			return nil, aliasConflict(in.Alias, fmt.Sprintf("is already used by score %s with another scoreUrl", s.ID))
		case s.Transpose != in.Transpose:
			return nil, aliasConflict(in.Alias, fmt.Sprintf("is already used by score %s with other options (transpose %t)",
				s.ID, s.Transpose))
		case s.Publisher != "" && c.PlatformUser() != "" && s.Publisher != c.PlatformUser():
			return nil, aliasConflict(in.Alias, fmt.Sprintf("is already used by score %s, published by user %q, not by "+
				"this provider's user", s.ID, s.Publisher))
		case s.CreatedAt.Before(since()):
			return nil, aliasConflict(in.Alias, fmt.Sprintf("is already used by score %s, published at %s, before this "+
				"publish was sent (%s on the platform's clock): another configuration or an earlier run manages it",
				s.ID, s.CreatedAt.Format(time.RFC3339), since().Add(ClockTolerance).Format(time.RFC3339)))
		}
		s.Recovered = fmt.Sprintf("found under its alias %q after %v", in.Alias, cause)
		return s, nil
	}
	var found []*Score
	lists := 0
	for len(found) == 0 {
		lists++
		for s, err := range c.AllScores(ctx, ScoreCriteria{ScoreURL: in.ScoreURL}, 0, 0) {
			if err != nil {
				return nil, fmt.Errorf("%w (and looking for the score by its scoreUrl failed: %w)", cause, err)
			}
			if !EquivalentURLs(s.ScoreURL, in.ScoreURL) || s.Alias != "" || s.CreatedAt.Before(since()) {
				continue
			}
			// A listing's summary says nothing of the options: read the score whole.
			if s, err = c.WholeScore(ctx, s); err != nil {
				return nil, fmt.Errorf("%w (and reading a score of that scoreUrl whole failed: %w)", cause, err)
			}
			if s.Transpose == in.Transpose {
				found = append(found, s)
			}
		}
		if len(found) == 0 && !again() {
			break
		}
	}
	switch len(found) {
	case 0:
		return nil, &unlistedError{err: fmt.Errorf("%w; the listing of this scoreUrl, read %d times in the %s after the "+
			"publish was sent, held no score created since, and a listing may lag a publish, so the outcome stays unknown "+
			"and the publish was not sent again", cause, lists, c.local.Now().Sub(sent.mono).Round(10*time.Millisecond))}
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

// unlistedError is a look-up by scoreUrl that found no score created since the
// publish was sent, in a listing that may lag it.
type unlistedError struct{ err error }

func (e *unlistedError) Error() string { return e.err.Error() }

func (e *unlistedError) Unwrap() error { return e.err }

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
		"sent: %s", e.Err, len(e.IDs), strings.Join(e.IDs, ", "))
}

// Unwrap returns the error of the publish.
func (e *AmbiguousPublishError) Unwrap() error { return e.Err }
