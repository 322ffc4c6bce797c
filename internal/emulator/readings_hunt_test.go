package emulator

// The readings found by the hunt of issue 51: each off by default, and what it
// changes once on.

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestReadingLoginTokenHeader: the login answers 200 with no body and the session
// token in the header `token`, and that token opens a session.
func TestReadingLoginTokenHeader(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	form := url.Values{"user": {DefaultAdminName}, "pass": {DefaultAdminPassword}, "r": {"createsession"}}
	if res := et.adminForm(form); res.header.Get("token") != "" || !strings.Contains(string(res.body), `"token"`) {
		t.Errorf("without the reading: header %q, body %s", res.header.Get("token"), res.body)
	}
	et.withReadings("loginTokenHeader")
	res := et.adminForm(form)
	token := res.header.Get("token")
	if res.status != http.StatusOK || len(res.body) != 0 || token == "" {
		t.Fatalf("login: %d, header token %q, body %q; want 200, a token, no body", res.status, token, res.body)
	}
	et.admin(http.MethodGet, "/externalauth", token, nil).wantStatus(t, http.StatusOK)
}

// TestReadingPublishCreated: a publish answers 201 with the score's address in
// Location and no body; the address serves the new score.
func TestReadingPublishCreated(t *testing.T) {
	t.Parallel()
	api := newScoreAPI(t, Options{}, false)
	api.withReadings("publishCreated")
	res := api.do(t, http.MethodPost, "/scores", `{"scoreUrl":"https://cdn.example/created.sib","scoreId":"created"}`)
	loc := res.header.Get("Location")
	if res.status != http.StatusCreated || len(res.body) != 0 || !strings.HasPrefix(loc, api.pub+"/scores/") {
		t.Fatalf("publish: %d, Location %q, body %q; want 201, %s/scores/<id>, no body", res.status, loc, res.body, api.pub)
	}
	got := api.bearer(http.MethodGet, loc, api.token).wantJSON(t, http.StatusOK, "application/json")
	score := emuObject(t, got["score"])
	if emuString(t, score["id"]) != strings.TrimPrefix(loc, api.pub+"/scores/") || score["scoreUrl"] != "https://cdn.example/created.sib" {
		t.Errorf("the Location serves %v", score)
	}
}

// TestReadingUpperCaseLifecycle: a command's lifecycle is in upper case.
func TestReadingUpperCaseLifecycle(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	token := et.platformLogin(DefaultUserName, DefaultUserPassword)
	id, err := et.e.CreateCommand(CommandScript{Type: "publishing:purge", Steps: []CommandStep{{Lifecycle: "finished", Progress: 100}}})
	if err != nil {
		t.Fatal(err)
	}
	lifecycle := func() string {
		doc := et.bearer(http.MethodGet, et.srv.URL+CommandPath(id), token).wantJSON(t, http.StatusOK, "application/hal+json")
		return emuString(t, emuObject(t, doc["command"])["lifecycle"])
	}
	if l := lifecycle(); l != "finished" {
		t.Errorf("without the reading: %q", l)
	}
	et.withReadings("upperCaseLifecycle")
	if l := lifecycle(); l != "FINISHED" {
		t.Errorf("with the reading: %q, want FINISHED", l)
	}
}

// TestReadingEpochTimestamps: every timestamp is a number of milliseconds since the
// epoch, the same instant as the RFC 3339 form.
func TestReadingEpochTimestamps(t *testing.T) {
	t.Parallel()
	api := newScoreAPI(t, Options{}, false)
	created := api.publish(t, `{"scoreUrl":"https://cdn.example/epoch.sib"}`)
	before := api.do(t, http.MethodGet, "/scores/"+created.ID, "").wantJSON(t, 200, "application/json")
	at := emuWantTime(t, emuObject(t, before["score"])["createdAt"])
	api.withReadings("epochTimestamps")
	res := api.do(t, http.MethodGet, "/scores/"+created.ID, "")
	res.wantStatus(t, http.StatusOK)
	var doc struct {
		Score map[string]json.RawMessage `json:"score"`
	}
	if err := json.Unmarshal(res.body, &doc); err != nil {
		t.Fatal(err)
	}
	var ms int64
	if err := json.Unmarshal(doc.Score["createdAt"], &ms); err != nil {
		t.Fatalf("createdAt %s is not an integer: %v", doc.Score["createdAt"], err)
	}
	if !time.UnixMilli(ms).Equal(at) {
		t.Errorf("createdAt %d is %v, want %v", ms, time.UnixMilli(ms).UTC(), at)
	}
	if strings.Contains(string(res.body), `Z"`) {
		t.Errorf("an RFC 3339 timestamp is left: %s", res.body)
	}
}

// TestReadingStringAdminBooleans: the settings answer their booleans as strings.
func TestReadingStringAdminBooleans(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	et.withReadings("stringAdminBooleans")
	session := et.adminLogin(DefaultAdminName, DefaultAdminPassword)
	put := et.admin(http.MethodPut, "/externalauth", session, strings.NewReader(
		`{"domainName":"CORP","externalAuthenticationEnabled":true,"server0":"dc1.corp.example","port0":"636","enabled0":false}`))
	for name, res := range map[string]*emuResponse{"PUT": put, "GET": et.admin(http.MethodGet, "/externalauth", session, nil)} {
		doc := res.wantJSON(t, http.StatusOK, "application/json")
		if doc["externalAuthenticationEnabled"] != "true" || doc["enabled0"] != "false" {
			t.Errorf("%s: %v, want the booleans as \"true\" and \"false\"", name, doc)
		}
	}
}

