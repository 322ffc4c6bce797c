package emulator

// Seeding a running emulator (POST /_emulator/seed).

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestSeedControl: POST /_emulator/seed adds settings and scores to a running
// emulator, as a change made outside Terraform; a refused part is a 400 naming it.
func TestSeedControl(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{RenderDelay: time.Hour})
	et.control(http.MethodPost, "seed", `{"settings": {"domainName": "OUTSIDE", "externalAuthenticationEnabled": false},
		"scores": [{"scoreUrl": "https://cdn.example/outside.sib", "scoreId": "outside"}]}`).wantStatus(t, 200)
	token := et.adminLogin(DefaultAdminName, DefaultAdminPassword)
	settings := et.admin(http.MethodGet, "/externalauth", token, nil).wantJSON(t, 200, "application/json")
	if settings["domainName"] != "OUTSIDE" {
		t.Errorf("settings: %v", settings)
	}
	if status, ok := et.e.Score("outside"); !ok || status != scoreStatusIdle {
		t.Errorf("seeded score: %q %v", status, ok)
	}
	res := et.control(http.MethodPost, "seed", `{"scores": [{"scoreUrl": "https://cdn.example/again.sib", "scoreId": "outside"}]}`)
	if res.status != 400 || !strings.Contains(string(res.body), "used twice") && !strings.Contains(string(res.body), "outside") {
		t.Errorf("a taken alias: %d %s", res.status, res.body)
	}
}
