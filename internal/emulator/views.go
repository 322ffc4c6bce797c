package emulator

// Section C of the contract, the views: POST {publishing_url}/scores/{id}/view
// creates a time-limited view, served as a viewer page at {platform_url}/viewer/{id}
// until it expires.

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"golang.org/x/text/language"
)

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

// POST /scores/{id}/view

type viewJSON struct {
	ID        string       `json:"id,omitempty"`
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
		e.scoreMissing(w, id)
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
		e.scoreMissing(w, id)
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
	answer := viewJSON{
		ID:        view.id,
		ScoreID:   view.scoreID,
		ViewerURL: baseURL(r) + "/viewer/" + view.id,
		CreatedAt: formatTime(view.createdAt),
		ExpiresAt: formatTime(view.expiresAt),
		Settings:  settings,
	}
	if e.readings().ViewWithoutID {
		answer.ID = "" // the viewer address is the view's only name
	}
	e.writeWrapped(w, "view", answer)
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
