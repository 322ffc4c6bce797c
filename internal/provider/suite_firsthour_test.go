package provider

// The first sentence a user reads, for the mistakes a newcomer makes and the faults
// a first run meets: a wrong application or user credential, two forms of the
// application credential, a bad value in an environment variable, https:// against a
// plain-HTTP server, a platform that stops answering in the middle of an apply, and
// a view that expired between two runs.

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// TestFirstHour_oauthErrorsLeadWithTheirCause: invalid_client blames the
// application credential, invalid_grant the user's.
func TestFirstHour_oauthErrorsLeadWithTheirCause(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	cfg := emu.config()
	for name, tc := range map[string]struct {
		credentials string
		want        string
	}{
		"wrong client_secret": {fmt.Sprintf("client_id = %q\n  client_secret = \"wrong\"\n  username = %q\n  password = %q", cfg.ClientID, cfg.Username, cfg.Password),
			"The platform refused the application credential (OAuth error invalid_client)"},
		"wrong basic_token": {fmt.Sprintf("basic_token = \"d3Jvbmc6d3Jvbmc=\"\n  username = %q\n  password = %q", cfg.Username, cfg.Password),
			"The platform refused the application credential (OAuth error invalid_client)"},
		"wrong password": {fmt.Sprintf("client_id = %q\n  client_secret = %q\n  username = %q\n  password = \"wrong\"", cfg.ClientID, cfg.ClientSecret, cfg.Username),
			"The platform refused the user's credentials (OAuth error invalid_grant)"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			expectPlanError(t, fmt.Sprintf(`
provider "mediaplatform" {
  platform_url   = %q
  publishing_url = %q
  %s
}
data "mediaplatform_health" "test" {}
`, emu.platformURL(), emu.publishingURL(), tc.credentials), errorPattern("Error: Unable to read service health", tc.want))
		})
	}
}

// TestFirstHour_httpsToPlainHTTP: an https:// address whose server speaks plain
// HTTP says so.
func TestFirstHour_httpsToPlainHTTP(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	emu.control(t, "a local plain-HTTP listener")
	cfg := emu.config()
	platform := strings.Replace(cfg.PlatformURL, "http://", "https://", 1)
	expectPlanError(t, fmt.Sprintf(`
provider "mediaplatform" {
  platform_url   = %q
  publishing_url = %q
  client_id      = %q
  client_secret  = %q
  username       = %q
  password       = %q
}
data "mediaplatform_health" "test" {}
`, platform, emu.publishingURL(), cfg.ClientID, cfg.ClientSecret, cfg.Username, cfg.Password),
		errorPattern("answered in plain HTTP, not HTTPS: write platform_url with http://"))
}

