package emulator

// Section C of the contract: the score publishing API under publishing_url, and the
// viewer pages of score views on the listener root.
//
// Decisions the contract leaves open, taken here:
//   - Parameters are leaves named as in the contract ("scoreUrl", "options.transpose",
//     "settings.pages"). In a JSON body they nest ({"options": {"transpose": true}}); in
//     the query string they travel either dotted (options.transpose=true) or as their
//     container in JSON text (options={"transpose":true}, score={"status":"idle"}).
//     The body wins leaf by leaf. A JSON null in the body counts as absent.
//   - Body values must have their JSON type (a string "10" is not an integer); query
//     values are parsed: booleans are exactly true or false, integers are decimal.
//   - Criteria: "scoreId" matches publisher.scoreId; every other key is compared with
//     the score's top-level field of that name (objects match when every key given
//     matches, so {"options": {"transpose": true}} works). A key no score has, or a
//     value of another type, matches nothing; it is not an error.
//   - The count endpoint validates offset and limit as GET /scores does (offset ≥ 0,
//     limit 1–100), except that an absent limit counts without bound.
//   - An alias may not be a UUID in any form uuid.Parse takes (hyphenated, or 32
//     hexadecimal digits); /scores/{id} takes the same forms.
//   - The creation response always shows status pending, even with no render delay.
//   - An absent settings.pages is reported as "" (all pages); a sent empty string is 400.
//   - An expired view answers 410 with a problem body coded publishing/NOT_FOUND: the
//     contract's NAME table has no code for "gone", and the object no longer exists.
//   - settings.lang must parse with golang.org/x/text/language (well-formed, known
//     subtags, hyphens only) and is echoed as sent, not canonicalised.
//   - For /scores/{id} and its view, an unknown score (404) is reported before bad
//     parameters (400). purge is validated and otherwise has no visible effect.
//   - GET and POST /scores/count are the count; a score aliased "count" is reached
//     there by its UUID only (DELETE /scores/count and POST /scores/count/view work).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"golang.org/x/text/language"
)

const (
	scoreNamespace = "publishing"

	// Status values of a score (contract C).
	scoreStatusPending   = "pending"
	scoreStatusRendering = "rendering"
	scoreStatusIdle      = "idle"
	scoreStatusError     = "error"

	maxScoreAliasLength   = 128
	defaultScoreListLimit = 50
	maxScoreListLimit     = 100
	// maxRenderedPages bounds the page count the emulator invents for a rendering.
	maxRenderedPages = 12

	defaultViewExpiry = 7200 // seconds (real: views last 2 h by default)
	maxViewExpiry     = 86400
	maxLicenseLength  = 1024
	defaultViewLang   = "en"
)

// scoreRecord is a published score. It does not change after creation: its status is
// computed from the clock.
type scoreRecord struct {
	id        string
	scoreURL  string
	alias     string
	user      string
	transpose bool
	createdAt time.Time
	// fails is set when the scoreUrl host ends in .invalid: rendering ends in error.
	fails bool
	// pages is the page count of the rendering once idle.
	pages int
}

// viewRecord is a view of a score, served as a page at /viewer/{id}.
type viewRecord struct {
	id          string
	scoreID     string
	createdAt   time.Time
	expiresAt   time.Time
	printable   bool
	pages       string
	license     string
	lang        string
	scoreURL    string
	renderPages int
}

type scoreState struct {
	mu sync.Mutex
	// now is the clock; nil means time.Now. Tests in this package replace it before
	// serving any request.
	now     func() time.Time
	scores  map[string]*scoreRecord // by id
	aliases map[string]string       // alias → id
	views   map[string]*viewRecord  // by view id
}

func (s *scoreState) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scores = map[string]*scoreRecord{}
	s.aliases = map[string]string{}
	s.views = map[string]*viewRecord{}
}

// count is the number of existing scores.
func (s *scoreState) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.scores)
}

