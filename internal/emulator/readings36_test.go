package emulator

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestReadingsOfIssue36: the readings of the sixth round of field reports answer as
// WIRE.md says.
func TestReadingsOfIssue36(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	token := et.platformLogin(DefaultUserName, DefaultUserPassword)
	pub := et.e.PublishingURL(et.srv.URL)
	h := http.Header{"Authorization": {"Bearer " + token}, "Content-Type": {"application/json"}}

	et.withReadings("omitEmptyScoreMembers")
	if res := et.do(http.MethodGet, pub+"/scores", h, nil); strings.TrimSpace(string(res.body)) != "{}" {
		t.Errorf("omitEmptyScoreMembers, an empty page: %d %s", res.status, res.body)
	}
	if res := et.do(http.MethodPost, pub+"/scores/count", h, strings.NewReader(`{}`)); strings.TrimSpace(string(res.body)) != "{}" {
		t.Errorf("omitEmptyScoreMembers, a count of 0: %d %s", res.status, res.body)
	}
	res := et.do(http.MethodPost, pub+"/scores", h, strings.NewReader(`{"scoreUrl":"https://cdn.example/e.sib"}`))
	if body := string(res.body); strings.Contains(body, "transpose") || strings.Contains(body, "renderings") || !strings.Contains(body, `"id"`) {
		t.Errorf("omitEmptyScoreMembers, a new score: %s", body)
	}

	et.withReadings("spaceTimestamps")
	res = et.do(http.MethodGet, pub+"/scores", h, nil)
	if !regexp.MustCompile(`"createdAt":"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}\+00:00"`).Match(res.body) {
		t.Errorf("spaceTimestamps: %s", res.body)
	}

	et.withReadings("templatedLinks")
	res = et.do(http.MethodGet, et.srv.URL+"/auth", nil, nil)
	if !strings.Contains(string(res.body), `"templated":true`) {
		t.Errorf("templatedLinks, no link marked templated: %s", res.body)
	}
	if !strings.Contains(string(res.body), `{?fields}`) || strings.Contains(string(res.body), `/auth{?fields}`) {
		t.Errorf("templatedLinks, self stays plain and the others are templates: %s", res.body)
	}

	et.withReadings("seeOtherWrites")
	noFollow := *et.srv.Client()
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	write := func(method, target, token string) *emuResponse {
		req := et.request(method, target, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		return roundTrip(t, &noFollow, req)
	}
	res = write(http.MethodPost, et.srv.URL+"/auth/tokens/current/extension", token)
	if res.status != http.StatusSeeOther || res.header.Get("Location") != et.srv.URL+"/auth/tokens/current" {
		t.Errorf("seeOtherWrites, the extension: %d %v", res.status, res.header)
	}
	other := et.platformLogin(DefaultUserName, DefaultUserPassword)
	res = write(http.MethodDelete, et.srv.URL+"/auth/tokens/current", other)
	if res.status != http.StatusSeeOther || res.header.Get("Location") != et.srv.URL+"/auth" {
		t.Errorf("seeOtherWrites, the removal: %d %v", res.status, res.header)
	}
	if res := et.do(http.MethodGet, et.srv.URL+"/auth/tokens/current", http.Header{"Authorization": {"Bearer " + other}}, nil); res.status != http.StatusUnauthorized {
		t.Errorf("the token removed with a 303: %d", res.status)
	}

	et.withReadings("refuseGetBody")
	if res := et.do(http.MethodGet, pub+"/scores", h, strings.NewReader(`{"limit": 1}`)); res.status != http.StatusForbidden ||
		!strings.HasPrefix(res.header.Get("Content-Type"), "text/html") {
		t.Errorf("refuseGetBody, a GET with a body: %d %v", res.status, res.header)
	}
	if res := et.do(http.MethodGet, pub+"/scores?limit=1", h, nil); res.status != http.StatusOK {
		t.Errorf("refuseGetBody, a GET without a body: %d", res.status)
	}

	et.withReadings("deleteAccepted")
	res = et.do(http.MethodPost, pub+"/scores", h, strings.NewReader(`{"scoreUrl":"https://cdn.example/d.sib","scoreId":"d"}`))
	if res.status != http.StatusOK {
		t.Fatalf("publish: %d %s", res.status, res.body)
	}
	if res := et.do(http.MethodDelete, pub+"/scores/d", h, nil); res.status != http.StatusAccepted {
		t.Errorf("deleteAccepted: %d, want 202", res.status)
	}
	if res := et.do(http.MethodGet, pub+"/scores/d", h, nil); res.status != http.StatusOK {
		t.Errorf("a score whose delete was accepted, at once: %d, want 200", res.status)
	}
	deadline := time.Now().Add(5 * time.Second)
	for et.do(http.MethodGet, pub+"/scores/d", h, nil).status != http.StatusNotFound {
		if time.Now().After(deadline) {
			t.Fatal("the score whose delete was accepted is still there after 5 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
}
