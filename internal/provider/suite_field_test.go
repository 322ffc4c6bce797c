package provider

// The provider on every legal reading of the specification (contract §V), behind
// gateways that answer in the platform's place, and with the platform's clock away
// from this machine's.

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// fieldPlatformScores is how many scores the platform of the readings test holds
// before the configuration adds its own: more than one list page, so that a walk
// over pages that do not advance would show.
const fieldPlatformScores = 120

// TestAccField_everyReading applies, re-plans and destroys one configuration with
// scores, a view, the settings, mediaplatform_scores and mediaplatform_score_count on
// the emulator under each reading of contract §V. The re-plans are those the test
// framework makes after every apply, a plan without and one with a refresh, each of
// which must be empty; the commands run in an inProcessWorkspace, without the
// framework's other commands, since the cases are many.
func TestAccField_everyReading(t *testing.T) {
	t.Parallel()
	for _, reading := range append([]string{"contract"}, emulator.ReadingNames()...) {
		t.Run(reading, func(t *testing.T) {
			t.Parallel()
			if !huntFieldUnaffected[reading] {
				skipIfHuntOpen(t, reading)
			}
			// The platform's own scores are seeded (created before the run, idle), not
			// published through the API: what is read under the reading is the run's.
			seed := &emulator.Seed{}
			for i := range fieldPlatformScores {
				seed.Scores = append(seed.Scores, emulator.SeedScore{ScoreURL: fmt.Sprintf("https://cdn.example/platform/%03d.sib", i)})
			}
			emu := newTestEmulatorWith(t, "a reading of the specification", emulator.Options{RenderDelay: testRenderDelay, Seed: seed})
			ctl := emu.control(t, "readings")
			var readings emulator.Readings
			if reading != "contract" {
				if err := readings.Set(reading); err != nil {
					t.Fatal(err)
				}
			}
			ctl.SetFaults(emulator.Faults{Readings: readings})
			alias := "field-" + accName()
			resources := fmt.Sprintf(`
resource "mediaplatform_external_authentication" "test" {
  domain_name = "CORP"
  enabled     = true
  servers     = [{ address = "dc1.corp.example", port = 636 }, { address = "dc2.corp.example", port = 389, enabled = false }]
}
resource "mediaplatform_score" "aliased" {
  score_url = %[1]q
  score_id  = %[2]q
}
resource "mediaplatform_score" "plain" {
  score_url = %[3]q
}
resource "mediaplatform_score" "nowait" {
  score_url          = %[5]q
  wait_for_rendering = false
}
resource "mediaplatform_score_view" "test" {
  score = mediaplatform_score.aliased.score_id
}
data "mediaplatform_scores" "all" {
  depends_on = [mediaplatform_score.aliased, mediaplatform_score.plain, mediaplatform_score.nowait]
}
data "mediaplatform_score_count" "tail" {
  depends_on = [mediaplatform_score.aliased, mediaplatform_score.plain, mediaplatform_score.nowait]
  offset     = %[4]d
}
data "mediaplatform_score_count" "plain" {
  depends_on = [mediaplatform_score.plain]
  score_url  = %[3]q
}
data "mediaplatform_health" "test" {}
`, accScoreURL(alias), alias, accScoreURL(alias+"-plain"), fieldPlatformScores-3, accScoreURL(alias+"-nowait"))
			w := newInProcessWorkspace(t, emu.providerConfig(), resources)
			w.apply()
			w.expectEmptyPlans()
			w.checkState(
				statecheck.ExpectKnownValue("data.mediaplatform_scores.all", tfjsonpath.New("scores"),
					knownvalue.ListSizeExact(fieldPlatformScores+3)),
				statecheck.ExpectKnownValue("data.mediaplatform_score_count.tail", tfjsonpath.New("total"), knownvalue.Int64Exact(6)),
				statecheck.ExpectKnownValue("mediaplatform_score.nowait", tfjsonpath.New("score_url"),
					knownvalue.StringExact(accScoreURL(alias+"-nowait"))),
				statecheck.ExpectKnownValue("data.mediaplatform_health.test", tfjsonpath.New("healthy"), knownvalue.Bool(true)),
				statecheck.ExpectKnownValue("data.mediaplatform_score_count.plain", tfjsonpath.New("total"), knownvalue.Int64Exact(1)),
				statecheck.ExpectKnownValue("mediaplatform_external_authentication.test", tfjsonpath.New("domain_name"),
					knownvalue.StringExact("CORP")),
				statecheck.ExpectKnownValue("mediaplatform_score.aliased", tfjsonpath.New("status"), knownvalue.StringExact("idle")),
			)
			w.destroy()
			if n := ctl.Stats().Scores; n != fieldPlatformScores {
				t.Errorf("after destroy the platform holds %d scores, want the %d it had", n, fieldPlatformScores)
			}
		})
	}
}