func (s *scoreState) clock() time.Time {
	if s.now != nil {
		return s.now()
	}
	return time.Now()
}

// lookupLocked finds a score by UUID (in any form uuid.Parse takes) or alias; s.mu
// must be held. No alias parses as a UUID, so the two never clash.
func (s *scoreState) lookupLocked(idOrAlias string) *scoreRecord {
	if id, err := uuid.Parse(idOrAlias); err == nil {
		return s.scores[id.String()]
	}
	if id, ok := s.aliases[idOrAlias]; ok {
		return s.scores[id]
	}
	return nil
}

// progress is the status of the score at now and the time it was entered: pending
// for one delay, rendering for another, then idle or error.
func (rec *scoreRecord) progress(now time.Time, delay time.Duration) (status string, since time.Time) {
	switch rendering, done := rec.createdAt.Add(delay), rec.createdAt.Add(2*delay); {
	case now.Before(rendering):
		return scoreStatusPending, rec.createdAt
	case now.Before(done):
		return scoreStatusRendering, rendering
	case rec.fails:
		return scoreStatusError, done
	default:
		return scoreStatusIdle, done
	}
}

type scoreJSON struct {
	ID         string          `json:"id"`
	ScoreURL   string          `json:"scoreUrl"`
	Publisher  publisherJSON   `json:"publisher"`
	Options    scoreOptions    `json:"options"`
	Status     string          `json:"status"`
	CreatedAt  string          `json:"createdAt"`
	UpdatedAt  string          `json:"updatedAt"`
	Renderings []renderingJSON `json:"renderings"`
}

type publisherJSON struct {
	ScoreID  string       `json:"scoreId,omitempty"`
	Identity identityJSON `json:"identity"`
}

type identityJSON struct {
	User string `json:"user"`
}

type scoreOptions struct {
	Transpose bool `json:"transpose"`
}

type renderingJSON struct {
	Format string `json:"format"`
	Pages  int    `json:"pages"`
}

// toJSON renders the score in the given status, entered at since.
func (rec *scoreRecord) toJSON(status string, since time.Time) scoreJSON {
	out := scoreJSON{
		ID:         rec.id,
		ScoreURL:   rec.scoreURL,
		Publisher:  publisherJSON{ScoreID: rec.alias, Identity: identityJSON{User: rec.user}},
		Options:    scoreOptions{Transpose: rec.transpose},
		Status:     status,
		CreatedAt:  formatTime(rec.createdAt),
		UpdatedAt:  formatTime(since),
		Renderings: []renderingJSON{},
	}
	if status == scoreStatusIdle {
		out.Renderings = append(out.Renderings, renderingJSON{Format: "svg", Pages: rec.pages})
	}
	return out
}

// scoreAt renders the score as it is at now.
func (e *Emulator) scoreAt(rec *scoreRecord, now time.Time) scoreJSON {
	return rec.toJSON(rec.progress(now, e.opts.RenderDelay))
}

// Score reports the current status of the score with that UUID or alias, and whether
// it exists. Tests of other packages use it to watch a score without a token.
func (e *Emulator) Score(idOrAlias string) (status string, ok bool) {
	e.scores.mu.Lock()
	rec := e.scores.lookupLocked(idOrAlias)
	now := e.scores.clock()
	e.scores.mu.Unlock()
	if rec == nil {
		return "", false
	}
	status, _ = rec.progress(now, e.opts.RenderDelay)
	return status, true
}

