package emulator

// Score views and the viewer page (section C of the contract).

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestCreateView(t *testing.T) {
	t.Parallel()
	api := newScoreAPI(t, Options{}, true)
	scoreID := api.publish(t, `{"scoreUrl":"https://cdn.example/v.sib","scoreId":"viewable"}`).ID

	tests := []struct {
		name, ref, query, body string
		wantSettings           string
		wantExpiresIn          time.Duration
	}{
		{"defaults", "viewable", "", "",
			`{"printable":false,"pages":"","licenseString":"","lang":"en"}`, 7200 * time.Second},
		{"expiresIn 0 is the default", scoreID, "", `{"expiresIn":0}`,
			`{"printable":false,"pages":"","licenseString":"","lang":"en"}`, 7200 * time.Second},
		{"every setting in the body", "viewable", "",
			`{"settings":{"printable":true,"pages":"1-3,5,8-9","licenseString":"© Acme","lang":"de-CH"},"expiresIn":60}`,
			`{"printable":true,"pages":"1-3,5,8-9","licenseString":"© Acme","lang":"de-CH"}`, 60 * time.Second},
		{"every setting in the query", "viewable",
			"?settings.printable=true&settings.pages=2&settings.licenseString=lic&settings.lang=fr&expiresIn=86400", "",
			`{"printable":true,"pages":"2","licenseString":"lic","lang":"fr"}`, 86400 * time.Second},
		{"settings as JSON text in the query", "viewable",
			"?settings=" + url.QueryEscape(`{"pages":"4-4","lang":"zh-Hant-TW"}`), "",
			`{"printable":false,"pages":"4-4","licenseString":"","lang":"zh-Hant-TW"}`, 7200 * time.Second},
		{"body wins leaf by leaf", "viewable",
			"?settings.pages=1&settings.lang=xx-invalid-&expiresIn=5", `{"settings":{"lang":"it"},"expiresIn":10}`,
			`{"printable":false,"pages":"1","licenseString":"","lang":"it"}`, 10 * time.Second},
		{"longest license", "viewable", "", `{"settings":{"licenseString":"` + strings.Repeat("ü", 1024) + `"}}`,
			`{"printable":false,"pages":"","licenseString":"` + strings.Repeat("ü", 1024) + `","lang":"en"}`, 7200 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := wantScoreOK(t, api.do(t, http.MethodPost, "/scores/"+tc.ref+"/view"+tc.query, tc.body))
			view := r.view(t)
			if view.ID == "" {
				t.Fatalf("view without id: %s", r.body)
			}
			if view.ScoreID != scoreID {
				t.Errorf("scoreId = %s, want the score UUID %s", view.ScoreID, scoreID)
			}
			if view.ViewerURL != api.srv.URL+"/viewer/"+view.ID {
				t.Errorf("viewerUrl = %s, want %s/viewer/%s", view.ViewerURL, api.srv.URL, view.ID)
			}
			created, expires := emuWantTime(t, view.CreatedAt), emuWantTime(t, view.ExpiresAt)
			if !created.Equal(api.clock.Now()) || expires.Sub(created) != tc.wantExpiresIn {
				t.Errorf("createdAt %v, expiresAt %v, want a lifetime of %v", created, expires, tc.wantExpiresIn)
			}
			var settings struct {
				View struct {
					Settings json.RawMessage `json:"settings"`
				} `json:"view"`
			}
			if err := json.Unmarshal(r.body, &settings); err != nil || string(settings.View.Settings) != tc.wantSettings {
				t.Errorf("settings = %s, want %s (%v)", settings.View.Settings, tc.wantSettings, err)
			}
			if n := r.keys(t, "view"); n != 6 {
				t.Errorf("view has %d fields, want exactly the contract's six: %s", n, r.body)
			}
		})
	}
}

