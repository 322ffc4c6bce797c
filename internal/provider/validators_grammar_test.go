package provider

// The plan-time validators on the contract's grammar table (internal/contracttest),
// the table the emulator's tests run too: the provider refuses at plan time exactly
// what the platform refuses.

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/contracttest"
)

func TestValidatorsFollowTheContract(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		check  func(string) string
		values []contracttest.Value
	}{
		"score_url":      {checkScoreURL, contracttest.ScoreURLs},
		"score_id":       {checkScoreAlias, contracttest.Aliases},
		"address":        {checkServerAddress, contracttest.ServerAddresses},
		"license_string": {maxCharacters(maxLicenseString).check, contracttest.LicenseStrings},
	} {
		spelled := map[string]bool{}
		if name == "address" {
			for _, s := range contracttest.ServerAddressSpellings {
				spelled[s.Value] = true
			}
		}
		for _, v := range tc.values {
			reason := tc.check(v.Value)
			if (reason == "") != (v.Valid || spelled[v.Value]) {
				t.Errorf("%s %.40q (%s): valid %v, the contract says %v (reason %q)", name, v.Value, v.Why, reason == "", v.Valid, reason)
			}
		}
	}
}

// TestServerAddressSpellings: the addresses the attribute accepts beyond the
// platform's grammar are sent as an address the platform takes, and each names the
// same address as what the platform answers back, so the state keeps its spelling.
func TestServerAddressSpellings(t *testing.T) {
	t.Parallel()
	wire := map[string]bool{}
	for _, v := range contracttest.ServerAddresses {
		if v.Valid {
			wire[v.Value] = true
			if got := wireAddress(v.Value); got != v.Value {
				t.Errorf("address %q (%s) is sent as %q, not as written", v.Value, v.Why, got)
			}
		}
	}
	for _, s := range contracttest.ServerAddressSpellings {
		if reason := checkServerAddress(s.Value); reason != "" {
			t.Errorf("address %q (%s) is refused at plan time: %s", s.Value, s.Why, reason)
		}
		got := wireAddress(s.Value)
		if got != s.Sent || !wire[got] {
			t.Errorf("address %q (%s) is sent as %q; want %q, which the platform takes (listed valid: %v)", s.Value, s.Why, got, s.Sent, wire[got])
		}
		if !sameAddress(s.Value, s.Sent) {
			t.Errorf("address %q is not the same address as %q, which is sent for it", s.Value, s.Sent)
		}
	}
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"[fd00::10]", "fd00::10", true},
		{"[fd00::10]", "fd00:0:0::10", true},
		{"FD00::10", "fd00::10", true},
		{"[fd00::10]", "fd00::11", false},
		{"10.0.0.9", "10.0.0.9", true},
		// An IPv4-mapped IPv6 address names the IPv4 node (RFC 4291 §2.5.5.2), as the
		// request hosts take it (client.HostKey: one rule for every host).
		{"10.0.0.9", "::ffff:10.0.0.9", true},
		{"dc1.corp.example", "dc1.corp.example", true},
		{"DC1.Corp.Example", "dc1.corp.example", true},
		{"dc1.corp.example", "dc1.corp.example.com", false},
		{"dc1.corp.example", "dc2.corp.example", false},
		{"[dc1]", "dc1", false},
	} {
		if got := sameAddress(tc.a, tc.b); got != tc.same {
			t.Errorf("sameAddress(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
}

// TestGrammar_refusedAtPlan: values the platform refuses fail at plan time, naming
// the attribute, before any request; 600 "é" pass.
func TestGrammar_refusedAtPlan(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	config := func(body string) string { return emu.providerConfig() + body }
	testRejectedBeforeRequests(t, emu, config, []rejectedConfig{
		{`resource "mediaplatform_score" "test" {
  score_url = "https://cdn.example/My Score.sib"
}`, []string{"score_url", "must be percent-encoded: a space is %20", `replace(urlencode("My Score.sib"), "+", "%20")`}},
		{`resource "mediaplatform_score" "test" {
  score_url = "https://cdn.example/partitur-é.sib"
}`, []string{"score_url", `'é' at position 30 must be percent-encoded`}},
		{`resource "mediaplatform_score" "test" {
  score_url = "https://cdn.example/a.sib"
  score_id  = "4f0c8a3e1b2c4d5e8f90123456789abc"
}`, []string{"score_id", "is a UUID"}},
		{`resource "mediaplatform_score" "test" {
  score_url = "https://cdn.example/a.sib"
  score_id  = ".."
}`, []string{"score_id", "path segment of its own"}},
		{`resource "mediaplatform_external_authentication" "test" {
  domain_name = "CORP"
  enabled     = true
  servers     = [{ address = "ldap://dc1:389", port = 389 }]
}`, []string{"address", "has a scheme"}},
		{`resource "mediaplatform_external_authentication" "test" {
  domain_name = "CORP"
  enabled     = true
  servers     = [{ address = "dc1 .corp", port = 389 }]
}`, []string{"address", "contains a space"}},
	})
}

// TestAccGrammar_licenseStringCountsCharacters: a license_string of 600 "é" (1200
// bytes) is accepted at plan time and by the platform.
func TestAccGrammar_licenseStringCountsCharacters(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	license := strings.Repeat("é", 600)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url          = %q
  wait_for_rendering = false
}
resource "mediaplatform_score_view" "test" {
  score          = mediaplatform_score.test.id
  license_string = %q
}
`, accScoreURL("licensed"), license),
			Check: resource.TestCheckResourceAttr("mediaplatform_score_view.test", "license_string", license),
		}},
	})
}

// TestAccGrammar_scoreURLHintPublishesASpace does what score_url's hint for a space
// says: the expression the message gives, evaluated by Terraform on "My Score.sib",
// passes the validator and publishes an address whose path decodes to a space (the
// hint once said urlencode(), which writes "+", a plus sign in a URL's path).
func TestAccGrammar_scoreURLHintPublishesASpace(t *testing.T) {
	t.Parallel()
	reason := checkScoreURL("https://cdn.example/My Score.sib")
	hint := regexp.MustCompile(`"https://host/(\$\{.*\})"`).FindStringSubmatch(reason)
	if hint == nil {
		t.Fatalf("the hint gives no expression for a file name: %q", reason)
	}
	emu := newTestEmulator(t)
	alias := accName()
	published := func(*terraform.State) error {
		s, err := emu.client(t).GetScore(t.Context(), alias)
		if err != nil {
			return err
		}
		u, err := url.Parse(s.ScoreURL)
		if err != nil {
			return err
		}
		if u.Path != "/scores/My Score.sib" {
			return fmt.Errorf("the platform holds %q, whose path is %q, not /scores/My Score.sib", s.ScoreURL, u.Path)
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: emu.providerConfig() + fmt.Sprintf(`resource "mediaplatform_score" "test" {
  score_id  = %q
  score_url = "https://cdn.example/scores/%s"
}
`, alias, hint[1]),
			Check: published,
		}},
	})
}
