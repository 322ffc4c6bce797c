package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"
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
	// Healthy is true when Status is "ok".
	Healthy bool
	Raw     json.RawMessage
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

// PublishScore publishes a score. A request whose outcome is unknown (no
// clean answer) is never repeated blindly: with an alias, the alias is looked
// up first, and the score found counts as published when its scoreUrl
// matches; without an alias the result is an *UnknownOutcomeError saying the
// score may have been created. A conflict (409) on an alias fails unless it
// follows such an unknown outcome and the alias holds this score.
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

	uncertain := false
	for attempt := 0; ; attempt++ {
		var out struct {
			Score *Score `json:"score"`
		}
		req := &request{
			method: http.MethodPost, url: base + "/scores", body: body, auth: authPlatform,
			outcomeDetail: "the score may have been created",
		}
		resp, err := c.do(ctx, req, &out)
		if err == nil && (out.Score == nil || out.Score.ID == "") {
			// The platform accepted the request (2xx) but its answer does not say
			// which score it created: as good as no answer.
			err = req.unknownOutcome(pathOf(resp.url), errors.New("the answer holds no score"))
		}
		switch {
		case err == nil:
			return out.Score, nil

		case IsUnknownOutcome(err) && in.Alias != "" && ctx.Err() == nil:
			uncertain = true
			s, lerr := c.publishedUnderAlias(ctx, in)
			switch {
			case lerr == nil:
				logDebug(ctx, "publish outcome was unknown; found the score under its alias", map[string]any{"attempt": attempt + 1})
				return s, nil
			case IsConflict(lerr):
				return nil, lerr
			case !IsNotFound(lerr):
				return nil, fmt.Errorf("publishing score with alias %q: %w (and looking the alias up failed: %w)", in.Alias, err, lerr)
			}
			if attempt >= c.cfg.MaxRetries {
				return nil, err
			}
			logDebug(ctx, "publish outcome was unknown and the alias is free; publishing again", map[string]any{"attempt": attempt + 1})
			if werr := sleepCtx(ctx, backoff(c.cfg.RetryWaitMin, c.cfg.RetryWaitMax, attempt, nil)); werr != nil {
				return nil, err
			}

		case IsConflict(err) && uncertain:
			// An earlier attempt may have created the score after all.
			if s, lerr := c.publishedUnderAlias(ctx, in); lerr == nil {
				return s, nil
			}
			return nil, err

		default:
			return nil, err
		}
	}
}

// publishedUnderAlias returns the score under in.Alias if it is the one in
// describes; a score there with another scoreUrl gives a conflict error, and
// a free alias a not-found error.
func (c *Client) publishedUnderAlias(ctx context.Context, in PublishScoreInput) (*Score, error) {
	s, err := c.GetScore(ctx, in.Alias)
	if err != nil {
		return nil, err
	}
	if s.ScoreURL != in.ScoreURL {
		return nil, &APIError{
			Status: http.StatusConflict, Code: "publishing/CONFLICT",
			Message: fmt.Sprintf("alias %q is already used by score %s with another scoreUrl", in.Alias, s.ID),
			Method:  http.MethodPost, Path: "/scores",
		}
	}
	return s, nil
}

// GetScore reads one score by UUID or alias. A missing score gives an error
// for which IsNotFound holds.
func (c *Client) GetScore(ctx context.Context, idOrAlias string) (*Score, error) {
	u, err := c.scoreURL(idOrAlias)
	if err != nil {
		return nil, err
	}
	var out struct {
		Score *Score `json:"score"`
	}
	if _, err := c.do(ctx, &request{method: http.MethodGet, url: u, auth: authPlatform}, &out); err != nil {
		return nil, c.confirmScoreGone(ctx, err)
	}
	if out.Score == nil {
		return nil, fmt.Errorf("reading score %q: the answer holds no score", idOrAlias)
	}
	return out.Score, nil
}

// ListScores returns one page of scores, ordered by creation time.
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
	q := url.Values{}
	if in.Offset > 0 {
		q.Set("offset", strconv.Itoa(in.Offset))
	}
	if in.Limit > 0 {
		q.Set("limit", strconv.Itoa(in.Limit))
	}
	if doc := in.Criteria.document(); len(doc) > 0 {
		b, err := json.Marshal(doc)
		if err != nil {
			return nil, err
		}
		q.Set("score", string(b))
	}
	var out struct {
		Scores []*Score `json:"scores"`
	}
	if _, err := c.do(ctx, &request{method: http.MethodGet, url: base + "/scores", query: q, auth: authPlatform}, &out); err != nil {
		return nil, err
	}
	return out.Scores, nil
}