// The readings found by the second hunt.

// TestReadingSessionTokenMember: the login answers the token as sessionToken, and
// that token opens a session.
func TestReadingSessionTokenMember(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	et.withReadings("sessionTokenMember")
	form := url.Values{"user": {DefaultAdminName}, "pass": {DefaultAdminPassword}, "r": {"createsession"}}
	doc := et.adminForm(form).wantJSON(t, http.StatusOK, "application/json")
	if _, has := doc["token"]; has || doc["status"] != "SUCCESS" {
		t.Errorf("login: %v, want status SUCCESS and no member token", doc)
	}
	et.admin(http.MethodGet, "/externalauth", emuString(t, doc["sessionToken"]), nil).wantStatus(t, http.StatusOK)
}

// TestReadingUnconfiguredSettings: GET /externalauth answers 404 until the first PUT,
// and again after a reset.
func TestReadingUnconfiguredSettings(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	et.withReadings("unconfiguredSettings")
	session := et.adminLogin(DefaultAdminName, DefaultAdminPassword)
	et.admin(http.MethodGet, "/externalauth", session, nil).wantProblem(t, http.StatusNotFound, "admin/NOT_FOUND", "")
	et.admin(http.MethodPut, "/externalauth", session, strings.NewReader(
		`{"domainName":"CORP","externalAuthenticationEnabled":false}`)).wantStatus(t, http.StatusOK)
	if doc := et.admin(http.MethodGet, "/externalauth", session, nil).wantJSON(t, http.StatusOK, "application/json"); doc["domainName"] != "CORP" {
		t.Errorf("after the PUT: %v", doc)
	}
	et.e.admin.reset()
	session = et.adminLogin(DefaultAdminName, DefaultAdminPassword)
	et.admin(http.MethodGet, "/externalauth", session, nil).wantStatus(t, http.StatusNotFound)
}

// TestReadingRelativeLinks: every HAL href is an absolute-path reference.
func TestReadingRelativeLinks(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	et.withReadings("relativeLinks")
	doc := et.do(http.MethodGet, et.srv.URL+authPath, nil, nil).wantJSON(t, http.StatusOK, "application/hal+json")
	links := emuObject(t, doc["_links"])
	if href := emuObject(t, emuArray(t, links["auth:identity-providers"])[0])["href"]; href != identityProvidersURL {
		t.Errorf("auth:identity-providers href %v, want %s", href, identityProvidersURL)
	}
	if href := emuObject(t, links["self"])["href"]; href != authPath {
		t.Errorf("self href %v, want %s", href, authPath)
	}
}

// TestReadingMuxStatuses: after pending a score is preparing, then ready (or
// errored), and a criterion is read in those names.
func TestReadingMuxStatuses(t *testing.T) {
	t.Parallel()
	api := newScoreAPI(t, Options{RenderDelay: time.Second}, true)
	api.withReadings("muxStatuses")
	ok := api.publish(t, `{"scoreUrl":"https://cdn.example/mux.sib"}`)
	bad := api.publish(t, `{"scoreUrl":"https://scores.invalid/mux.sib"}`)
	if ok.Status != "pending" {
		t.Errorf("published: %q, want pending", ok.Status)
	}
	api.clock.Advance(1500 * time.Millisecond)
	if s := api.get(t, ok.ID).Status; s != "preparing" {
		t.Errorf("rendering: %q, want preparing", s)
	}
	api.clock.Advance(time.Second)
	if s, e := api.get(t, ok.ID).Status, api.get(t, bad.ID).Status; s != "ready" || e != "errored" {
		t.Errorf("rendered: %q and %q, want ready and errored", s, e)
	}
	for criterion, want := range map[string]float64{"ready": 1, "idle": 0, "errored": 1} {
		doc := api.do(t, http.MethodPost, "/scores/count", `{"score":{"status":"`+criterion+`"}}`).wantJSON(t, http.StatusOK, "application/json")
		if doc["count"] != want {
			t.Errorf("count of %s: %v, want %v", criterion, doc["count"], want)
		}
	}
}

// TestReadingAliasTakenUnprocessable: a taken alias answers 422 naming scoreId.
func TestReadingAliasTakenUnprocessable(t *testing.T) {
	t.Parallel()
	api := newScoreAPI(t, Options{}, false)
	api.withReadings("aliasTakenUnprocessable")
	api.publish(t, `{"scoreUrl":"https://cdn.example/taken.sib","scoreId":"taken"}`)
	api.do(t, http.MethodPost, "/scores", `{"scoreUrl":"https://cdn.example/taken.sib","scoreId":"taken"}`).
		wantProblem(t, http.StatusUnprocessableEntity, "publishing/ALREADY_EXISTS", "scoreId")
}
