package emulator

// Section C of the contract: the score publishing API under publishing_url (the
// views and their viewer pages are in views.go, the reading of parameters in
// params.go).
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
	"fmt"
	"hash/fnv"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
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

type scoreState struct {
	mu sync.Mutex
	// now is the platform's clock (Options.PlatformClock); nil means time.Now. Tests in
	// this package also replace it before serving any request.
	now     func() time.Time
	scores  map[string]*scoreRecord // by id
	aliases map[string]string       // alias → id
	views   map[string]*viewRecord  // by view id
	// removed are the ids (in canonical form) and aliases of deleted scores: their
	// tombstones, answered 410 under the reading goneScores.
	removed map[string]struct{}
	// lagged counts the reads that Faults.LaggingReadsMs or Faults.IndexRefreshMs
	// answered without a score the platform holds: a 404, or a score left out of a
	// list or count.
	lagged int
}

func (s *scoreState) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scores = map[string]*scoreRecord{}
	s.aliases = map[string]string{}
	s.views = map[string]*viewRecord{}
	s.removed = map[string]struct{}{}
	s.lagged = 0
}

// count is the number of existing scores.
func (s *scoreState) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.scores)
}

// viewCount is the number of existing views (a view goes with its score).
func (s *scoreState) viewCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.views)
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
	return rec.toJSON(rec.progress(now, e.renderDelay()))
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
	status, _ = rec.progress(now, e.renderDelay())
	return status, true
}

// readLag is how long after a score's creation the score API's reads do not see it
// (Faults.LaggingReadsMs; zero: they see it at once).
func (e *Emulator) readLag() time.Duration {
	return time.Duration(e.faults.get().LaggingReadsMs) * time.Millisecond
}

// hiddenLocked reports whether a read at now does not see rec yet, a replica lagging
// lag behind the writes, and counts the read if so; s.mu must be held.
func (s *scoreState) hiddenLocked(rec *scoreRecord, now time.Time, lag time.Duration) bool {
	if lag <= 0 || !now.Before(rec.createdAt.Add(lag)) {
		return false
	}
	s.lagged++
	return true
}

// indexedLocked reports whether the list and the count see rec at now: under
// Faults.IndexRefreshMs only a score created no later than the index's last refresh
// (the last whole multiple of the period) is in it; a read that misses it is counted
// as a lagged one. s.mu must be held.
func (s *scoreState) indexedLocked(rec *scoreRecord, now time.Time, period time.Duration) bool {
	if period <= 0 || !rec.createdAt.After(now.Truncate(period)) {
		return true
	}
	s.lagged++
	return false
}

// LaggedReads is the number of reads that Faults.LaggingReadsMs or IndexRefreshMs
// answered without a score the platform holds (a 404, or a score left out of a list or
// count) since start or the last reset.
func (e *Emulator) LaggedReads() int {
	e.scores.mu.Lock()
	defer e.scores.mu.Unlock()
	return e.scores.lagged
}

// ScoreBackup is a copy of the platform's scores, to restore later (RestoreScores).
type ScoreBackup struct {
	scores []scoreRecord
}

// BackupScores copies the platform's scores as they are now: a backup of the platform.
func (e *Emulator) BackupScores() ScoreBackup {
	s := &e.scores
	s.mu.Lock()
	defer s.mu.Unlock()
	b := ScoreBackup{scores: make([]scoreRecord, 0, len(s.scores))}
	for _, rec := range s.scores {
		b.scores = append(b.scores, *rec)
	}
	return b
}