func (e *Emulator) routeScores() {
	p := e.publishingPath
	e.handle("POST "+p+"/scores", e.withUser(e.handlePublishScore))
	e.handle("GET "+p+"/scores", e.withUser(e.handleListScores))
	// The literal count patterns are more specific than /scores/{id}, so the mux
	// prefers them for GET and POST.
	e.handle("POST "+p+"/scores/count", e.withUser(e.handleCountScores))
	e.handle("GET "+p+"/scores/count", e.withUser(e.handleCountScores))
	e.handle("GET "+p+"/scores/{id}", e.withUser(e.handleGetScore))
	e.handle("DELETE "+p+"/scores/{id}", e.withUser(e.handleDeleteScore))
	e.handle("POST "+p+"/scores/{id}/view", e.withUser(e.handleCreateView))
	e.handle("GET "+p+"/core/health", e.withUser(e.handleHealth))
	e.handle("GET /viewer/{viewId}", e.handleViewer)
}

// POST /scores

func (e *Emulator) handlePublishScore(w http.ResponseWriter, r *http.Request, u *User) {
	params, ok := readScoreParams(w, r)
	if !ok {
		return
	}
	scoreURL, found, bad := params.str("scoreUrl")
	if bad == nil && !found {
		bad = &badParam{"scoreUrl", "scoreUrl is required"}
	}
	if bad != nil {
		badArgument(w, scoreNamespace, bad.field, bad.message)
		return
	}
	host, ok := scoreURLHost(scoreURL)
	if !ok {
		badArgument(w, scoreNamespace, "scoreUrl", fmt.Sprintf("scoreUrl must be an absolute http or https URL with a host, "+
			"at most %d characters, with characters outside RFC 3986 percent-encoded", maxScoreURLLength))
		return
	}
	alias, hasAlias, bad := params.str("scoreId")
	if bad == nil && hasAlias {
		bad = checkScoreAlias(alias)
	}
	if bad != nil {
		badArgument(w, scoreNamespace, bad.field, bad.message)
		return
	}
	transpose, bad := params.boolean("options.transpose")
	if bad != nil {
		badArgument(w, scoreNamespace, bad.field, bad.message)
		return
	}

	s := &e.scores
	s.mu.Lock()
	if hasAlias {
		if _, taken := s.aliases[alias]; taken {
			s.mu.Unlock()
			writeProblem(w, http.StatusConflict, scoreNamespace, "CONFLICT",
				fmt.Sprintf("score alias '%s' is already in use", alias), map[string]any{"scoreId": alias})
			return
		}
	}
	rec := &scoreRecord{
		id:        uuid.NewString(),
		scoreURL:  scoreURL,
		alias:     alias,
		user:      u.Name,
		transpose: transpose,
		// Stored at the precision it is shown with, so that the order by createdAt
		// then id holds for what clients see.
		createdAt: s.clock().UTC().Truncate(time.Millisecond),
		fails:     strings.HasSuffix(host, ".invalid"),
		pages:     renderedPages(scoreURL),
	}
	s.scores[rec.id] = rec
	if hasAlias {
		s.aliases[alias] = rec.id
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"score": rec.toJSON(scoreStatusPending, rec.createdAt)})
}