// AllScores iterates over every score matching criteria from offset on, in
// pages of MaxListLimit, stopping after limit scores when limit > 0. A platform
// may cap its pages below the size asked for, so a short page ends the walk
// only after a full page has shown the platform's page size; otherwise the walk
// goes on until a page comes back empty. N scores cost N/100+1 requests on a
// platform that serves full pages (one more when N < 100). An error ends the
// sequence.
func (c *Client) AllScores(ctx context.Context, criteria ScoreCriteria, offset, limit int) iter.Seq2[*Score, error] {
	return func(yield func(*Score, error) bool) {
		n := 0
		fullPageSeen := false // a page as long as asked: the platform serves pages that long
		for {
			size := MaxListLimit
			if limit > 0 {
				size = min(size, limit-n)
			}
			page, err := c.ListScores(ctx, ListScoresInput{Criteria: criteria, Offset: offset + n, Limit: size})
			if err != nil {
				yield(nil, err)
				return
			}
			if len(page) > size {
				page = page[:size]
			}
			for _, s := range page {
				n++
				if !yield(s, nil) {
					return
				}
			}
			// A short page ends the walk only once the platform has shown that it
			// serves full pages; otherwise it may cap pages below the size asked.
			if len(page) == 0 || (limit > 0 && n >= limit) || (len(page) < size && fullPageSeen) {
				return
			}
			fullPageSeen = fullPageSeen || len(page) == size
		}
	}
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
func (c *Client) CountScores(ctx context.Context, in CountScoresInput) (int, error) {
	base, err := c.PublishingURL()
	if err != nil {
		return 0, err
	}
	body := map[string]any{}
	if doc := in.Criteria.document(); len(doc) > 0 {
		body["score"] = doc
	}
	if in.Offset > 0 {
		body["offset"] = in.Offset
	}
	if in.Limit > 0 {
		body["limit"] = in.Limit
	}
	var out struct {
		Count *int `json:"count"`
	}
	// Counting changes nothing, so it is safe to repeat.
	if _, err := c.do(ctx, &request{method: http.MethodPost, url: base + "/scores/count", body: body, auth: authPlatform, retrySafe: true}, &out); err != nil {
		return 0, err
	}
	if out.Count == nil {
		return 0, errors.New("counting scores: the answer holds no count")
	}
	return *out.Count, nil
}

// DeleteScore deletes a score by UUID or alias, purging its rendered assets
// when purge is set. A missing score gives an error for which IsNotFound holds.
func (c *Client) DeleteScore(ctx context.Context, idOrAlias string, purge bool) error {
	c.refresh.invalidate()
	defer c.refresh.invalidate()
	u, err := c.scoreURL(idOrAlias)
	if err != nil {
		return err
	}
	var q url.Values
	if purge {
		q = url.Values{"purge": {"true"}}
	}
	_, err = c.do(ctx, &request{method: http.MethodDelete, url: u, query: q, auth: authPlatform}, nil)
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
		setting := "publishing_url"
		if c.cfg.PublishingURL == "" {
			setting = "admin_url (with publishing_service)"
		}
		return &AddressError{Setting: setting, Address: base, Err: fmt.Errorf("%w; and the score list at the same address answered %w", err, lerr)}
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
	var out struct {
		View *View `json:"view"`
	}
	// A spare view cannot be listed or used by anyone without its URL and
	// expires on its own, so repeating a lost request is harmless.
	if _, err := c.do(ctx, &request{method: http.MethodPost, url: u + "/view", body: body, auth: authPlatform, retrySafe: true}, &out); err != nil {
		return nil, err
	}
	if out.View == nil {
		return nil, fmt.Errorf("creating a view of score %q: the answer holds no view", scoreIDOrAlias)
	}
	return out.View, nil
}

// Health reads the publishing service's health report (GET /core/health).
func (c *Client) Health(ctx context.Context) (*Health, error) {
	base, err := c.PublishingURL()
	if err != nil {
		return nil, err
	}
	var out struct {
		Service struct {
			HealthStatus   string `json:"healthStatus"`
			HealthVerifier string `json:"healthVerifier"`
		} `json:"service"`
	}
	resp, err := c.do(ctx, &request{method: http.MethodGet, url: base + "/core/health", auth: authPlatform}, &out)
	if err != nil {
		return nil, err
	}
	return &Health{
		Status: out.Service.HealthStatus, Verifier: out.Service.HealthVerifier,
		Healthy: out.Service.HealthStatus == "ok", Raw: json.RawMessage(resp.body),
	}, nil
}

// WaitForRendering polls a score, backing off from 100 ms to 2 s, until its
// status is idle or error, and returns it; status "error" is returned as a
// score, not as an error. A status the contract does not name (say "queued")
// is waited out like pending: only ctx ends the wait then. When ctx ends or a
// read fails, it returns the last score read (nil if none) with the error.
func (c *Client) WaitForRendering(ctx context.Context, idOrAlias string) (*Score, error) {
	var last *Score
	err := poll(ctx, func() (bool, error) {
		s, err := c.GetScore(ctx, idOrAlias)
		if err != nil {
			return false, err
		}
		last = s
		if !KnownScoreStatus(s.Status) {
			logDebug(ctx, "score has a status the provider does not know; waiting on", map[string]any{"status": s.Status})
		}
		return s.Status == ScoreStatusIdle || s.Status == ScoreStatusError, nil
	}, func() string {
		return fmt.Sprintf("waiting for score %s to render (status %q)", idOrAlias, last.Status)
	})
	return last, err
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