// RestoreScores puts the platform's scores back as b holds them, as a restore from a
// backup does: scores created since are gone, scores deleted since are back with
// their UUIDs, aliases and creation times, and an alias is held by the score that held
// it in the backup. Views are not in a backup: every view is gone.
func (e *Emulator) RestoreScores(b ScoreBackup) {
	s := &e.scores
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rec := range s.scores {
		s.removeLocked(rec)
	}
	for _, saved := range b.scores {
		rec := saved
		s.scores[rec.id] = &rec
		if rec.alias != "" {
			s.aliases[rec.alias] = rec.id
		}
	}
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
		if _, taken := s.aliases[alias]; taken && e.readings().AliasTakenUnprocessable {
			s.mu.Unlock()
			// A uniqueness validation's answer (Rails, GitHub's "already_exists").
			writeProblem(w, http.StatusUnprocessableEntity, scoreNamespace, "ALREADY_EXISTS",
				fmt.Sprintf("scoreId '%s' has already been taken", alias), map[string]any{"field": "scoreId", "scoreId": alias})
			return
		}
		if _, taken := s.aliases[alias]; taken {
			s.mu.Unlock()
			writeProblem(w, http.StatusConflict, scoreNamespace, "CONFLICT",
				fmt.Sprintf("score alias '%s' is already in use", alias), map[string]any{"scoreId": alias})
			return
		}
	}
	if e.readings().NormalizedScoreURL {
		scoreURL = normalScoreURL(scoreURL)
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
	if e.readings().PublishCreated {
		w.Header().Set("Location", baseURL(r)+e.publishingPath+"/scores/"+rec.id)
		w.WriteHeader(http.StatusCreated)
		return
	}
	var answer any = rec.toJSON(scoreStatusPending, rec.createdAt)
	if e.readings().SynchronousRendering {
		// Rendered as it was published: the answer is the score as it is now, final.
		answer = rec.toJSON(rec.progress(rec.createdAt, 0))
	}
	if e.readings().MinimalPublishAnswer {
		answer = map[string]any{"id": rec.id}
	}
	e.writeWrapped(w, "score", answer)
}

// writeWrapped writes v as {key: v}, or v alone under the BareBodies reading.
func (e *Emulator) writeWrapped(w http.ResponseWriter, key string, v any) {
	if e.readings().BareBodies {
		e.writeScoreAnswer(w, v)
		return
	}
	e.writeScoreAnswer(w, map[string]any{key: v})
}

// writeScoreAnswer writes a 200 answer of the score API; under the reading
// omitEmptyScoreMembers without its members whose value is false, zero, empty or an
// empty list, at any depth (Go's omitempty, protojson without EmitDefaultValues): an
// empty page is {}, a count of 0 is {}.
func (e *Emulator) writeScoreAnswer(w http.ResponseWriter, v any) {
	if readings := e.readings(); readings.OmitEmptyScoreMembers || readings.TopLevelScoreID || readings.MuxStatuses {
		if b, err := json.Marshal(v); err == nil {
			var doc any
			if json.Unmarshal(b, &doc) == nil {
				if readings.TopLevelScoreID {
					doc = topLevelAliases(doc)
				}
				if readings.MuxStatuses {
					doc = muxStatuses(doc)
				}
				if readings.OmitEmptyScoreMembers {
					doc = omitEmptyMembers(doc)
				}
				v = doc
			}
		}
	}
	writeJSON(w, http.StatusOK, v)
}

// topLevelAliases moves, under the reading topLevelScoreId, the alias of every score
// in an answer from publisher.scoreId to a top-level scoreId beside id and status.
func topLevelAliases(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, inner := range v {
			v[k] = topLevelAliases(inner)
		}
		if publisher, ok := v["publisher"].(map[string]any); ok {
			if alias, ok := publisher["scoreId"]; ok {
				delete(publisher, "scoreId")
				v["scoreId"] = alias
			}
		}
	case []any:
		for i := range v {
			v[i] = topLevelAliases(v[i])
		}
	}
	return v
}

// muxStatusNames are the contract's score statuses after pending as the reading
// muxStatuses names them (Mux Video's asset statuses).
var muxStatusNames = map[string]string{
	scoreStatusRendering: "preparing", scoreStatusIdle: "ready", scoreStatusError: "errored",
}

// muxStatuses renames, under the reading muxStatuses, the status of every score in an
// answer (an object with an id and a status).
func muxStatuses(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, inner := range v {
			v[k] = muxStatuses(inner)
		}
		if status, ok := v["status"].(string); ok {
			if _, isScore := v["id"]; isScore {
				if name, ok := muxStatusNames[status]; ok {
					v["status"] = name
				}
			}
		}
	case []any:
		for i := range v {
			v[i] = muxStatuses(v[i])
		}
	}
	return v
}

// muxCriteria reads, under the reading muxStatuses, a status criterion given in its
// names into the contract's.
func (e *Emulator) muxCriteria(criteria map[string]any) {
	if !e.readings().MuxStatuses {
		return
	}
	if status, ok := criteria["status"].(string); ok {
		for contract, name := range muxStatusNames {
			switch status {
			case name:
				criteria["status"] = contract
			case contract:
				criteria["status"] = "(" + contract + ")" // not a name this platform uses
			}
		}
	}
}