// blockedPage is what a WAF, a captive portal or a catch-all front end answers in
// the platform's place.
var blockedPage = &faultproxy.Answer{
	Status: http.StatusOK, Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}},
	Body: "<!DOCTYPE html><html><head><title>Request blocked</title></head><body>Request blocked.</body></html>",
}

// TestAccField_htmlDeleteForgetsNothing: a WAF answers DELETE with a 200 page. The
// destroy fails naming what answered, the score stays in the state and on the
// platform, and once the WAF lets DELETE through the destroy completes.
func TestAccField_htmlDeleteForgetsNothing(t *testing.T) {
	t.Parallel()
	emu, proxy := newProxiedTestEmulator(t, "a WAF in front of the platform")
	ctl := emu.control(t, "score counts")
	config := emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url = %q
}
`, accScoreURL("waf"))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{
			{Config: config},
			{
				PreConfig: func() {
					proxy.Add(faultproxy.Fault{Method: http.MethodDelete, Path: `/scores/`, Respond: blockedPage})
				},
				Config:  config,
				Destroy: true,
				// publishing_url is unset: its address is admin_url's, the setting named.
				ExpectError: errorPattern("Unable to delete score", "The address in admin_url answered with an HTML page",
					"proxy", "still exists"),
			},
			{
				PreConfig: func() {
					if n := ctl.Stats().Scores; n != 1 {
						t.Errorf("after the blocked destroy the platform holds %d scores, want 1", n)
					}
					proxy.Clear()
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
		CheckDestroy: func(*terraform.State) error {
			if n := ctl.Stats().Scores; n != 0 {
				return fmt.Errorf("after destroy the platform holds %d scores", n)
			}
			return nil
		},
	})
}

// TestAccField_htmlPageLeadsWithItsCause: a captive portal answers every request
// with a 200 HTML page: the error says so, naming the setting, instead of quoting a
// JSON parser.
func TestAccField_htmlPageLeadsWithItsCause(t *testing.T) {
	t.Parallel()
	emu, proxy := newProxiedTestEmulator(t, "a captive portal")
	proxy.Add(faultproxy.Fault{Respond: blockedPage})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: emu.providerConfig() + `
data "mediaplatform_health" "test" {}
`,
			ExpectError: regexp.MustCompile(`The address in platform_url answered with an HTML page \(HTTP 200\), not the\s+platform's JSON`),
		}},
	})
}