func TestCreateViewBadArguments(t *testing.T) {
	t.Parallel()
	api := newScoreAPI(t, Options{}, true)
	api.publish(t, `{"scoreUrl":"https://cdn.example/v.sib","scoreId":"viewable"}`)
	tests := []struct {
		name, query, body, field string
	}{
		{"printable not a boolean", "", `{"settings":{"printable":"true"}}`, "settings.printable"},
		{"printable in query not a boolean", "?settings.printable=yes", "", "settings.printable"},
		{"pages not a string", "", `{"settings":{"pages":3}}`, "settings.pages"},
		{"pages empty", "", `{"settings":{"pages":""}}`, "settings.pages"},
		{"page 0", "", `{"settings":{"pages":"0"}}`, "settings.pages"},
		{"range from 0", "", `{"settings":{"pages":"0-2"}}`, "settings.pages"},
		{"range backwards", "", `{"settings":{"pages":"3-1"}}`, "settings.pages"},
		{"open range", "", `{"settings":{"pages":"2-"}}`, "settings.pages"},
		{"range without start", "", `{"settings":{"pages":"-2"}}`, "settings.pages"},
		{"double range", "", `{"settings":{"pages":"1-2-3"}}`, "settings.pages"},
		{"empty item", "", `{"settings":{"pages":"1,,2"}}`, "settings.pages"},
		{"trailing comma", "", `{"settings":{"pages":"1,"}}`, "settings.pages"},
		{"blank", "", `{"settings":{"pages":"1, 2"}}`, "settings.pages"},
		{"signed page", "", `{"settings":{"pages":"+1"}}`, "settings.pages"},
		{"words", "", `{"settings":{"pages":"all"}}`, "settings.pages"},
		{"bad pages in query", "?settings.pages=5-4", "", "settings.pages"},
		{"license too long", "", `{"settings":{"licenseString":"` + strings.Repeat("x", 1025) + `"}}`, "settings.licenseString"},
		{"license not a string", "", `{"settings":{"licenseString":false}}`, "settings.licenseString"},
		{"lang not a tag", "", `{"settings":{"lang":"english"}}`, "settings.lang"},
		{"lang with underscore", "", `{"settings":{"lang":"en_US"}}`, "settings.lang"},
		{"lang empty", "", `{"settings":{"lang":""}}`, "settings.lang"},
		{"lang unknown subtag", "", `{"settings":{"lang":"xx"}}`, "settings.lang"},
		{"lang not a string", "", `{"settings":{"lang":1}}`, "settings.lang"},
		{"lang in query", "?settings.lang=en-", "", "settings.lang"},
		{"expiresIn negative", "", `{"expiresIn":-1}`, "expiresIn"},
		{"expiresIn too large", "", `{"expiresIn":86401}`, "expiresIn"},
		{"expiresIn fraction", "", `{"expiresIn":1.5}`, "expiresIn"},
		{"expiresIn a string in body", "", `{"expiresIn":"60"}`, "expiresIn"},
		{"expiresIn in query not a number", "?expiresIn=1h", "", "expiresIn"},
		{"settings not an object", "", `{"settings":"printable"}`, "settings"},
		{"settings in query not JSON", "?settings=printable", "", "settings"},
		{"body not an object", "", `"x"`, "body"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := api.do(t, http.MethodPost, "/scores/viewable/view"+tc.query, tc.body)
			wantScoreProblem(t, r, http.StatusBadRequest, "publishing/BAD_ARGUMENT", tc.field)
		})
	}
	t.Run("unknown score", func(t *testing.T) {
		params := wantScoreProblem(t, api.do(t, http.MethodPost, "/scores/nothing/view", ""), http.StatusNotFound, "publishing/NOT_FOUND", "")
		if params["id"] != "nothing" {
			t.Errorf("params.id = %v, want nothing", params["id"])
		}
	})
}

func TestViewer(t *testing.T) {
	t.Parallel()
	api := newScoreAPI(t, Options{}, true)
	api.publish(t, `{"scoreUrl":"https://cdn.example/v.sib","scoreId":"viewable"}`)
	newView := func(body string) string {
		return wantScoreOK(t, api.do(t, http.MethodPost, "/scores/viewable/view", body)).view(t).ViewerURL
	}
	short := newView(`{"expiresIn":1,"settings":{"licenseString":"<b>mine</b>","lang":"de"}}`)
	long := newView("")

	// The viewer needs no token.
	r := api.call(t, http.MethodGet, short, "", "")
	if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
		t.Fatalf("viewer = %d %s, want 200 text/html", r.status, r.header.Get("Content-Type"))
	}
	page := string(r.body)
	for _, want := range []string{`<html lang="de">`, "&lt;b&gt;mine&lt;/b&gt;"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, "<b>mine</b>") {
		t.Error("the license string is not escaped")
	}

	api.clock.Advance(999 * time.Millisecond)
	if r := api.call(t, http.MethodGet, short, "", ""); r.status != http.StatusOK {
		t.Errorf("before expiry: %d", r.status)
	}
	api.clock.Advance(time.Millisecond)
	params := wantScoreProblem(t, api.call(t, http.MethodGet, short, "", ""), http.StatusGone, "publishing/NOT_FOUND", "")
	if params["id"] != strings.TrimPrefix(short, api.srv.URL+"/viewer/") {
		t.Errorf("params = %v", params)
	}
	if r := api.call(t, http.MethodGet, long, "", ""); r.status != http.StatusOK {
		t.Errorf("the longer view: %d", r.status)
	}

	// Deleting the score takes its views down, expired or not.
	if r := api.do(t, http.MethodDelete, "/scores/viewable", ""); r.status != http.StatusNoContent {
		t.Fatalf("DELETE: %d", r.status)
	}
	for _, v := range []string{short, long, api.srv.URL + "/viewer/never-created"} {
		wantScoreProblem(t, api.call(t, http.MethodGet, v, "", ""), http.StatusNotFound, "publishing/NOT_FOUND", "")
	}
	// A view cannot be created on the deleted score.
	wantScoreProblem(t, api.do(t, http.MethodPost, "/scores/viewable/view", ""), http.StatusNotFound, "publishing/NOT_FOUND", "")
}