// omitEmptyMembers removes, at every depth, the object members whose value is null,
// false, 0, "" or [].
func omitEmptyMembers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, inner := range v {
			switch inner := inner.(type) {
			case nil:
				delete(v, k)
			case bool:
				if !inner {
					delete(v, k)
				}
			case float64:
				if inner == 0 {
					delete(v, k)
				}
			case string:
				if inner == "" {
					delete(v, k)
				}
			case []any:
				if len(inner) == 0 {
					delete(v, k)
				} else {
					v[k] = omitEmptyMembers(inner)
				}
			default:
				v[k] = omitEmptyMembers(inner)
			}
		}
	case []any:
		for i := range v {
			v[i] = omitEmptyMembers(v[i])
		}
	}
	return v
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
// createdAt then id (newest first under the NewestFirst reading, §V9).
func (e *Emulator) matching(criteria map[string]any) []scoreJSON {
	newestFirst, normalizeCriteria := e.readings().NewestFirst, e.readings().NormalizedScoreURL
	lag := e.readLag()
	period := time.Duration(e.faults.get().IndexRefreshMs) * time.Millisecond
	e.scores.mu.Lock()
	recs := make([]*scoreRecord, 0, len(e.scores.scores))
	for _, rec := range e.scores.scores {
		recs = append(recs, rec)
	}
	now := e.scores.clock()
	if lag > 0 || period > 0 {
		recs = slices.DeleteFunc(recs, func(rec *scoreRecord) bool {
			return e.scores.hiddenLocked(rec, now, lag) || !e.scores.indexedLocked(rec, now, period)
		})
	}
	e.scores.mu.Unlock()
	slices.SortFunc(recs, func(a, b *scoreRecord) int {
		c := a.createdAt.Compare(b.createdAt)
		if c == 0 {
			c = strings.Compare(a.id, b.id)
		}
		if newestFirst {
			return -c
		}
		return c
	})
	out := make([]scoreJSON, 0, len(recs))
	for _, rec := range recs {
		score := e.scoreAt(rec, now)
		if scoreMatches(score, criteria, normalizeCriteria) {
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
	if e.cdnRefusesGetBody(w, r) {
		return
	}
	params, ok := e.readQueryParams(w, r)
	if !ok {
		return
	}
	q, bad := readScoreQuery(params, true)
	if bad != nil {
		badArgument(w, scoreNamespace, bad.field, bad.message)
		return
	}
	e.muxCriteria(q.criteria)
	scores := e.matching(q.criteria)
	from, to := q.window(len(scores))
	var page any = scores[from:to]
	if e.readings().SummaryListings {
		page = summaries(scores[from:to])
	}
	if e.readings().BareBodies {
		e.writeScoreAnswer(w, page)
		return
	}
	answer := map[string]any{"scores": page}
	if e.readings().ListEnvelope {
		// Contract §V8: envelope fields beside the list.
		answer["total"], answer["offset"], answer["limit"] = len(scores), q.offset, q.limit
		answer["_links"] = map[string]any{"self": link{Href: baseURL(r) + r.URL.RequestURI()}}
	}
	e.writeScoreAnswer(w, answer)
}

// summaries are the scores as a listing of the reading summaryListings gives them:
// without options and renderings.
func summaries(scores []scoreJSON) []map[string]any {
	out := make([]map[string]any, 0, len(scores))
	for _, score := range scores {
		var doc map[string]any
		if b, err := json.Marshal(score); err == nil && json.Unmarshal(b, &doc) == nil {
			delete(doc, "options")
			delete(doc, "renderings")
			out = append(out, doc)
		}
	}
	return out
}

// normalScoreURL is raw, a scoreUrl the publish accepted, in RFC 3986 normal form as
// the reading normalizedScoreUrl keeps it: scheme and host in lower case, the
// scheme's default port dropped, dot segments removed (§5.2.4), and the hex digits of
// every percent-encoding in upper case.
func normalScoreURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	rest := strings.TrimPrefix(raw[len(u.Scheme)+1:], "//")
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[i:] // past the authority
	} else {
		rest = ""
	}
	path, tail := rest, ""
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		path, tail = rest[:i], rest[i:]
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	scheme := strings.ToLower(u.Scheme)
	if defaultPort := map[string]string{"http": "80", "https": "443"}[scheme]; port != "" && port != defaultPort {
		host += ":" + port
	}
	if path == "" {
		path = "/"
	}
	userinfo := ""
	if u.User != nil {
		userinfo = u.User.String() + "@"
	}
	return scheme + "://" + userinfo + host + upperEscapes(dotSegmentsRemoved(path)) + upperEscapes(tail)
}

