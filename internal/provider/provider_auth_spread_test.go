package provider

// Failures of the credential flow that many calls share (issue 41): a stuck identity
// provider or administrator login is met once for the whole run, and token-flow
// links that move under a running provider are discovered again.

import (
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// stuckRetries is max_retries in the stuck-login tests: a whole plan may send at most
// stuckRetries+1 logins, however many objects it reads.
const stuckRetries = 2

// stuckSettings are the provider arguments of the stuck-login tests.
var stuckSettings = fmt.Sprintf("request_timeout = \"2s\"\n  max_retries = %d", stuckRetries)

// TestAccAuthSpread_stuckGrantIsMetOnce: an identity provider that accepts the
// connection and never answers the password grant costs a plan of 24 scores one
// grant's attempts, not two attempts a score one after another (48 grants over 98 s
// before): every read that waits for the token shares the grant's outcome, and a
// read that comes after it was reported fails at once with the same lead.
func TestAccAuthSpread_stuckGrantIsMetOnce(t *testing.T) {
	t.Parallel()
	emu, proxy := newProxiedTestEmulator(t, "a stuck identity provider")
	const scores = 24
	config := providerConfigPlus(emu, stuckSettings) + fmt.Sprintf(`
resource "mediaplatform_score" "many" {
  count              = %d
  score_url          = "https://cdn.example/stuck-grant/${count.index}.sib"
  wait_for_rendering = false
}
`, scores)
	grant := `/ropc/default$`
	var before int
	var start time.Time
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{
			{Config: config},
			{
				PreConfig: func() {
					before, start = proxy.Count(http.MethodPost, grant), time.Now()
					proxy.Add(faultproxy.Fault{Method: http.MethodPost, Path: grant, Latency: time.Hour})
				},
				Config:   config,
				PlanOnly: true,
				ExpectError: errorPattern("Nothing answered at", "(from platform_url) within 2s",
					fmt.Sprintf("max_retries = %d", stuckRetries)),
			},
			{
				PreConfig: func() {
					n := proxy.Count(http.MethodPost, grant) - before
					t.Logf("the plan of %d scores sent %d token grants to the stuck identity provider and failed after %s",
						scores, n, time.Since(start).Round(100*time.Millisecond))
					if n > stuckRetries+1 {
						t.Errorf("the plan of %d scores sent %d token grants to the stuck identity provider, want at most "+
							"max_retries + 1 = %d for the whole plan", scores, n, stuckRetries+1)
					}
					proxy.Clear()
				},
				Config:   config,
				PlanOnly: true,
			},
		},
	})
}

// TestAccAuthSpread_stuckAdminLoginIsMetOnce: the administrator login shares its
// outcome the same way: twelve reads of the external authentication settings
// against a login that never answers send at most max_retries + 1 logins.
func TestAccAuthSpread_stuckAdminLoginIsMetOnce(t *testing.T) {
	t.Parallel()
	emu, proxy := newProxiedTestEmulator(t, "a stuck administrator login")
	const reads = 12
	config := providerConfigPlus(emu, stuckSettings) + fmt.Sprintf(`
data "mediaplatform_external_authentication" "many" {
  count = %d
}
`, reads)
	login := regexp.QuoteMeta(emu.control(t, "the administrator API's path").AdminURL("")) + `/login$`
	proxy.Add(faultproxy.Fault{Method: http.MethodPost, Path: login, Latency: time.Hour})
	start := time.Now()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: config,
			ExpectError: errorPattern("Nothing answered at", "(from admin_url) within 2s",
				fmt.Sprintf("max_retries = %d", stuckRetries)),
		}},
	})
	n := proxy.Count(http.MethodPost, login)
	t.Logf("%d reads sent %d administrator logins to the stuck login; the run failed after %s", reads, n,
		time.Since(start).Round(100*time.Millisecond))
	if n > stuckRetries+1 {
		t.Errorf("%d reads sent %d administrator logins to the stuck login, want at most max_retries + 1 = %d for the "+
			"whole run", reads, n, stuckRetries+1)
	}
}