// TestAccFirstHour_firstSentencesFromTheEnvironment: what comes from the environment is named as
// such: a basic_token in the configuration beside client_id in the environment is a
// conflict, and a bad MEDIAPLATFORM_REFRESH_STRATEGY leads with the variable, its
// value and the allowed values, also without a provider block.
func TestAccFirstHour_firstSentencesFromTheEnvironment(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	emu := newTestEmulator(t)
	run := func(w *workspace, env ...string) string {
		cmd := w.command("plan")
		cmd.Env = append(cmd.Env, env...)
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Fatalf("the plan succeeded:\n%s", out)
		}
		return string(out)
	}

	w := newWorkspace(t, emu, "")
	cfg := emu.config()
	w.writeProvider(fmt.Sprintf(`
provider "mediaplatform" {
  platform_url   = %q
  publishing_url = %q
  basic_token    = "dGVycmFmb3JtOnRlcnJhZm9ybS1zZWNyZXQ="
  username       = %q
  password       = %q
}
`, cfg.PlatformURL, emu.publishingURL(), cfg.Username, cfg.Password), "data \"mediaplatform_health\" \"test\" {}\n")
	out := run(w, "MEDIAPLATFORM_CLIENT_ID=terraform")
	if !errorPattern("Error: Conflicting application credentials", "basic_token (in the provider configuration) and "+
		"client_id (from the environment variable MEDIAPLATFORM_CLIENT_ID) are both set").MatchString(out) {
		t.Errorf("basic_token beside MEDIAPLATFORM_CLIENT_ID:\n%s", out)
	}

	bare := newWorkspace(t, emu, "")
	writeFile(t, bare.dir+"/main.tf", `
terraform {
  required_providers {
    mediaplatform = {
      source = "mediaplatform/mediaplatform"
    }
  }
}
data "mediaplatform_health" "test" {}
`)
	out = run(bare, "MEDIAPLATFORM_REFRESH_STRATEGY=fast", "MEDIAPLATFORM_PUBLISHING_URL="+emu.publishingURL())
	if !errorPattern(`The environment variable MEDIAPLATFORM_REFRESH_STRATEGY is "fast": it must be "auto" or "individual"`).MatchString(out) ||
		strings.Contains(out, "can never work") {
		t.Errorf("MEDIAPLATFORM_REFRESH_STRATEGY=fast without a provider block:\n%s", out)
	}

	// A misspelt variable: the warning names it, one line, and the missing setting's
	// lead names the variable meant.
	settings := newWorkspace(t, emu, "")
	writeFile(t, settings.dir+"/main.tf", `
terraform {
  required_providers {
    mediaplatform = {
      source = "mediaplatform/mediaplatform"
    }
  }
}
resource "mediaplatform_external_authentication" "test" {
  domain_name = "CORP"
  enabled     = true
}
`)
	out = run(settings, "MEDIAPLATFORM_ADMIN_URL="+cfg.AdminURL, "MEDIAPLATFORM_ADMIN_USERNAM=admin",
		"MEDIAPLATFORM_ADMIN_PASSWORD="+cfg.AdminPassword)
	for _, want := range []*regexp.Regexp{
		errorPattern("Warning: Unknown MEDIAPLATFORM_ environment variable", "MEDIAPLATFORM_ADMIN_USERNAM is set, but the "+
			"provider reads no such variable: did you mean MEDIAPLATFORM_ADMIN_USERNAME?"),
		errorPattern(`The provider setting "admin_username" is needed here and is not set`, "The environment variable "+
			"MEDIAPLATFORM_ADMIN_USERNAM is set, which the provider does not read: did you mean MEDIAPLATFORM_ADMIN_USERNAME?"),
	} {
		if !want.MatchString(out) {
			t.Errorf("MEDIAPLATFORM_ADMIN_USERNAM instead of MEDIAPLATFORM_ADMIN_USERNAME lacks %q:\n%s", want, out)
		}
	}
}

// TestAccFirstHour_platformGoneDuringApply: the platform stops answering once a score is
// published: the apply ends with a warning that names the score left unconfirmed in
// its summary and leads with the cause.
func TestAccFirstHour_platformGoneDuringApply(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	emu, proxy := newProxiedTestEmulator(t, "a platform that stops answering")
	proxy.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/scores/[^/]+$`, Drop: true})
	w := newWorkspace(t, emu, fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url = %q
  score_id  = "gone-midway"
}
`, accScoreURL("gone-midway")))
	w.writeWith("max_retries = 1", fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url = %q
  score_id  = "gone-midway"
}
`, accScoreURL("gone-midway")))
	out := w.run("apply", "-auto-approve")
	if !errorPattern(`Warning: Score "gone-midway" published, its rendering unconfirmed`, "The connection to",
		"failed", `Score`, `published, but waiting for its rendering stopped`, "the next plan reads its status again").MatchString(out) {
		t.Errorf("the apply's warning:\n%s", out)
	}
	proxy.Clear()
	w.run("destroy", "-auto-approve")
}

// TestAccFirstHour_expiredViewAdvice: a view that expired between two runs is replaced with advice
// that helps: a longer expires_in, not a shorter renew_before.
func TestAccFirstHour_expiredViewAdvice(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	emu := newTestEmulator(t)
	alias := publishTestScore(t, emu).Alias
	w := newWorkspace(t, emu, fmt.Sprintf(`
resource "mediaplatform_score_view" "test" {
  score        = %q
  expires_in   = 1
  renew_before = "1ms"
}
`, alias))
	w.run("apply", "-auto-approve")
	// Until the platform has the view expired: its viewer answers no more.
	viewerURL, _ := w.attribute("mediaplatform_score_view.test", "viewer_url").(string)
	if !waitFor(time.Minute, func() bool { status, err := viewerStatus(viewerURL); return err == nil && status != http.StatusOK }) {
		t.Fatalf("the view at %q did not expire within a minute of its 1 s", viewerURL)
	}
	out := w.run("plan")
	if !errorPattern("Warning: Score view will be replaced", "expired", "Raise expires_in").MatchString(out) ||
		strings.Contains(out, "Lower renew_before") {
		t.Errorf("the plan's warning about an expired view:\n%s", out)
	}
}