// scoreURLHost returns the lower-cased host name of an absolute http(s) URL.
func scoreURLHost(raw string) (string, bool) {
	if len(raw) > maxScoreURLLength || !onlyURICharacters(raw) {
		return "", false
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Opaque != "" {
		return "", false
	}
	if scheme := strings.ToLower(u.Scheme); scheme != "http" && scheme != "https" {
		return "", false
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	return host, host != ""
}

// maxScoreURLLength is the longest scoreUrl the contract accepts.
const maxScoreURLLength = 2048

// onlyURICharacters reports whether s holds only characters RFC 3986 allows in a
// URI (unreserved, reserved, and % followed by two hexadecimal digits): a raw space
// or a non-ASCII letter must arrive percent-encoded.
func onlyURICharacters(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("-._~:/?#[]@!$&'()*+,;=", c) >= 0:
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 2
		default:
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

var scoreAliasPattern = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

func checkScoreAlias(alias string) *badParam {
	switch {
	case len(alias) < 1 || len(alias) > maxScoreAliasLength || !scoreAliasPattern.MatchString(alias):
		return &badParam{"scoreId", fmt.Sprintf("scoreId must be 1 to %d characters of A-Z, a-z, 0-9, '.', '_' and '-'", maxScoreAliasLength)}
	case alias == "." || alias == "..":
		// They are path segments with a meaning of their own in /scores/{id}.
		return &badParam{"scoreId", "scoreId must not be '.' or '..'"}
	case parsesAsUUID(alias):
		// It would be ambiguous in /scores/{id}.
		return &badParam{"scoreId", "scoreId must not be a UUID"}
	}
	return nil
}

// parsesAsUUID reports whether s parses as a UUID; within the alias alphabet that is the
// hyphenated form and 32 hexadecimal digits.
func parsesAsUUID(s string) bool {
	_, err := uuid.Parse(s)
	return err == nil
}

// renderedPages derives a page count of 1 to maxRenderedPages from the score URL, so
// that the same file always renders to the same number of pages.
func renderedPages(scoreURL string) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(scoreURL))
	return int(h.Sum32()%maxRenderedPages) + 1
}

// GET /scores, POST and GET /scores/count

// scoreQuery is the criteria and window of a list or count request.
type scoreQuery struct {
	criteria map[string]any
	offset   int
	limit    int // 0: no limit (count only)
}

// readScoreQuery reads score, offset and limit. A list has a default limit; a count
// has none unless one is sent.
func readScoreQuery(params *scoreParams, list bool) (scoreQuery, *badParam) {
	q := scoreQuery{}
	criteria, _, bad := params.object("score")
	if bad != nil {
		return q, bad
	}
	q.criteria = criteria
	offset, found, bad := params.integer("offset")
	if bad != nil {
		return q, bad
	}
	if found && offset < 0 {
		return q, &badParam{"offset", "offset must be an integer of 0 or more"}
	}
	q.offset = int(offset)
	limit, found, bad := params.integer("limit")
	if bad != nil {
		return q, bad
	}
	switch {
	case found && (limit < 1 || limit > maxScoreListLimit):
		return q, &badParam{"limit", fmt.Sprintf("limit must be an integer from 1 to %d", maxScoreListLimit)}
	case found:
		q.limit = int(limit)
	case list:
		q.limit = defaultScoreListLimit
	}
	return q, nil
}

// matching returns the scores meeting the criteria, as they are now, ordered by
// createdAt then id.
func (e *Emulator) matching(criteria map[string]any) []scoreJSON {
	e.scores.mu.Lock()
	recs := make([]*scoreRecord, 0, len(e.scores.scores))
	for _, rec := range e.scores.scores {
		recs = append(recs, rec)
	}
	now := e.scores.clock()
	e.scores.mu.Unlock()
	slices.SortFunc(recs, func(a, b *scoreRecord) int {
		if c := a.createdAt.Compare(b.createdAt); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	out := make([]scoreJSON, 0, len(recs))
	for _, rec := range recs {
		score := e.scoreAt(rec, now)
		if scoreMatches(score, criteria) {
			out = append(out, score)
		}
	}
	return out
}

// window cuts the [offset, offset+limit) slice out of n items.
func (q scoreQuery) window(n int) (from, to int) {
	from = min(q.offset, n)
	to = n
	if q.limit > 0 {
		to = min(n, from+q.limit)
	}
	return from, to
}

func (e *Emulator) handleListScores(w http.ResponseWriter, r *http.Request, _ *User) {
	params, ok := readScoreParams(w, r)
	if !ok {
		return
	}
	q, bad := readScoreQuery(params, true)
	if bad != nil {
		badArgument(w, scoreNamespace, bad.field, bad.message)
		return
	}
	scores := e.matching(q.criteria)
	from, to := q.window(len(scores))
	writeJSON(w, http.StatusOK, map[string]any{"scores": scores[from:to]})
}

func (e *Emulator) handleCountScores(w http.ResponseWriter, r *http.Request, _ *User) {
	params, ok := readScoreParams(w, r)
	if !ok {
		return
	}
	q, bad := readScoreQuery(params, false)
	if bad != nil {
		badArgument(w, scoreNamespace, bad.field, bad.message)
		return
	}
	from, to := q.window(len(e.matching(q.criteria)))
	writeJSON(w, http.StatusOK, map[string]any{"count": to - from})
}

// scoreMatches applies the criteria to the score's JSON form: "scoreId" is
// publisher.scoreId, every other key the top-level field of that name.
func scoreMatches(score scoreJSON, criteria map[string]any) bool {
	if len(criteria) == 0 {
		return true
	}
	var fields map[string]any
	body, _ := json.Marshal(score)
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&fields) != nil {
		return false
	}
	for key, want := range criteria {
		have, ok := fields[key]
		if key == "scoreId" {
			have, ok = score.Publisher.ScoreID, score.Publisher.ScoreID != ""
		}
		if !ok || !criteriaValueMatches(have, want) {
			return false
		}
	}
	return true
}

// criteriaValueMatches reports whether have meets want: objects match when every key of want
// matches; anything else by equality of the JSON text.
func criteriaValueMatches(have, want any) bool {
	if wantObj, ok := want.(map[string]any); ok {
		haveObj, ok := have.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range wantObj {
			h, ok := haveObj[k]
			if !ok || !criteriaValueMatches(h, v) {
				return false
			}
		}
		return true
	}
	a, errA := json.Marshal(have)
	b, errB := json.Marshal(want)
	return errA == nil && errB == nil && bytes.Equal(a, b)
}

// GET and DELETE /scores/{id}

func scoreNotFound(w http.ResponseWriter, id string) {
	writeProblem(w, http.StatusNotFound, scoreNamespace, "NOT_FOUND",
		fmt.Sprintf("score '%s' does not exist", id), map[string]any{"id": id})
}

func (e *Emulator) handleGetScore(w http.ResponseWriter, r *http.Request, _ *User) {
	id := r.PathValue("id")
	e.scores.mu.Lock()
	rec := e.scores.lookupLocked(id)
	now := e.scores.clock()
	e.scores.mu.Unlock()
	if rec == nil {
		scoreNotFound(w, id)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"score": e.scoreAt(rec, now)})
}

func (e *Emulator) handleDeleteScore(w http.ResponseWriter, r *http.Request, _ *User) {
	id := r.PathValue("id")
	params, ok := readScoreParams(w, r)
	if !ok {
		return
	}
	s := &e.scores
	s.mu.Lock()
	rec := s.lookupLocked(id)
	if rec == nil {
		s.mu.Unlock()
		scoreNotFound(w, id)
		return
	}
	// purge only says whether rendered assets go too; the emulator keeps none.
	if _, bad := params.boolean("purge"); bad != nil {
		s.mu.Unlock()
		badArgument(w, scoreNamespace, bad.field, bad.message)
		return
	}
	delete(s.scores, rec.id)
	if rec.alias != "" {
		delete(s.aliases, rec.alias)
	}
	// The score's views go with it: their pages answer 404 from now on.
	for vid, v := range s.views {
		if v.scoreID == rec.id {
			delete(s.views, vid)
		}
	}
	s.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// POST /scores/{id}/view

type viewJSON struct {
	ID        string       `json:"id"`
	ScoreID   string       `json:"scoreId"`
	ViewerURL string       `json:"viewerUrl"`
	CreatedAt string       `json:"createdAt"`
	ExpiresAt string       `json:"expiresAt"`
	Settings  viewSettings `json:"settings"`
}

type viewSettings struct {
	Printable     bool   `json:"printable"`
	Pages         string `json:"pages"`
	LicenseString string `json:"licenseString"`
	Lang          string `json:"lang"`
}

// readViewSettings validates the parameters of a view in the contract's order.
func readViewSettings(params *scoreParams) (viewSettings, int64, *badParam) {
	settings := viewSettings{Lang: defaultViewLang}
	var bad *badParam
	if settings.Printable, bad = params.boolean("settings.printable"); bad != nil {
		return settings, 0, bad
	}
	pages, found, bad := params.str("settings.pages")
	if bad != nil {
		return settings, 0, bad
	}
	if found && !validViewPages(pages) {
		return settings, 0, &badParam{"settings.pages", "settings.pages must be comma-separated page numbers and ranges of pages from 1, such as 1-3,5,8-9"}
	}
	settings.Pages = pages
	if settings.LicenseString, _, bad = params.str("settings.licenseString"); bad != nil {
		return settings, 0, bad
	}
	if utf8.RuneCountInString(settings.LicenseString) > maxLicenseLength {
		return settings, 0, &badParam{"settings.licenseString", fmt.Sprintf("settings.licenseString must be at most %d characters", maxLicenseLength)}
	}
	lang, found, bad := params.str("settings.lang")
	if bad != nil {
		return settings, 0, bad
	}
	if found {
		if !validViewLang(lang) {
			return settings, 0, &badParam{"settings.lang", "settings.lang must be a BCP 47 language tag, such as en or de-CH"}
		}
		settings.Lang = lang
	}
	expiresIn, _, bad := params.integer("expiresIn")
	if bad != nil {
		return settings, 0, bad
	}
	if expiresIn < 0 || expiresIn > maxViewExpiry {
		return settings, 0, &badParam{"expiresIn", fmt.Sprintf("expiresIn must be an integer number of seconds from 0 to %d", maxViewExpiry)}
	}
	if expiresIn == 0 {
		expiresIn = defaultViewExpiry
	}
	return settings, expiresIn, nil
}

// validViewPages accepts comma-separated page numbers and ranges (1-3,5,8-9): pages
// from 1, range start ≤ end, no blanks.
func validViewPages(s string) bool {
	if s == "" {
		return false
	}
	for item := range strings.SplitSeq(s, ",") {
		first, last, isRange := strings.Cut(item, "-")
		from, ok := viewPageNumber(first)
		if !ok {
			return false
		}
		if isRange {
			to, ok := viewPageNumber(last)
			if !ok || to < from {
				return false
			}
		}
	}
	return true
}

func viewPageNumber(s string) (int, bool) {
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 1
}

// validViewLang accepts a well-formed BCP 47 tag with known subtags. The parser
// also takes '_' as a separator, which BCP 47 does not.
func validViewLang(s string) bool {
	if s == "" || strings.ContainsAny(s, "_ ") {
		return false
	}
	_, err := language.Parse(s)
	return err == nil
}

func (e *Emulator) handleCreateView(w http.ResponseWriter, r *http.Request, _ *User) {
	id := r.PathValue("id")
	params, ok := readScoreParams(w, r)
	if !ok {
		return
	}
	s := &e.scores
	s.mu.Lock()
	rec := s.lookupLocked(id)
	s.mu.Unlock()
	if rec == nil {
		scoreNotFound(w, id)
		return
	}
	settings, expiresIn, bad := readViewSettings(params)
	if bad != nil {
		badArgument(w, scoreNamespace, bad.field, bad.message)
		return
	}
	s.mu.Lock()
	if s.scores[rec.id] == nil { // deleted meanwhile
		s.mu.Unlock()
		scoreNotFound(w, id)
		return
	}
	now := s.clock().UTC().Truncate(time.Millisecond)
	view := &viewRecord{
		id:          uuid.NewString(),
		scoreID:     rec.id,
		createdAt:   now,
		expiresAt:   now.Add(time.Duration(expiresIn) * time.Second),
		printable:   settings.Printable,
		pages:       settings.Pages,
		license:     settings.LicenseString,
		lang:        settings.Lang,
		scoreURL:    rec.scoreURL,
		renderPages: rec.pages,
	}
	s.views[view.id] = view
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"view": viewJSON{
		ID:        view.id,
		ScoreID:   view.scoreID,
		ViewerURL: baseURL(r) + "/viewer/" + view.id,
		CreatedAt: formatTime(view.createdAt),
		ExpiresAt: formatTime(view.expiresAt),
		Settings:  settings,
	}})
}

