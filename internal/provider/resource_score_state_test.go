package provider

// State stays true: under answers that lie (a 404 from a wrong address, a 2xx nobody
// can read, short pages, unknown statuses), failed waits and Ctrl-C, Terraform never
// forgets, duplicates or needlessly replaces a score it manages. Each test asserts on
// the state and on the emulator.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// wantScores checks that the emulator holds n scores.
func wantScores(ctl *emulator.Emulator, n int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if got := ctl.Stats().Scores; got != n {
			return fmt.Errorf("the emulator holds %d scores, want %d", got, n)
		}
		return nil
	}
}

// wantTainted checks the tainted flag of a resource in the state.
func wantTainted(address string, tainted bool) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		r, ok := s.RootModule().Resources[address]
		if !ok {
			return fmt.Errorf("%s is not in the state", address)
		}
		if r.Primary.Tainted != tainted {
			return fmt.Errorf("%s: tainted = %v, want %v", address, r.Primary.Tainted, tainted)
		}
		return nil
	}
}

// TestAccState_wrongAddressForgetsNothing points publishing_url and admin_url at
// paths the platform does not serve: refresh, apply and destroy fail naming the
// setting, the state keeps every object, and once the address is right again the plan
// is empty (nothing published twice).
func TestAccState_wrongAddressForgetsNothing(t *testing.T) {
	t.Parallel()
	emu, proxy := newProxiedTestEmulator(t, "a gateway without the settings route")
	ctl := emu.control(t, "score counts")
	resources := fmt.Sprintf(`
resource "mediaplatform_score" "aliased" {
  score_url = %q
  score_id  = "wrong-address"
}
resource "mediaplatform_score" "plain" {
  score_url = %q
}
resource "mediaplatform_external_authentication" "test" {
  domain_name = "CORP"
  enabled     = true
}
`, accScoreURL("aliased"), accScoreURL("plain"))
	wrongPublishing := providerConfigPlus(emu, fmt.Sprintf("publishing_url = %q",
		emu.adminURL()+"/apis/media.publishin;version=2;realm=global")) + resources
	right := emu.providerConfig() + resources
	wrongAdmin := strings.Replace(right, emu.adminURL(), emu.URL+"/api/v2", 1)
	settingsEnabled := func(*terraform.State) error {
		s, err := emu.client(t).GetExternalAuthentication(context.Background())
		if err != nil || !s.Enabled {
			return fmt.Errorf("external authentication is no longer enabled: %+v, %w", s, err)
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{
			{Config: right, Check: wantScores(ctl, 2)},
			{Config: wrongPublishing, ExpectError: errorPattern("The address in publishing_url does not lead to the platform's API")},
			// A wrong admin_url: the login answers 404.
			{Config: wrongAdmin, ExpectError: errorPattern("The address in admin_url does not lead to the platform's API")},
			// A gateway that lacks the settings route: the singleton can never be missing.
			{
				PreConfig: func() {
					proxy.Add(faultproxy.Fault{Path: `/externalauth$`, Respond: &faultproxy.Answer{Status: http.StatusNotFound}})
				},
				Config:      right,
				ExpectError: errorPattern("The address in admin_url does not lead to the platform's API"),
			},
			{Config: right, Destroy: true, ExpectError: errorPattern("The address in admin_url does not lead to the platform's API")},
			{
				PreConfig:   proxy.Clear,
				Config:      wrongPublishing,
				Destroy:     true,
				ExpectError: errorPattern("The address in publishing_url does not lead to the platform's API"),
			},
			{
				Config: right,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(wantScores(ctl, 2), settingsEnabled),
			},
		},
	})
	if n := ctl.Stats().Scores; n != 0 {
		t.Errorf("%d scores left after the final destroy", n)
	}
}

// TestAccState_unreadablePublishAnswer answers the publish with a truncated 2xx: the
// score with an alias is recognised under its alias, the one without by its
// score_url (the only score of that address created since the publish was sent);
// both are kept, neither is published twice, and the next plan is empty.
func TestAccState_unreadablePublishAnswer(t *testing.T) {
	t.Parallel()
	emu, proxy := newProxiedTestEmulator(t, "a truncated publish answer")
	ctl := emu.control(t, "score counts")
	proxy.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/scores$`, Body: faultproxy.Truncate(25)})
	aliased := emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "aliased" {
  score_url = %q
  score_id  = "truncated"
}
`, accScoreURL("truncated"))
	both := aliased + fmt.Sprintf(`
resource "mediaplatform_score" "plain" {
  score_url = %q
}
`, accScoreURL("plain"))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{
			{
				Config: aliased,
				Check: resource.ComposeTestCheckFunc(wantScores(ctl, 1),
					resource.TestCheckResourceAttr("mediaplatform_score.aliased", "score_id", "truncated")),
			},
			{
				Config: both,
				Check: resource.ComposeTestCheckFunc(wantScores(ctl, 2),
					resource.TestCheckResourceAttr("mediaplatform_score.plain", "score_url", accScoreURL("plain"))),
			},
			{
				PreConfig: proxy.Clear,
				Config:    both,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
	})
}

