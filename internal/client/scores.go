package client

// Scores: the types of the score API, and reading one score or a page of them.
// Publishing, counting, deleting and views each have a file of their own
// (score_*.go); the walk over every page is score_walk.go.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
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

// Score is a published score.
type Score struct {
	// ID is the generated UUID.
	ID string
	// ScoreURL is the address of the score file.
	ScoreURL string
	// Alias is the publisher-assigned scoreId, if any: publisher.scoreId (the
	// contract's place) or a top-level scoreId (where the specification's table lists
	// it), read by eitherPlace.
	Alias string
	// Publisher is the user who published the score (publisher.identity.user).
	Publisher string
	// Transpose is options.transpose; false also when TransposeAbsent.
	Transpose bool
	// TransposeAbsent is set when the answer has no options object: a listing that
	// gives each score as a summary (without options and renderings) says nothing of
	// transpose, which is then unknown, not false. Options present without transpose
	// is false (rule 1: absent means zero, within an object the answer gives). Set only
	// on scores from a listing: GetScore's answer is the whole score.
	TransposeAbsent bool
	// Status is one of the ScoreStatus values (others are passed through).
	Status string
	// CreatedAt and UpdatedAt are the record's timestamps.
	CreatedAt time.Time
	UpdatedAt time.Time
	// Renderings lists the rendered formats.
	Renderings []Rendering
	// RenderingsAbsent is set when the answer has no renderings member: a listing's
	// summary, or a platform that leaves an empty list out. Set only on scores from a
	// listing, like TransposeAbsent.
	RenderingsAbsent bool
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

// UnmarshalJSON reads a rendering; pages in any integer form (flexInt).
func (r *Rendering) UnmarshalJSON(b []byte) error {
	var w struct {
		Format string  `json:"format"`
		Pages  flexInt `json:"pages"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*r = Rendering{Format: w.Format, Pages: int(w.Pages)}
	return nil
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
		ScoreID   string `json:"scoreId"`
		ScoreURL  string `json:"scoreUrl"`
		Publisher struct {
			ScoreID  string `json:"scoreId"`
			Identity struct {
				User string `json:"user"`
			} `json:"identity"`
		} `json:"publisher"`
		Options    json.RawMessage `json:"options"`
		Status     string          `json:"status"`
		CreatedAt  flexTime        `json:"createdAt"`
		UpdatedAt  flexTime        `json:"updatedAt"`
		Renderings json.RawMessage `json:"renderings"`
	}
	var typeErr *json.UnmarshalTypeError
	if err := json.Unmarshal(b, &w); err != nil && !errors.As(err, &typeErr) {
		return err
	}
	// A member of another type was skipped and the rest decoded (encoding/json goes
	// on past a type error): the score is kept with that member absent (rule "a write
	// is recorded from what proves it"). The error is not returned: in a list it would
	// end the decoding of every score after this one.
	// options and renderings are read apart, so that one absent, null or of another
	// type is told from one that holds false or nothing.
	var options *struct {
		Transpose *bool `json:"transpose"`
	}
	var renderings *[]Rendering
	if len(w.Options) > 0 && json.Unmarshal(w.Options, &options) != nil {
		options = nil
	}
	if len(w.Renderings) > 0 && json.Unmarshal(w.Renderings, &renderings) != nil {
		renderings = nil
	}
	*s = Score{
		ID: w.ID, ScoreURL: w.ScoreURL, Alias: eitherPlace(w.Publisher.ScoreID, w.ScoreID), Publisher: w.Publisher.Identity.User,
		Status: scoreStatusOf(w.Status), CreatedAt: w.CreatedAt.Time, UpdatedAt: w.UpdatedAt.Time,
		TransposeAbsent: options == nil, RenderingsAbsent: renderings == nil,
		Raw: append(json.RawMessage(nil), b...),
	}
	if options != nil && options.Transpose != nil {
		s.Transpose = *options.Transpose
	}
	if renderings != nil {
		s.Renderings = *renderings
	}
	return nil
}

// Summary reports whether the score, as a listing gave it, lacks what a reader of the
// whole score needs: options (so transpose is unknown), or the renderings of a score
// that has rendered (so its page count is unknown). A reader that needs them reads
// the score with GetScore, once (the reading table's rule on partial
// representations). Before rendering has finished a score has no renderings, and
// their absence says nothing new.
func (s *Score) Summary() bool {
	return s.TransposeAbsent || s.RenderingsAbsent && s.Status == ScoreStatusIdle
}

// whole marks a score as the whole score (GetScore's answer): what it lacks is its
// zero value (rule 1), not unknown.
func (s *Score) whole() *Score {
	s.TransposeAbsent, s.RenderingsAbsent = false, false
	return s
}

// eitherPlace reads a member that the contract puts in one place and the
// specification's words allow in another (the reading table's rule 12): the value at
// the contract's place, else the one at the specification's, else the zero value. Every
// member of its kind is read through it, so that a platform that took the
// specification's place is read like the contract's.
func eitherPlace[T comparable](contract, specification T) T {
	var zero T
	if contract != zero {
		return contract
	}
	return specification
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

// PlatformUser is the platform account the client publishes as (the password
// grant's user name, which the platform reports as a score's publisher), or "" when
// none is configured.
func (c *Client) PlatformUser() string { return c.cfg.Username }

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
	if !NamesByUUID(idOrAlias) && out.Alias == "" {
		// Found by its alias (no alias parses as a UUID, contract §C): the answer
		// proves the alias even where it does not give it.
		out.Alias = idOrAlias
	}
	return out.whole(), nil
}

// Final reports whether the score as read is at a final status with all a reader of
// its rendering needs: an error, or idle with its renderings (a platform that renders
// as it publishes answers the publish so). A rendering wait for it would read nothing
// new.
func (s *Score) Final() bool {
	return s.Status == ScoreStatusError || s.Status == ScoreStatusIdle && !s.RenderingsAbsent
}

// NamesByUUID reports whether s is a UUID in a spelling the platform takes for one (contract
// §C: no alias is), and so names a score by its id, not by an alias.
func NamesByUUID(s string) bool {
	_, err := uuid.Parse(s)
	return err == nil
}

// WholeScore returns s, a score as a listing gave it, when it is whole, else the
// score read with GetScore: a listing may give each score as a summary (Summary), and
// then each reader that needs what it lacks reads it once. On a platform that lists
// whole scores it costs nothing.
func (c *Client) WholeScore(ctx context.Context, s *Score) (*Score, error) {
	if !s.Summary() {
		return s, nil
	}
	return c.GetScore(ctx, s.ID)
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
	q, body, criteria := scoreQueryParams(in.Criteria, in.Offset, in.Limit)
	var out []*Score
	req := &request{method: http.MethodGet, url: base + "/scores", query: q, auth: authPlatform, wrapper: "scores"}
	if c.getBodyShown() {
		req.body = body
	}
	if err := c.withCriteria(ctx, req, criteria, body, &out); err != nil {
		return nil, c.addressError(c.publishingSetting(), base, "/scores", err)
	}
	if form, _ := c.criteria.form(); req.body == nil && form != criteriaBody && len(body) > 0 && ignoredQuery(in, out) {
		// The platform showed that it reads the parameters from a body only (contract
		// §V2): from now on they travel in one too, and this page is read again.
		c.showGetBody(ctx, "a list answered more scores than its limit, or scores its criteria exclude")
		req.body, out = body, nil
		if err := c.withCriteria(ctx, req, criteria, body, &out); err != nil {
			return nil, c.addressError(c.publishingSetting(), base, "/scores", err)
		}
	}
	return out, nil
}

// ignoredQuery reports whether a page shows that the platform ignored the query
// string: more scores than the limit asked for, or a score its criteria exclude (an
// address in another spelling of the criterion's is not excluded: EquivalentURLs).
func ignoredQuery(in ListScoresInput, page []*Score) bool {
	if in.Limit > 0 && len(page) > in.Limit {
		return true
	}
	for _, s := range page {
		if (in.Criteria.Status != "" && s.Status != "" && s.Status != in.Criteria.Status) ||
			(in.Criteria.ScoreURL != "" && s.ScoreURL != "" && !EquivalentURLs(s.ScoreURL, in.Criteria.ScoreURL)) ||
			(in.Criteria.Alias != "" && s.Alias != in.Criteria.Alias) {
			return true
		}
	}
	return false
}

// getBodyShown reports whether the platform has shown that it ignores the query
// string of a GET (contract §V1, as amended): only then does a GET carry its
// parameters in a JSON body as well, since a CDN in front of a platform may refuse any
// GET with a body (AWS CloudFront answers 403) (rule "a request carries nothing the
// platform did not ask for"). It holds for the rest of the process.
func (c *Client) getBodyShown() bool {
	return c.fallbacks.shown(getBodyFallback)
}

// showGetBody records that the platform ignores the query string of a GET, and says
// so once at WARN.
func (c *Client) showGetBody(ctx context.Context, why string) {
	c.warnFallback(ctx, getBodyFallback, "the platform ignores the query string of GET /scores ("+why+
		"); its parameters travel in a JSON body too from now on", nil)
}

// getBodyFallback is the kind of the GET body in Client.fallbacks.
const getBodyFallback = "get-body"

// scoreQueryParams are the parameters of a list or count call: offset and limit in
// the query string, all of them as a JSON body, and the criteria, which withCriteria
// adds to the query in the form the platform takes: a platform may read them from
// either only (contract §V1, §V2), and the contract's platform lets the body win when
// both carry them. A zero offset or limit is left out (the platform's default).
func scoreQueryParams(criteria ScoreCriteria, offset, limit int) (url.Values, map[string]any, map[string]string) {
	q, body := url.Values{}, map[string]any{}
	if offset > 0 {
		q.Set("offset", strconv.Itoa(offset))
		body["offset"] = offset
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
		body["limit"] = limit
	}
	doc := criteria.document()
	if len(doc) > 0 {
		body["score"] = doc
	}
	return q, body, doc
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

// scoreStatusOf is a status as the platform wrote it, read by its meaning: one of the
// contract's four names in any case (rule 20), or a word other platforms give the same
// stage of a job (statusSynonyms); any other word is kept as written, a status the
// provider does not know.
func scoreStatusOf(v string) string {
	if known := namedValue(v, ScoreStatusPending, ScoreStatusRendering, ScoreStatusIdle, ScoreStatusError); KnownScoreStatus(known) {
		return known
	}
	if meaning, ok := statusSynonyms[strings.ToLower(strings.TrimSpace(v))]; ok {
		return meaning
	}
	return v
}

// statusSynonyms are the words platforms give the four stages of a rendering job: the
// specification names only pending ("Other states and all transitions: not shown"),
// so the other stages' names are those of the media and job services in the field —
// Mux Video's assets (preparing, ready, errored), AWS Elemental MediaConvert's jobs
// (SUBMITTED, PROGRESSING, COMPLETE, CANCELED, ERROR), Azure Media Services' jobs
// (Queued, Scheduled, Processing, Finished, Canceled), GitHub's check runs (queued,
// in_progress, completed). A list, since a word's meaning cannot be derived from it;
// found by the second hunt (muxStatuses).
var statusSynonyms = map[string]string{
	"queued": ScoreStatusPending, "submitted": ScoreStatusPending, "scheduled": ScoreStatusPending,
	"waiting": ScoreStatusPending, "created": ScoreStatusPending, "new": ScoreStatusPending,
	"preparing": ScoreStatusRendering, "processing": ScoreStatusRendering, "progressing": ScoreStatusRendering,
	"in_progress": ScoreStatusRendering, "running": ScoreStatusRendering,
	"ready": ScoreStatusIdle, "complete": ScoreStatusIdle, "completed": ScoreStatusIdle, "finished": ScoreStatusIdle,
	"done": ScoreStatusIdle, "succeeded": ScoreStatusIdle, "available": ScoreStatusIdle, "rendered": ScoreStatusIdle,
	"errored": ScoreStatusError, "failed": ScoreStatusError, "failure": ScoreStatusError, "canceled": ScoreStatusError,
	"cancelled": ScoreStatusError,
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