// dotSegmentsRemoved is RFC 3986 §5.2.4 for an absolute path.
func dotSegmentsRemoved(path string) string {
	segments := strings.Split(path, "/")[1:]
	out := []string{}
	for i, seg := range segments {
		last := i == len(segments)-1
		switch seg {
		case ".", "..":
			if seg == ".." && len(out) > 0 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, seg)
		}
	}
	return "/" + strings.Join(out, "/")
}

// upperEscapes writes the hex digits of every percent-encoding in s in upper case.
func upperEscapes(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			b[i+1], b[i+2] = upperHex(b[i+1]), upperHex(b[i+2])
			i += 2
		}
	}
	return string(b)
}

func upperHex(c byte) byte {
	if c >= 'a' && c <= 'f' {
		return c - 'a' + 'A'
	}
	return c
}

// cdnRefusesGetBody answers, under the reading refuseGetBody, a GET that carries a
// body as CloudFront does: 403 with an HTML page of its own.
func (e *Emulator) cdnRefusesGetBody(w http.ResponseWriter, r *http.Request) bool {
	if !e.readings().RefuseGetBody || r.Method != http.MethodGet || r.ContentLength == 0 {
		return false
	}
	w.Header().Set("Content-Type", "text/html")
	w.Header().Set("X-Cache", "Error from cloudfront")
	w.WriteHeader(http.StatusForbidden)
	_, _ = w.Write([]byte("<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 4.01 Transitional//EN\"><HTML><HEAD><TITLE>ERROR: The request " +
		"could not be satisfied</TITLE></HEAD><BODY><H1>403 ERROR</H1><H2>The request could not be satisfied.</H2>" +
		"Bad request. We can't connect to the server for this app or website at this time.</BODY></HTML>"))
	return true
}

// readQueryParams reads the parameters of a list or count call where the reading in
// force looks for them: the query string and the body (the contract), only the query
// string (§V1) or only a JSON body (§V2).
func (e *Emulator) readQueryParams(w http.ResponseWriter, r *http.Request) (*scoreParams, bool) {
	params, ok := readScoreParams(w, r)
	if !ok {
		return nil, false
	}
	switch readings := e.readings(); {
	case readings.QueryParamsOnly:
		params.body = nil
	case readings.BodyParamsOnly:
		params.query = url.Values{}
	}
	if e.readings().BracketQueryObjects {
		params.brackets, params.bracketsOnly = bracketObjects(params.query), true
	}
	return params, true
}

func (e *Emulator) handleCountScores(w http.ResponseWriter, r *http.Request, _ *User) {
	if r.Method == http.MethodPost && e.readings().CountGetOnly {
		// Contract §V3: a platform that took the specification's example (GET) literally.
		w.Header().Set("Allow", http.MethodGet)
		writeProblem(w, http.StatusMethodNotAllowed, scoreNamespace, "METHOD_NOT_ALLOWED",
			"POST is not supported on "+r.URL.Path, map[string]any{"method": r.Method, "allow": []string{http.MethodGet}})
		return
	}
	if e.cdnRefusesGetBody(w, r) {
		return
	}
	params, ok := e.readQueryParams(w, r)
	if !ok {
		return
	}
	q, bad := readScoreQuery(params, false)
	if bad != nil {
		badArgument(w, scoreNamespace, bad.field, bad.message)
		return
	}
	e.muxCriteria(q.criteria)
	from, to := q.window(len(e.matching(q.criteria)))
	if e.readings().BareCount {
		e.writeScoreAnswer(w, to-from)
		return
	}
	e.writeScoreAnswer(w, map[string]any{"count": to - from})
}