// TestAccAuthSpread_tokenServiceMovesMidRun: the platform's token service moves while
// an apply of 24 scores runs (/auth then leads to new paths, and the old ones answer
// 404 or 410, as after an upgrade of the identity service). The links discovery found
// are a cache: the provider reads /auth again and goes on. With the token expiring
// at the move, the scores published after it need a new grant (before: 21 grants to
// the old path, 14 of 24 scores failed); with the token outliving it, the token is
// removed at the end of the run through its new removal link (before: a 404 there
// counted as removed, and the token stayed live).
func TestAccAuthSpread_tokenServiceMovesMidRun(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status int
		expire bool
	}{
		{http.StatusNotFound, true}, {http.StatusGone, true},
		{http.StatusNotFound, false}, {http.StatusGone, false},
	} {
		name := fmt.Sprintf("%d, the token outlives the move", tc.status)
		if tc.expire {
			name = fmt.Sprintf("%d, the token expires at the move", tc.status)
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			emu, proxy := newProxiedTestEmulator(t, "a token service that moves mid-run")
			ctl := emu.control(t, "moving the token service")
			const scores = 24
			config := emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "many" {
  count              = %d
  score_url          = "https://cdn.example/moved/${count.index}.sib"
  wait_for_rendering = false
}
`, scores)
			// The first publish's answer waits until the token service has moved: the move
			// falls inside the apply, with scores published before it and after it.
			release := make(chan struct{})
			held := proxy.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/scores$`, Hold: release, Times: 1})
			moved := make(chan struct{})
			go func() {
				defer close(moved)
				defer close(release)
				for deadline := time.Now().Add(2 * time.Minute); proxy.Hits(held) == 0; time.Sleep(5 * time.Millisecond) {
					if time.Now().After(deadline) {
						return
					}
				}
				ctl.MoveTokenService(tc.status)
				if tc.expire {
					ctl.Expire(true, false)
				}
			}()
			movedRequests := func(method string) int {
				n := 0
				for route, count := range ctl.Stats().Requests {
					if strings.HasPrefix(route, method+" "+emulator.MovedTokenService+"/") {
						n += count
					}
				}
				return n
			}
			// Registered before the providers' clients are closed, so it runs after: the token
			// of the apply, granted before the move, is removed through its new removal link.
			t.Cleanup(func() {
				if n := ctl.Stats().LiveTokens; n != 0 {
					t.Errorf("%d access tokens live once the providers ended, want 0: a token granted before the move "+
						"was not removed through its new removal link", n)
				}
			})
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testProviderFactories(t),
				Steps: []resource.TestStep{{
					Config: config,
					Check: func(*terraform.State) error {
						<-moved
						if n := ctl.Stats().Scores; n != scores {
							return fmt.Errorf("the platform holds %d scores after the apply, want %d", n, scores)
						}
						if tc.expire && movedRequests(http.MethodPost) == 0 {
							return fmt.Errorf("no token was granted at the moved token service: the move came too late")
						}
						return nil
					},
				}},
			})
		})
	}
}

// TestAccAuthSpread_tokenServiceGoneLeadsWithTheMove: a link of the token flow that
// answers 404 or 410 even after /auth was read again is the token service's move, and
// the lead says so, never that publishing_url or admin_url is wrong (before: "The
// address in publishing_url does not lead to the platform's API", or no lead for 410).
// /auth is read once more, not once per attempt.
func TestAccAuthSpread_tokenServiceGoneLeadsWithTheMove(t *testing.T) {
	t.Parallel()
	const config = `
data "mediaplatform_scores" "some" {
  score_url = "https://cdn.example/moved/none.sib"
}
`
	gone := func(status int) *faultproxy.Answer {
		return &faultproxy.Answer{Status: status, Header: http.Header{"Content-Type": {"application/problem+json"}},
			Body: fmt.Sprintf(`{"status": %d, "code": "auth/GONE", "message": "gone", "params": {}}`, status)}
	}
	t.Run("and /auth still leads there", func(t *testing.T) {
		t.Parallel()
		emu, proxy := newProxiedTestEmulator(t, "a token service gone from where /auth leads")
		proxy.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/ropc/default$`, Respond: gone(http.StatusGone)})
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testProviderFactories(t),
			Steps: []resource.TestStep{{
				Config: emu.providerConfig() + config,
				ExpectError: errorPattern("Unable to list scores", "The platform's token service, found through platform_url, has moved or is moving: "+
					"POST /auth/oauth2/ropc/default, where its /auth document led, answered HTTP 410, and /auth, read again, "+
					"still leads there. Run again once"),
			}},
		})
		if n := proxy.Count(http.MethodGet, `^/auth$`); n != 2 {
			t.Errorf("/auth was read %d times, want 2: once, and once again after the grant's link answered 410", n)
		}
	})
	t.Run("and the new link is gone too", func(t *testing.T) {
		t.Parallel()
		emu, proxy := newProxiedTestEmulator(t, "a token service that moves and is not there yet")
		ctl := emu.control(t, "moving the token service")
		// The identity providers answer with the old home's grant link while the token
		// service moves; its new grant link answers 404 (the upgrade is not complete).
		// The emulator answers the identity providers first and the service moves before
		// that answer reaches the provider: moved on the proxy's first sight of the
		// request, the service could move before the emulator answered it (a 404 for the
		// identity providers themselves, seen once in a full run).
		proxy.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/identity-providers$`, Times: 1,
			Handle: func(w http.ResponseWriter, r *http.Request) {
				answer := httptest.NewRecorder()
				ctl.ServeHTTP(answer, r)
				ctl.MoveTokenService(http.StatusNotFound)
				maps.Copy(w.Header(), answer.Header())
				w.WriteHeader(answer.Code)
				_, _ = w.Write(answer.Body.Bytes())
			}})
		proxy.Add(faultproxy.Fault{Method: http.MethodPost, Path: regexp.QuoteMeta(emulator.MovedTokenService) + `/oauth2/ropc/default$`,
			Respond: gone(http.StatusNotFound)})
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testProviderFactories(t),
			Steps: []resource.TestStep{{
				Config: emu.providerConfig() + config,
				ExpectError: errorPattern("Unable to list scores", "The platform's token service, found through platform_url, has moved or is moving: "+
					"POST /auth/oauth2/ropc/default, where its /auth document led, answered HTTP 404, and so did "+
					emulator.MovedTokenService+"/oauth2/ropc/default, where /auth leads when read again."),
			}},
		})
	})
}