// TestAccField_lostPublishAnswerAdoptsItsScore: without an alias, a publish whose
// answer is lost (cut, or emptied) is recovered by its score_url: the state holds the
// one score this apply created, with no duplicate, and the next plan is empty.
func TestAccField_lostPublishAnswerAdoptsItsScore(t *testing.T) {
	t.Parallel()
	for name, fault := range map[string]faultproxy.Fault{
		"truncated": {Method: http.MethodPost, Path: `/scores$`, Body: faultproxy.Truncate(20), Times: 1},
		"empty 200": {Method: http.MethodPost, Path: `/scores$`, Body: faultproxy.Replace(""), Times: 1},
		"no answer": {Method: http.MethodPost, Path: `/scores$`, Drop: true, Times: 1},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			emu, proxy := newProxiedTestEmulator(t, "a lost publish answer")
			ctl := emu.control(t, "score counts")
			proxy.Add(fault)
			config := emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url = %q
}
`, accScoreURL("lost"))
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testProviderFactories(t),
				Steps: []resource.TestStep{
					{
						Config: config,
						Check: func(*terraform.State) error {
							if n := ctl.Stats().Scores; n != 1 {
								return fmt.Errorf("the platform holds %d scores, want 1", n)
							}
							return nil
						},
					},
				},
			})
		})
	}
}

// TestAccField_twoStatesOneAlias: two states configure the same alias and score_url. The
// second one's publish gets a 502 (before any effect) or loses its answer (after the
// platform refused it with 409): the provider must not adopt the first state's score,
// which it would then destroy with its own.
func TestAccField_twoStatesOneAlias(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	direct := newTestEmulatorWith(t, "two states and a gateway", emulator.Options{RenderDelay: testRenderDelay})
	ctl := direct.control(t, "score counts")
	proxy := faultproxy.Start(direct.URL)
	t.Cleanup(proxy.Close)
	proxied := servedTestEmulator(t, direct.emu, proxy.URL)
	alias := "shared-" + accName()
	config := fmt.Sprintf(`
resource "mediaplatform_score" "shared" {
  score_url = %q
  score_id  = %q
}
`, accScoreURL(alias), alias)

	first := newWorkspace(t, direct, config)
	first.run("apply", "-auto-approve")
	theirs := first.run("state", "show", "mediaplatform_score.shared")
	// The first state's score is older than any publish of the second by more than the
	// clock tolerance, as a score published minutes before would be.
	time.Sleep(client.ClockTolerance + 500*time.Millisecond)

	for name, fault := range map[string]faultproxy.Fault{
		"502 before any effect": {Method: http.MethodPost, Path: `/scores$`, Respond: &faultproxy.Answer{Status: http.StatusBadGateway}},
		"answer lost":           {Method: http.MethodPost, Path: `/scores$`, Drop: true},
	} {
		proxy.Clear()
		proxy.Add(fault)
		second := newWorkspace(t, proxied, config)
		out, err := second.command("apply", "-auto-approve").CombinedOutput()
		if err == nil || !strings.Contains(string(out), "Unable to publish score") || !strings.Contains(string(out), "already used by score") {
			t.Fatalf("%s: the second state's apply: %v\n%s", name, err, out)
		}
		if list := second.run("state", "list"); strings.TrimSpace(list) != "" {
			t.Fatalf("%s: the second state adopted the first state's score:\n%s", name, list)
		}
	}
	if n := ctl.Stats().Scores; n != 1 {
		t.Errorf("the platform holds %d scores, want the first state's one", n)
	}
	if out := first.run("plan", "-detailed-exitcode"); !strings.Contains(out, "No changes") {
		t.Errorf("the first state's plan:\n%s", out)
	}
	if now := first.run("state", "show", "mediaplatform_score.shared"); now != theirs {
		t.Errorf("the first state's score changed:\n%s\nwas:\n%s", now, theirs)
	}
	first.run("destroy", "-auto-approve")
}

// TestAccField_catchAllDestroy: with -refresh=false, a destroy whose publishing_url was
// mistyped to a catch-all web front end (200 and a page for every path) deletes
// nothing, says so and forgets nothing.
func TestAccField_catchAllDestroy(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	emu := newTestEmulator(t)
	ctl := emu.control(t, "score counts")
	resources := fmt.Sprintf(`
resource "mediaplatform_score" "a" {
  score_url = %q
}
resource "mediaplatform_score" "b" {
  score_url = %q
}
`, accScoreURL("catch-all-a"), accScoreURL("catch-all-b"))
	w := newWorkspace(t, emu, resources)
	w.run("apply", "-auto-approve")

	frontEnd := faultproxy.StartRecorder()
	t.Cleanup(frontEnd.Close)
	frontEnd.SetAnswer(*blockedPage)
	w.writeWith(fmt.Sprintf("publishing_url = %q", frontEnd.URL+"/publishing"), resources)
	out, err := w.command("destroy", "-auto-approve", "-refresh=false").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "answered with an HTML page") || strings.Contains(string(out), "Destroy complete") {
		t.Fatalf("destroy through a catch-all front end: %v\n%s", err, out)
	}
	if list := w.run("state", "list"); !strings.Contains(list, "mediaplatform_score.a") || !strings.Contains(list, "mediaplatform_score.b") {
		t.Errorf("the state forgot scores that still exist:\n%s", list)
	}
	if n := ctl.Stats().Scores; n != 2 {
		t.Errorf("the platform holds %d scores, want 2", n)
	}
	w.write(resources)
	w.run("destroy", "-auto-approve")
	if n := ctl.Stats().Scores; n != 0 {
		t.Errorf("after the destroy with the right address the platform holds %d scores", n)
	}
}

// TestAccField_interruptedRefresh sends Ctrl-C while a plan refreshes many scores: one
// "Interrupted" error, and nothing about the settings.
func TestAccField_interruptedRefresh(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	emu, proxy := newProxiedTestEmulator(t, "held score reads")
	var resources strings.Builder
	for i := range 8 {
		fmt.Fprintf(&resources, "resource \"mediaplatform_score\" \"s%d\" {\n  score_url = %q\n}\n", i, accScoreURL(fmt.Sprintf("ctrl-c-%d", i)))
	}
	w := newWorkspace(t, emu, resources.String())
	w.writeWith(`refresh_strategy = "individual"`, resources.String())
	w.run("apply", "-auto-approve")

	release := make(chan struct{})
	defer close(release)
	held := proxy.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/scores/[^/]+$`, Hold: release})
	cmd := w.command("plan")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for proxy.Hits(held) < 8 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	got := out.String()
	if n := strings.Count(got, "Error: Interrupted"); n != 1 || strings.Contains(got, "provider settings") ||
		strings.Contains(got, "Unable to read score") {
		t.Errorf("an interrupted refresh printed %d Interrupted errors, or blamed the settings:\n%s", n, got)
	}
	proxy.Clear()
	w.run("destroy", "-auto-approve")
}