// GET /viewer/{viewId} (no authentication)

var viewerPageTemplate = template.Must(template.New("viewer").Parse(`<!DOCTYPE html>
<html lang="{{.Lang}}">
<head><meta charset="utf-8"><title>Score viewer</title></head>
<body>
<main data-view-id="{{.ID}}" data-score-id="{{.ScoreID}}">
<h1>Score viewer</h1>
<p>Score: <a href="{{.ScoreURL}}">{{.ScoreURL}}</a></p>
<p>Pages: {{if .Pages}}{{.Pages}}{{else}}all{{end}} of {{.RenderPages}}</p>
<p>Printable: {{.Printable}}</p>
{{if .License}}<p class="license">{{.License}}</p>{{end}}
<p>Expires: {{.ExpiresAt}}</p>
</main>
</body>
</html>
`))

func (e *Emulator) handleViewer(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("viewId")
	s := &e.scores
	s.mu.Lock()
	view, ok := s.views[id]
	var v viewRecord
	if ok {
		v = *view
	}
	now := s.clock()
	s.mu.Unlock()
	if !ok {
		writeProblem(w, http.StatusNotFound, scoreNamespace, "NOT_FOUND",
			fmt.Sprintf("view '%s' does not exist", id), map[string]any{"id": id})
		return
	}
	if !now.Before(v.expiresAt) {
		writeProblem(w, http.StatusGone, scoreNamespace, "NOT_FOUND",
			fmt.Sprintf("view '%s' expired at %s", id, formatTime(v.expiresAt)),
			map[string]any{"id": id, "expiresAt": formatTime(v.expiresAt)})
		return
	}
	var page bytes.Buffer
	err := viewerPageTemplate.Execute(&page, map[string]any{
		"ID": v.id, "ScoreID": v.scoreID, "ScoreURL": v.scoreURL, "Lang": v.lang,
		"Pages": v.pages, "RenderPages": v.renderPages, "Printable": v.printable,
		"License": v.license, "ExpiresAt": formatTime(v.expiresAt),
	})
	if err != nil {
		writeProblem(w, http.StatusInternalServerError, scoreNamespace, "INTERNAL_SERVER_ERROR", err.Error(), nil)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(page.Bytes())
}

// GET /core/health

func (e *Emulator) handleHealth(w http.ResponseWriter, _ *http.Request, _ *User) {
	writeJSON(w, http.StatusOK, map[string]any{"service": map[string]any{
		"healthStatus": "ok", "healthVerifier": "default",
	}})
}

// Request parameters: the query string and a JSON body, the body winning leaf by leaf.

// badParam names the parameter that is missing, malformed or out of range.
type badParam struct {
	field   string
	message string
}

type scoreParams struct {
	body  map[string]any // nil without a body
	query url.Values
}

// readScoreParams reads the query string and the optional JSON object body. On failure it
// writes 400 and returns false.
func readScoreParams(w http.ResponseWriter, r *http.Request) (*scoreParams, bool) {
	query, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		badArgument(w, scoreNamespace, "query", "the query string is malformed: "+err.Error())
		return nil, false
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		badArgument(w, scoreNamespace, "body", "the body could not be read")
		return nil, false
	}
	params := &scoreParams{query: query}
	if len(bytes.TrimSpace(raw)) == 0 {
		return params, true
	}
	value, err := decodeParamJSON(raw)
	body, isObject := value.(map[string]any)
	if err != nil || !isObject {
		badArgument(w, scoreNamespace, "body", "the body must be a JSON object")
		return nil, false
	}
	params.body = body
	return params, true
}

