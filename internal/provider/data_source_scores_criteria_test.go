package provider

// The filters of mediaplatform_scores and mediaplatform_score_count in every form of
// the criteria the specification's words allow, through real Terraform, with the
// requests each form costs.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// criteriaFormOf is the form in which a recorded list or count carried its criteria:
// "json" (score={…} in the query), "brackets" (score[field]=…), "body" (in a JSON body
// only) or "none".
func criteriaFormOf(r faultproxy.Request) string {
	q, _ := url.ParseQuery(r.Query)
	for key := range q {
		if strings.HasPrefix(key, "score[") {
			return "brackets"
		}
	}
	if q.Has("score") {
		return "json"
	}
	var body map[string]any
	if json.Unmarshal(r.Body, &body) == nil && body["score"] != nil {
		return "body"
	}
	return "none"
}

// TestAccDataSourceScores_criteriaForms reads mediaplatform_scores and
// mediaplatform_score_count filtered by score_url and by status on three platforms:
// the contract's (criteria as JSON text in the query), one that reads objects in the
// query only in bracket form (the reading bracketQueryObjects: 400 to the JSON text),
// and one that refuses an object in the query in any form and reads it from a JSON
// body (a gateway of the test's own in front of the emulator). Each provider process
// finds the form once: at most one refused request per form it passes, and none on
// the contract's platform.
func TestAccDataSourceScores_criteriaForms(t *testing.T) {
	t.Parallel()
	for _, platform := range []string{"contract", "brackets", "body"} {
		t.Run(platform, func(t *testing.T) {
			t.Parallel()
			direct := newTestEmulatorWith(t, "the forms of the criteria", emulator.Options{RenderDelay: testRenderDelay})
			ctl := direct.control(t, "readings and request counts")
			proxy := faultproxy.Start(direct.URL)
			t.Cleanup(proxy.Close)
			emu := servedTestEmulator(t, ctl, proxy.URL)
			scores, urlA, _ := dsFilterFixture(t, emu)
			fromA := len(dsWhere(scores, func(s *client.Score) bool { return s.ScoreURL == urlA }))
			idle := len(dsWhere(scores, func(s *client.Score) bool { return s.Status == client.ScoreStatusIdle }))
			failed := len(dsWhere(scores, func(s *client.Score) bool { return s.Status == client.ScoreStatusError }))
			switch platform {
			case "brackets":
				ctl.SetFaults(emulator.Faults{Readings: emulator.Readings{BracketQueryObjects: true}})
			case "body":
				upstream, err := url.Parse(direct.URL)
				if err != nil {
					t.Fatal(err)
				}
				// A gateway in front of the platform: 400 to an object in the query, any
				// other request passed on (keeping the Host the emulator builds hrefs from).
				forward := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
					pr.SetURL(upstream)
					pr.Out.Host = pr.In.Host
				}}
				proxy.Add(faultproxy.Fault{Path: `/scores(/count)?$`, Handle: func(w http.ResponseWriter, r *http.Request) {
					if r.Method == http.MethodGet || r.Method == http.MethodPost {
						for key := range r.URL.Query() {
							if key == "score" || strings.HasPrefix(key, "score[") {
								w.Header().Set("Content-Type", "application/problem+json")
								w.WriteHeader(http.StatusBadRequest)
								_, _ = w.Write([]byte(`{"code":"publishing/BAD_ARGUMENT","message":"score must be sent in the body"}`))
								return
							}
						}
					}
					forward.ServeHTTP(w, r)
				}})
			}
			before := len(proxy.Requests())
			grantsBefore := ctl.Stats().Logins["oauth"]
			config := emu.providerConfig() + fmt.Sprintf(`
data "mediaplatform_scores" "from_a" {
  score_url = %[1]q
}
data "mediaplatform_scores" "idle" {
  status = "idle"
}
data "mediaplatform_score_count" "from_a" {
  score_url = %[1]q
}
data "mediaplatform_score_count" "failed" {
  status = "error"
}
`, urlA)
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testProviderFactories(t),
				Steps: []resource.TestStep{{
					Config: config,
					ConfigStateChecks: []statecheck.StateCheck{
						dsExpect("data.mediaplatform_scores.from_a", "scores", knownvalue.ListSizeExact(fromA)),
						dsExpect("data.mediaplatform_scores.idle", "scores", knownvalue.ListSizeExact(idle)),
						dsExpect("data.mediaplatform_score_count.from_a", "total", knownvalue.Int64Exact(int64(fromA))),
						dsExpect("data.mediaplatform_score_count.failed", "total", knownvalue.Int64Exact(int64(failed))),
					},
				}},
			})
			processes := ctl.Stats().Logins["oauth"] - grantsBefore
			lists, counts := map[string]int{}, map[string]int{}
			for _, r := range proxy.Requests()[before:] {
				switch {
				case r.Method == http.MethodGet && strings.HasSuffix(r.Path, "/scores"):
					lists[criteriaFormOf(r)]++
				case strings.HasSuffix(r.Path, "/scores/count"):
					counts[r.Method+" "+criteriaFormOf(r)]++
				}
			}
			t.Logf("%s platform: %d provider processes; GET /scores by form %v; counts %v", platform, processes, lists, counts)
			switch platform {
			case "contract":
				if lists["brackets"]+lists["body"] != 0 {
					t.Errorf("the contract's platform was sent other forms: %v", lists)
				}
			case "brackets":
				if lists["json"] == 0 || lists["json"] > processes || lists["body"] != 0 {
					t.Errorf("GET /scores by form %v for %d processes: want at most one refused JSON text per process, "+
						"then the bracket form only", lists, processes)
				}
			case "body":
				// A count (its criteria in the body too) learns the body form as a list
				// does, and the process's calls wait for the one finding it: the refusals
				// fall on whichever came first, a list or a count.
				refused := map[string]int{"json": lists["json"], "brackets": lists["brackets"]}
				for key, n := range counts {
					_, form, _ := strings.Cut(key, " ")
					refused[form] += n
				}
				if refused["json"] == 0 || refused["json"] > processes || refused["brackets"] > processes {
					t.Errorf("GET /scores by form %v, counts %v for %d processes: want at most one refused JSON text "+
						"and one refused bracket form per process, lists and counts together, then the body", lists, counts, processes)
				}
			}
		})
	}
}