// TestAccField_viewOnThePlatformsClock: a view's remaining lifetime is judged on the
// platform's clock. Three hours behind, a view of two hours is not replaced by the
// plans after the apply, -refresh=false ones included (this machine's clock would say
// it expired an hour ago); one hour ahead, a view of 20 s with renew_before 15 s is
// replaced by a plan 7 s later (this machine's clock would give it an hour more).
func TestAccField_viewOnThePlatformsClock(t *testing.T) {
	t.Parallel()
	t.Run("platform 3 h behind", func(t *testing.T) {
		t.Parallel()
		emu := newTestEmulatorWith(t, "a platform clock away from this machine's", emulator.Options{
			RenderDelay: testRenderDelay, Faults: emulator.Faults{ClockOffsetSeconds: -3 * 3600},
		})
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testProviderFactories(t),
			Steps: []resource.TestStep{{
				// The test harness plans after the apply with and without refresh: both empty.
				Config: emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score_view" "test" {
  score      = %q
  expires_in = 7200
}
`, publishTestScore(t, emu).Alias),
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			}},
		})
	})
	t.Run("platform 1 h ahead", func(t *testing.T) {
		t.Parallel()
		emu := newTestEmulatorWith(t, "a platform clock away from this machine's", emulator.Options{
			RenderDelay: testRenderDelay, Faults: emulator.Faults{ClockOffsetSeconds: 3600},
		})
		config := emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score_view" "test" {
  score        = %q
  expires_in   = 20
  renew_before = "15s"
}
`, publishTestScore(t, emu).Alias)
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testProviderFactories(t),
			Steps: []resource.TestStep{
				{Config: config},
				{
					PreConfig: func() { time.Sleep(7 * time.Second) },
					Config:    config,
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("mediaplatform_score_view.test", plancheck.ResourceActionReplace),
					}},
				},
			},
		})
	})
}

// TestAccField_retryAfterDateOnThePlatformsClock: a platform two hours ahead of this
// machine, rate limited, gives Retry-After as a date on its own clock. The apply of
// ten scores and its destroy succeed: each date is judged against the Date of the
// answer that carries it (this machine's clock read a wait of two hours and gave up).
func TestAccField_retryAfterDateOnThePlatformsClock(t *testing.T) {
	t.Parallel()
	emu := newTestEmulatorWith(t, "Retry-After dates on a platform clock two hours ahead", emulator.Options{
		RenderDelay: testRenderDelay, Faults: emulator.Faults{ClockOffsetSeconds: 2 * 3600, RateLimitPerSecond: 8,
			Readings: emulator.Readings{RetryAfterDate: true}},
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  count     = 10
  score_url = "%s-${count.index}.sib"
}
`, strings.TrimSuffix(accScoreURL("date-"+accName()), ".sib")),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("mediaplatform_score.test[9]", tfjsonpath.New("status"), knownvalue.StringExact("idle")),
			},
		}},
	})
}

// TestAccField_platformClockSteps: the platform's clock steps two hours forward while
// the first of 30 scores render, so those scores read as having taken two hours. The
// apply ends with every score rendered, each create within its timeout of 40 s: the
// rendering time the shared wait learns is bounded by what this machine's clock saw.
func TestAccField_platformClockSteps(t *testing.T) {
	t.Parallel()
	emu := newTestEmulatorWith(t, "a platform clock that steps", emulator.Options{RenderDelay: 500 * time.Millisecond})
	ctl := emu.control(t, "a clock step")
	stepped := make(chan struct{})
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	go func() {
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if ctl.Stats().Scores >= 3 {
					ctl.SetFaults(emulator.Faults{ClockOffsetSeconds: 2 * 3600})
					close(stepped)
					return
				}
			}
		}
	}()
	var checks []statecheck.StateCheck
	for i := range 30 {
		checks = append(checks, statecheck.ExpectKnownValue(fmt.Sprintf("mediaplatform_score.test[%d]", i),
			tfjsonpath.New("status"), knownvalue.StringExact("idle")))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  count     = 30
  score_url = "%s-${count.index}.sib"
  timeouts {
    create = "40s"
  }
}
`, strings.TrimSuffix(accScoreURL("step-"+accName()), ".sib")),
			ConfigStateChecks: checks,
			Check: func(*terraform.State) error {
				select {
				case <-stepped:
					return nil
				default:
					return fmt.Errorf("the platform's clock never stepped")
				}
			},
		}},
	})
}