// TestAccState_failedWaitDoesNotTaint fails every status read after the publish: the
// score is healthy, so it stays in the state untainted (with a warning) and the next
// plan, once the platform answers again, is empty: nothing replaced.
func TestAccState_failedWaitDoesNotTaint(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		answer *faultproxy.Answer
		times  int
	}{
		// A rate limit asking for an hour ends the wait at once; the others fail both
		// attempts (max_retries = 1) of the first status read.
		"rate limit":   {&faultproxy.Answer{Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {"3600"}}}, 1},
		"server error": {&faultproxy.Answer{Status: http.StatusServiceUnavailable}, 2},
		"bad gateway":  {&faultproxy.Answer{Status: http.StatusBadGateway}, 2},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			emu, proxy := newProxiedTestEmulator(t, "failing status reads")
			ctl := emu.control(t, "score counts")
			proxy.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/scores/[^/]+$`, Respond: tc.answer, Times: tc.times})
			config := providerConfigPlus(emu, "max_retries = 1") + fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url = %q
}
`, accScoreURL("wait-"+strings.ReplaceAll(name, " ", "-")))
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testProviderFactories(t),
				Steps: []resource.TestStep{
					{
						Config: config,
						Check: resource.ComposeTestCheckFunc(wantScores(ctl, 1), wantTainted("mediaplatform_score.test", false),
							resource.TestCheckResourceAttr("mediaplatform_score.test", "status", "pending")),
					},
					{
						PreConfig: proxy.Clear,
						Config:    config,
						ConfigPlanChecks: resource.ConfigPlanChecks{
							PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
						},
						Check: resource.ComposeTestCheckFunc(wantScores(ctl, 1),
							resource.TestMatchResourceAttr("mediaplatform_score.test", "status", regexp.MustCompile(`^(rendering|idle)$`))),
					},
				},
			})
		})
	}
}

// TestAccState_unknownStatusFails rewrites the score's status to values the contract
// does not name: the create waits until its timeout and then fails naming the status
// (the score is tainted), instead of reporting success.
func TestAccState_unknownStatusFails(t *testing.T) {
	t.Parallel()
	emu, proxy := newProxiedTestEmulator(t, "a rewritten status")
	ctl := emu.control(t, "score counts")
	proxy.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/scores/[^/]+$`, Body: func(b []byte) []byte {
		var doc map[string]map[string]any
		if json.Unmarshal(b, &doc) != nil || doc["score"] == nil {
			return b
		}
		doc["score"]["status"] = "reticulating"
		out, _ := json.Marshal(doc)
		return out
	}})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url = %q
  timeouts {
    create = "3s"
  }
}
`, accScoreURL("queued")),
			ExpectError: errorPattern("Score rendering did not finish", `still "reticulating"`),
		}, {
			PreConfig: proxy.Clear,
			Config: emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url = %q
}
`, accScoreURL("queued")),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("mediaplatform_score.test", plancheck.ResourceActionReplace)},
			},
			Check: wantScores(ctl, 1),
		}},
	})
}

// TestAccState_publishHints: the first sentence after a failed publish fits its cause.
func TestAccState_publishHints(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		fault faultproxy.Fault
		want  []string
	}{
		"rate limit": {
			faultproxy.Fault{Method: http.MethodPost, Path: `/scores$`, Respond: &faultproxy.Answer{Status: 429, Header: http.Header{"Retry-After": {"0"}}}},
			[]string{"limiting the request rate (HTTP 429)", "-parallelism", "rate limit refused the publish"},
		},
		"server error": {
			faultproxy.Fault{Method: http.MethodPost, Path: `/scores$`, Respond: &faultproxy.Answer{Status: 500}},
			[]string{"failed with HTTP 500", "Run again later", "answered the publish with HTTP 500"},
		},
		"unknown outcome": {
			faultproxy.Fault{Method: http.MethodPost, Path: `/scores$`, Respond: &faultproxy.Answer{Status: 200, Body: `{}`}},
			[]string{"Nothing to do but apply again", "tainted and without an id", "publish was not sent again"},
		},
		"bad argument": {
			faultproxy.Fault{Method: http.MethodPost, Path: `/scores$`, Respond: &faultproxy.Answer{
				Status: 400, Header: http.Header{"Content-Type": {"application/problem+json"}},
				Body: `{"code":"publishing/BAD_ARGUMENT","message":"bad","status":400,"params":{"field":"scoreUrl"}}`,
			}},
			[]string{"refused the arguments: check score_url"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			emu, proxy := newProxiedTestEmulator(t, "failing publishes")
			proxy.Add(tc.fault)
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testProviderFactories(t),
				Steps: []resource.TestStep{{
					Config: providerConfigPlus(emu, "max_retries = 1") + fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url = %q
}
`, accScoreURL("hint")),
					ExpectError: errorPattern(append([]string{"Unable to publish score"}, tc.want...)...),
				}},
			})
		})
	}
}

// TestAccScore_interruptedPublish sends Ctrl-C to terraform while the answer to a publish is
// on its way: the score still reaches the state, and the next apply publishes nothing.
func TestAccScore_interruptedPublish(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	emu, proxy := newProxiedTestEmulator(t, "a held publish answer")
	ctl := emu.control(t, "score counts")
	release := make(chan struct{})
	proxy.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/scores$`, Hold: release})
	w := newWorkspace(t, emu, fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url = %q
}
`, accScoreURL("interrupted")))

	cmd := w.command("apply", "-auto-approve")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Once the platform holds the score and its answer is held, interrupt terraform,
	// give the stop a moment to reach the provider, then let the answer through.
	deadline := time.Now().Add(60 * time.Second)
	for ctl.Stats().Scores == 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	close(release)
	_ = cmd.Wait() // an interrupted apply exits non-zero
	if !strings.Contains(out.String(), "Interrupt received") {
		t.Fatalf("terraform was not interrupted:\n%s", out.String())
	}
	if list := w.run("state", "list"); !strings.Contains(list, "mediaplatform_score.test") {
		t.Fatalf("after Ctrl-C the state does not hold the published score:\n%s\napply output:\n%s", list, out.String())
	}
	w.run("apply", "-auto-approve")
	if n := ctl.Stats().Scores; n != 1 {
		t.Errorf("after the interrupted apply and one more, the emulator holds %d scores, want 1", n)
	}
	w.run("destroy", "-auto-approve")
}