// scoreMatches applies the criteria to the score's JSON form: "scoreId" is
// publisher.scoreId, every other key the top-level field of that name.
// Under the reading normalizedScoreUrl (normalized), a scoreUrl criterion is read into
// the normal form the scores are kept in.
func scoreMatches(score scoreJSON, criteria map[string]any, normalized bool) bool {
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
		if u, isString := want.(string); isString && key == "scoreUrl" && normalized {
			want = normalScoreURL(u)
		}
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

// renderDelay is the time a score spends in each of pending and rendering: none on a
// platform that renders as it publishes (the reading synchronousRendering).
func (e *Emulator) renderDelay() time.Duration {
	if e.readings().SynchronousRendering {
		return 0
	}
	return e.opts.RenderDelay
}

// GET and DELETE /scores/{id}

func scoreNotFound(w http.ResponseWriter, id string) {
	writeProblem(w, http.StatusNotFound, scoreNamespace, "NOT_FOUND",
		fmt.Sprintf("score '%s' does not exist", id), map[string]any{"id": id})
}

// scoreMissing answers a score that is not there: 404, or 410 Gone for one that was
// deleted when the platform keeps tombstones (the reading goneScores).
func (e *Emulator) scoreMissing(w http.ResponseWriter, id string) {
	if e.readings().GoneScores && e.scores.wasRemoved(id) {
		writeProblem(w, http.StatusGone, scoreNamespace, "GONE",
			fmt.Sprintf("score '%s' was deleted", id), map[string]any{"id": id})
		return
	}
	scoreNotFound(w, id)
}

// wasRemoved reports whether idOrAlias named a score that was deleted.
func (s *scoreState) wasRemoved(idOrAlias string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id, err := uuid.Parse(idOrAlias); err == nil {
		idOrAlias = id.String()
	}
	_, ok := s.removed[idOrAlias]
	return ok
}

func (e *Emulator) handleGetScore(w http.ResponseWriter, r *http.Request, _ *User) {
	id := r.PathValue("id")
	lag := e.readLag()
	e.scores.mu.Lock()
	rec := e.scores.lookupLocked(id)
	now := e.scores.clock()
	if rec != nil && e.scores.hiddenLocked(rec, now, lag) {
		rec = nil
	}
	e.scores.mu.Unlock()
	if rec == nil {
		e.scoreMissing(w, id)
		return
	}
	e.writeWrapped(w, "score", e.scoreAt(rec, now))
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
		e.scoreMissing(w, id)
		return
	}
	// purge only says whether rendered assets go too; the emulator keeps none.
	if _, bad := params.boolean("purge"); bad != nil {
		s.mu.Unlock()
		badArgument(w, scoreNamespace, bad.field, bad.message)
		return
	}
	if e.readings().DeleteAccepted {
		// RFC 9110 §15.3.3: accepted, not yet enacted; the score and its alias stay
		// until the delete is carried out.
		s.mu.Unlock()
		time.AfterFunc(acceptedDeleteDelay, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.scores[rec.id] == rec {
				s.removeLocked(rec)
			}
		})
		w.WriteHeader(http.StatusAccepted)
		return
	}
	s.removeLocked(rec)
	answer := e.scoreAt(rec, s.clock())
	s.mu.Unlock()
	if e.readings().DeleteAnswersScore {
		// Contract §V6: the deleted score instead of an empty answer.
		e.writeWrapped(w, "score", answer)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// acceptedDeleteDelay is how long a delete answered 202 (the reading deleteAccepted)
// takes to be carried out.
const acceptedDeleteDelay = 1500 * time.Millisecond

// removeLocked removes the score, its alias and its views (their pages answer 404
// from now on).
func (s *scoreState) removeLocked(rec *scoreRecord) {
	delete(s.scores, rec.id)
	if s.removed == nil {
		s.removed = map[string]struct{}{}
	}
	s.removed[rec.id] = struct{}{}
	if rec.alias != "" && s.aliases[rec.alias] == rec.id {
		delete(s.aliases, rec.alias)
		s.removed[rec.alias] = struct{}{}
	}
	for vid, v := range s.views {
		if v.scoreID == rec.id {
			delete(s.views, vid)
		}
	}
}

// GET /core/health

func (e *Emulator) handleHealth(w http.ResponseWriter, _ *http.Request, _ *User) {
	if e.readings().TextHealth {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("OK"))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"service": map[string]any{
		"healthStatus": "ok", "healthVerifier": "default",
	}})
}