// TestAccField_tlsErrorsByCause: with ca_cert_pem naming the right authority, a
// certificate for other names and an expired one each lead with their own cause,
// not with the advice to set ca_cert_pem.
func TestAccField_tlsErrorsByCause(t *testing.T) {
	t.Parallel()
	t.Run("issued for other names", func(t *testing.T) {
		t.Parallel()
		emu, certPEM := newTLSTestEmulator(t)
		// The test server's certificate names example.com, 127.0.0.1 and ::1: not localhost.
		byName := servedTestEmulator(t, emu.control(t, "a TLS listener"), strings.Replace(emu.URL, "127.0.0.1", "localhost", 1))
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testProviderFactories(t),
			Steps: []resource.TestStep{{
				Config:      providerConfigPlus(byName, fmt.Sprintf("ca_cert_pem = %q", certPEM)) + tlsTestResources,
				ExpectError: errorPattern("is issued for other names (example.com, *.example.com, 127.0.0.1, ::1), not for localhost"),
			}},
		})
	})
	t.Run("expired", func(t *testing.T) {
		t.Parallel()
		emu, certPEM := newExpiredTLSTestEmulator(t)
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testProviderFactories(t),
			Steps: []resource.TestStep{{
				Config:      providerConfigPlus(emu, fmt.Sprintf("ca_cert_pem = %q", certPEM)) + tlsTestResources,
				ExpectError: errorPattern("expired at 2020-01-02T00:00:00Z", "the platform must renew its certificate, or this machine's clock is wrong"),
			}},
		})
	})
}

// newExpiredTLSTestEmulator serves an emulator over TLS with a self-signed
// certificate for 127.0.0.1 that expired on 2020-01-02, and returns it with the
// certificate in PEM form.
func newExpiredTLSTestEmulator(t *testing.T) (*testEmulator, string) {
	t.Helper()
	if externalPlatform != nil {
		t.Skip("needs the emulator's control surface: a TLS listener with an expired certificate")
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "expired platform"},
		NotBefore: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), NotAfter: time.Date(2020, 1, 2, 0, 0, 0, 0, time.UTC),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	srv := emulatortest.ServeTLS(t, emulator.New(emulator.Options{RenderDelay: testRenderDelay}),
		&tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}, MinVersion: tls.VersionTLS12})
	return servedTestEmulator(t, srv.Emulator, srv.URL), string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

// TestAccField_deleteAcceptedReplacesAnAliasedScore: on a platform that answers a
// delete 202 Accepted and keeps the score (and its alias) for a while, replacing an
// aliased score (a new score_url) succeeds: the delete returns once the score is gone
// (issue 36 item 7; before, the create met a 409 and the advice to import the score
// being deleted).
func TestAccField_deleteAcceptedReplacesAnAliasedScore(t *testing.T) {
	t.Parallel()
	emu := newTestEmulatorWith(t, "a platform that accepts deletes", emulator.Options{RenderDelay: testRenderDelay})
	emu.control(t, "readings").SetFaults(emulator.Faults{Readings: emulator.Readings{DeleteAccepted: true}})
	alias := "accepted-" + accName()
	config := func(url string) string {
		return emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "aliased" {
  score_url          = %q
  score_id           = %q
  wait_for_rendering = false
}
`, url, alias)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{
			{Config: config(accScoreURL(alias))},
			{
				Config: config(accScoreURL(alias + "-2")),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("mediaplatform_score.aliased", plancheck.ResourceActionReplace)},
				},
			},
		},
	})
}