// decodeParamJSON decodes one JSON value, keeping numbers exact.
func decodeParamJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing data after the JSON value")
	}
	return v, nil
}

// param is one parameter as found: a JSON value, or the text of a query parameter.
type param struct {
	value  any
	text   string
	isText bool
}

// lookup finds the parameter named by a dotted path: first in the body (nested
// objects), then in the query string, either dotted or in a JSON-text container.
func (p *scoreParams) lookup(path string) (param, bool, *badParam) {
	names := strings.Split(path, ".")
	if v, found, bad := walkParams(p.body, names, ""); bad != nil || found {
		return param{value: v}, found, bad
	}
	if p.query.Has(path) {
		return param{text: p.query.Get(path), isText: true}, true, nil
	}
	// A container sent as JSON text, e.g. settings={"pages":"1-3"}.
	for i := len(names) - 1; i >= 1; i-- {
		container := strings.Join(names[:i], ".")
		if !p.query.Has(container) {
			continue
		}
		value, err := decodeParamJSON([]byte(p.query.Get(container)))
		obj, isObject := value.(map[string]any)
		if err != nil || !isObject {
			return param{}, false, &badParam{container, container + " must be a JSON object"}
		}
		v, found, bad := walkParams(obj, names[i:], container+".")
		return param{value: v}, found, bad
	}
	return param{}, false, nil
}

