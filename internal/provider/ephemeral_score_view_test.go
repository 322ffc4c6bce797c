package provider

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/echoprovider"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

// ephemeralTestFactories adds the echo provider, whose echo resources store the value
// given to its provider configuration: the only way to see an ephemeral result.
func ephemeralTestFactories(t *testing.T) map[string]func() (tfprotov6.ProviderServer, error) {
	factories := testProviderFactories(t)
	factories["echo"] = echoprovider.NewProviderServer()
	return factories
}

// ephemeralVersionChecks skip a test on Terraform versions without ephemeral resources.
var ephemeralVersionChecks = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_10_0)}

// echoData is the path of an echoed ephemeral attribute in an echo resource.
func echoData(attribute string) tfjsonpath.Path {
	return tfjsonpath.New("data").AtMapKey(attribute)
}

// expiresIn checks an RFC 3339 time about d from now.
func expiresIn(d time.Duration) knownvalue.Check {
	return knownvalue.StringFunc(func(v string) error {
		at, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return err
		}
		if left := time.Until(at); left < d-time.Minute || left > d {
			return fmt.Errorf("%s is %s away, want about %s", v, left.Round(time.Second), d)
		}
		return nil
	})
}

func TestAccEphemeralScoreView_echo(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	score := publishTestScore(t, emu)
	viewerURLPattern := emu.viewerURLPattern()
	var firstURL, secondURL string
	// Every step echoes into a new echo resource: an echo resource keeps the data of
	// the apply that created it, so a new one shows the view of a later run.
	config := func(echo string) string {
		return emu.providerConfig() + fmt.Sprintf(`
ephemeral "mediaplatform_score_view" "test" {
  score          = %q
  printable      = true
  pages          = "1-2,4"
  license_string = "Licensed to ACME for rehearsal"
  lang           = "fr-CA"
  expires_in     = 600
}
provider "echo" {
  data = ephemeral.mediaplatform_score_view.test
}
resource "echo" %q {}
`, score.Alias, echo)
	}
	// viewer captures viewer_url and checks that the viewer page answers, and that
	// every earlier view still does. (Step checks run before state checks, so the
	// page is requested here.)
	viewer := func(into *string, earlier ...*string) knownvalue.Check {
		return knownvalue.StringFunc(func(v string) error {
			if !viewerURLPattern.MatchString(v) {
				return fmt.Errorf("viewer_url %q does not match %s", v, viewerURLPattern)
			}
			*into = v
			for _, url := range append([]*string{into}, earlier...) {
				if url != into && *url == v {
					return fmt.Errorf("viewer_url %s is an earlier run's, want a fresh one", v)
				}
				status, err := viewerStatus(*url)
				if err != nil {
					return fmt.Errorf("GET %s: %w", *url, err)
				}
				if status != http.StatusOK {
					return fmt.Errorf("GET %s: status %d, want 200", *url, status)
				}
			}
			return nil
		})
	}
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   ephemeralVersionChecks,
		ProtoV6ProviderFactories: ephemeralTestFactories(t),
		Steps: []resource.TestStep{
			{
				Config: config("first"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("echo.first", echoData("viewer_url"), viewer(&firstURL)),
					statecheck.ExpectKnownValue("echo.first", echoData("id"), knownvalue.StringRegexp(regexp.MustCompile(`^\S+$`))),
					statecheck.ExpectKnownValue("echo.first", echoData("created_at"), knownvalue.StringFunc(func(v string) error {
						_, err := time.Parse(time.RFC3339, v)
						return err
					})),
					statecheck.ExpectKnownValue("echo.first", echoData("expires_at"), expiresIn(10*time.Minute)),
					// The arguments come back as given.
					statecheck.ExpectKnownValue("echo.first", echoData("score"), knownvalue.StringExact(score.Alias)),
					statecheck.ExpectKnownValue("echo.first", echoData("printable"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue("echo.first", echoData("pages"), knownvalue.StringExact("1-2,4")),
					statecheck.ExpectKnownValue("echo.first", echoData("license_string"), knownvalue.StringExact("Licensed to ACME for rehearsal")),
					statecheck.ExpectKnownValue("echo.first", echoData("lang"), knownvalue.StringExact("fr-CA")),
					statecheck.ExpectKnownValue("echo.first", echoData("expires_in"), knownvalue.Int64Exact(600)),
				},
			},
			{
				Config: config("second"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("echo.second", echoData("viewer_url"), viewer(&secondURL, &firstURL)),
				},
			},
		},
	})
	// Each run opens the ephemeral view: plan and apply of both steps at least.
	if ctl := emu.optionalControl(t, "that every run created a view"); ctl != nil {
		route := "POST " + ctl.PublishingURL("") + "/scores/{id}/view"
		if stats := ctl.Stats(); stats.Requests[route] < 4 {
			t.Errorf("views created for score %s: %d, want at least 4 (%v)", score.ID, stats.Requests[route], stats.Requests)
		}
	}
}

// TestAccEphemeralScoreView_missingScore fails the run with an error that names the
// score.
func TestAccEphemeralScoreView_missingScore(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   ephemeralVersionChecks,
		ProtoV6ProviderFactories: ephemeralTestFactories(t),
		Steps: []resource.TestStep{{
			Config: emu.providerConfig() + `
ephemeral "mediaplatform_score_view" "test" {
  score = "no-such-score"
}
provider "echo" {
  data = ephemeral.mediaplatform_score_view.test
}
resource "echo" "test" {}
`,
			ExpectError: errorPattern("Unable to create score view", `Ephemeral view of score "no-such-score"`,
				"The score does not exist", "Cause:", "NOT_FOUND"),
		}},
	})
}

// TestEphemeralScoreView_validation rejects bad arguments at plan time, before any
// request, with the managed resource's rules.
func TestEphemeralScoreView_validation(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	config := func(body string) string {
		return blockConfig(emu, `ephemeral "mediaplatform_score_view" "test"`)(body) + `
provider "echo" {
  data = ephemeral.mediaplatform_score_view.test
}
resource "echo" "test" {}
`
	}
	testRejectedBeforeRequests(t, emu, config, []rejectedConfig{
		{`score = "not an alias"`, []string{"score", "score UUID or a score alias", `got "not an alias"`}},
		{"score = \"s\"\n  pages = \"3-1\"", []string{"pages", `the range "3-1" starts after it ends`}},
		{"score = \"s\"\n  pages = \"0,2\"", []string{"pages", `"0" is not a page number or range`}},
		{"score = \"s\"\n  lang = \"english please\"", []string{"lang", "BCP 47 language tag", `"english please"`}},
		{"score = \"s\"\n  expires_in = 86401", []string{"expires_in", "between 0 and 86400, got: 86401"}},
		{"score = \"s\"\n  expires_in = -1", []string{"expires_in", "between 0 and 86400, got: -1"}},
		{"score = \"s\"\n  license_string = \"" + strings.Repeat("x", maxLicenseString+1) + "\"", []string{"license_string", "at most 1024 characters", "it has 1025"}},
		{"score = \"s\"\n  renew_before = \"10m\"", []string{`An argument named "renew_before" is not expected here`}},
	})
}
