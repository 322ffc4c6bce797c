package emulator

// The contract's grammars (sections A and C), on the table the provider's validators
// are tested with too (internal/contracttest): what the emulator accepts, the
// provider accepts at plan time, and the other way round.

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/contracttest"
)

func jsonText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestGrammarTable(t *testing.T) {
	t.Parallel()
	api := newScoreAPI(t, Options{}, false)
	check := func(t *testing.T, v contracttest.Value, r *emuResponse, code, field string) {
		t.Helper()
		switch {
		case v.Valid && r.status != http.StatusOK:
			t.Errorf("%s (%s): refused with %d %s", field, v.Why, r.status, r.body)
		case !v.Valid:
			r.wantProblem(t, http.StatusBadRequest, code, field)
		}
	}
	t.Run("scoreUrl", func(t *testing.T) {
		for _, v := range contracttest.ScoreURLs {
			check(t, v, api.do(t, http.MethodPost, "/scores", jsonText(t, map[string]any{"scoreUrl": v.Value})), "publishing/BAD_ARGUMENT", "scoreUrl")
		}
	})
	t.Run("scoreId", func(t *testing.T) {
		for _, v := range contracttest.Aliases {
			body := map[string]any{"scoreUrl": "https://cdn.example/alias.sib", "scoreId": v.Value}
			check(t, v, api.do(t, http.MethodPost, "/scores", jsonText(t, body)), "publishing/BAD_ARGUMENT", "scoreId")
		}
	})
	t.Run("settings.licenseString", func(t *testing.T) {
		s := api.publish(t, `{"scoreUrl":"https://cdn.example/licensed.sib"}`)
		for _, v := range contracttest.LicenseStrings {
			body := map[string]any{"settings": map[string]any{"licenseString": v.Value}}
			check(t, v, api.do(t, http.MethodPost, "/scores/"+s.ID+"/view", jsonText(t, body)), "publishing/BAD_ARGUMENT", "settings.licenseString")
		}
	})
	t.Run("serverN", func(t *testing.T) {
		token := api.adminLogin(DefaultAdminName, DefaultAdminPassword)
		for _, v := range contracttest.ServerAddresses {
			body := map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": true, "server0": v.Value, "port0": "389"}
			check(t, v, api.admin(http.MethodPut, "/externalauth", token, strings.NewReader(jsonText(t, body))), "admin/BAD_ARGUMENT", "server0")
		}
	})
}