// walkParams follows names through nested objects. null counts as absent; a container
// that is not an object is an error naming it.
func walkParams(obj map[string]any, names []string, prefix string) (any, bool, *badParam) {
	if obj == nil {
		return nil, false, nil
	}
	v, ok := obj[names[0]]
	if !ok || v == nil {
		return nil, false, nil
	}
	if len(names) == 1 {
		return v, true, nil
	}
	inner, isObject := v.(map[string]any)
	if !isObject {
		return nil, false, &badParam{prefix + names[0], prefix + names[0] + " must be an object"}
	}
	return walkParams(inner, names[1:], prefix+names[0]+".")
}

// str reads an optional string and whether it was sent.
func (p *scoreParams) str(path string) (string, bool, *badParam) {
	v, found, bad := p.lookup(path)
	if bad != nil || !found {
		return "", false, bad
	}
	if v.isText {
		return v.text, true, nil
	}
	s, ok := v.value.(string)
	if !ok {
		return "", false, &badParam{path, path + " must be a string"}
	}
	return s, true, nil
}

// boolean reads an optional boolean; absent reads as false.
func (p *scoreParams) boolean(path string) (bool, *badParam) {
	v, found, bad := p.lookup(path)
	if bad != nil || !found {
		return false, bad
	}
	if v.isText {
		switch v.text {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
	} else if b, ok := v.value.(bool); ok {
		return b, nil
	}
	return false, &badParam{path, path + " must be a boolean"}
}

// integer reads an optional decimal integer and whether it was sent.
func (p *scoreParams) integer(path string) (int64, bool, *badParam) {
	v, found, bad := p.lookup(path)
	if bad != nil || !found {
		return 0, false, bad
	}
	text := v.text
	if !v.isText {
		n, ok := v.value.(json.Number)
		if !ok {
			return 0, false, &badParam{path, path + " must be an integer"}
		}
		text = n.String()
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return 0, false, &badParam{path, path + " must be an integer"}
	}
	return n, true, nil
}

// object reads an optional JSON object; in the query string it is JSON text.
func (p *scoreParams) object(path string) (map[string]any, bool, *badParam) {
	v, found, bad := p.lookup(path)
	if bad != nil || !found {
		return nil, false, bad
	}
	value := v.value
	if v.isText {
		var err error
		if value, err = decodeParamJSON([]byte(v.text)); err != nil {
			value = nil
		}
	}
	obj, ok := value.(map[string]any)
	if !ok {
		return nil, false, &badParam{path, path + " must be a JSON object"}
	}
	return obj, true, nil
}
