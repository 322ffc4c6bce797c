package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// addressSettings are the settings an address of a request is built from: a lead's
// first sentence names the one the failing request was built from, and no other.
var addressSettings = []string{"admin_url", "platform_url", "publishing_url", "registry_url", "publishing_service",
	"score_url", "score_id"}

// firstSentence is the detail's first sentence: up to the first full stop that ends
// a sentence (followed by a space or the end), or the end of its first line.
func firstSentence(detail string) string {
	line, _, _ := strings.Cut(detail, "\n")
	if m := regexp.MustCompile(`^.*?[.!?](\s|$)`).FindString(line); m != "" {
		return strings.TrimSpace(m)
	}
	return line
}

// settingsNamed are the address settings a text names, as whole words.
func settingsNamed(text string) []string {
	var named []string
	for _, s := range addressSettings {
		if regexp.MustCompile(`\b` + s + `\b`).MatchString(text) {
			named = append(named, s)
		}
	}
	return named
}

// checkLeadNames checks that the first error's first sentence names setting and no
// other address setting, and holds every phrase of want.
func checkLeadNames(t *testing.T, diags []planDiagnostic, setting string, want ...string) {
	t.Helper()
	for _, d := range diags {
		if d.Severity != tfprotov6.DiagnosticSeverityError {
			continue
		}
		lead := firstSentence(d.Detail)
		if named := settingsNamed(lead); len(named) != 1 || named[0] != setting {
			t.Errorf("the lead names %v, want %s alone:\n%s", named, setting, lead)
		}
		for _, w := range want {
			if !errorPattern(w).MatchString(lead) {
				t.Errorf("the lead lacks %q:\n%s", w, lead)
			}
		}
		return
	}
	t.Errorf("no error: %s", planDiagnosticsText(diags))
}

// addressMistake is a configuration with one address setting wrong, the setting the
// lead must name and what its first sentence must say.
type addressMistake struct {
	name    string
	cfg     client.Config
	setting string
	want    []string
}

// provider is the mistake's provider block.
func (m addressMistake) provider() string {
	block := providerBlock(m.cfg)
	if m.cfg.CACertPEM != "" {
		block = strings.TrimSuffix(strings.TrimRight(block, "\n"), "}") + fmt.Sprintf("  ca_cert_pem = %q\n}\n", m.cfg.CACertPEM)
	}
	return block
}

// addressMistakes are the address mistakes whose leads once blamed another setting or
// left out what is wrong: platform_url written http:// for an HTTPS platform (the 400
// of its TLS port was taken for a refused argument), a typo in publishing_service
// (blamed on admin_url), admin_url without its /api/v1 segment.
func addressMistakes(t *testing.T) []addressMistake {
	t.Helper()
	tlsEmu, caPEM := newTLSTestEmulator(t)
	plainHTTP := tlsEmu.config()
	plainHTTP.PlatformURL = strings.Replace(plainHTTP.PlatformURL, "https://", "http://", 1)
	plainHTTP.CACertPEM = caPEM
	emu := newTestEmulatorWith(t, "addresses of the wrong services", emulator.Options{RenderDelay: testRenderDelay})
	typo := emu.config()
	typo.PublishingService = "media.publishin"
	noVersion := emu.config()
	noVersion.AdminURL = strings.TrimSuffix(noVersion.AdminURL, "/api/v1")
	return []addressMistake{
		{"platform_url written http:// for an HTTPS platform", plainHTTP, "platform_url",
			[]string{"speaks HTTPS", "write platform_url with https://"}},
		{"a typo in publishing_service", typo, "publishing_service", []string{`"media.publishin"`}},
		{"admin_url without /api/v1", noVersion, "admin_url", []string{"/api/v1"}},
	}
}

// TestErrors_addressMistakesNameTheirSetting: each address mistake, met by a data
// source reading scores at plan, leads with the setting that is wrong and what is
// wrong with it, and names no other setting in that sentence; a publish that meets it
// is not said to have had its arguments refused.
func TestErrors_addressMistakesNameTheirSetting(t *testing.T) {
	t.Parallel()
	for _, m := range addressMistakes(t) {
		t.Run(m.name, func(t *testing.T) {
			diags, _ := protocolRun(t, m.provider()+`data "mediaplatform_scores" "test" {}`)
			checkLeadNames(t, diags, m.setting, m.want...)
			c, err := client.New(m.cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = c.Close(context.Background()) })
			_, err = c.PublishScore(t.Context(), client.PublishScoreInput{ScoreURL: accScoreURL(accName())})
			if err == nil {
				t.Fatal("the publish succeeded")
			}
			if hint := publishHint(err, ""); strings.Contains(hint, "refused the arguments") {
				t.Errorf("the publish's hint claims refused arguments: %s (%v)", hint, err)
			}
		})
	}
}

// TestAccErrors_addressMistakesAtPublish: the same mistakes met by a create through
// Terraform lead with their setting and what is wrong.
func TestAccErrors_addressMistakesAtPublish(t *testing.T) {
	t.Parallel()
	for _, m := range addressMistakes(t) {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			config := m.provider() + fmt.Sprintf("resource \"mediaplatform_score\" \"test\" {\n  score_url = %q\n}\n",
				accScoreURL(accName()))
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testProviderFactories(t),
				Steps: []resource.TestStep{{Config: config,
					ExpectError: regexp.MustCompile(`Unable to publish score(.|\n)*` + errorPattern(m.want...).String())}},
			})
		})
	}
}
