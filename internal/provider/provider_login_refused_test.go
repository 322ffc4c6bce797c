package provider

// A refused login, whatever words the platform's body says it in: one grant or one
// administrator login per provider process, and a lead that names the credential.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"
)

// refusalForms are the readings that answer a refused login in a form other than the
// contract's ("" for the contract's own).
var refusalForms = []string{"", "problemRefusals", "textRefusals", "nestedRefusals"}

// refusalEmulator starts an emulator answering refused logins in form.
func refusalEmulator(t *testing.T, form string) (*testEmulator, *emulator.Emulator) {
	t.Helper()
	var readings emulator.Readings
	if form != "" {
		if err := readings.Set(form); err != nil {
			t.Fatal(err)
		}
	}
	emu := newTestEmulatorWith(t, "refused logins in another form",
		emulator.Options{RenderDelay: testRenderDelay, Faults: emulator.Faults{Readings: readings}})
	return emu, emu.control(t, "grant counts")
}

// TestAccProviderLoginRefused_passwordGrantInEveryForm: an apply of 20 scores with a
// wrong password, at Terraform's default -parallelism of 10, sends the password grant
// once and leads every score's error with username/password, whatever the form of
// the token endpoint's 400. Before, a body not in RFC 6749's form was a generic 400:
// 2 to 3 grants (one per wave) and a lead blaming score_url.
func TestAccProviderLoginRefused_passwordGrantInEveryForm(t *testing.T) {
	t.Parallel()
	for _, form := range refusalForms {
		name := form
		if name == "" {
			name = "contract"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			emu, ctl := refusalEmulator(t, form)
			lead := "The platform refused the user's credentials (OAuth error invalid_grant)"
			if form == "textRefusals" {
				lead = "The platform refused the login of the platform user `username` (HTTP 400 to the password grant)"
			}
			const scores = 20
			t.Cleanup(func() { // also after a failed step, so that the count is always told
				grants := ctl.Stats().Requests["POST /auth/oauth2/ropc/default"]
				t.Logf("%s: an apply of %d scores with a wrong password sent %d password grants", name, scores, grants)
				if grants != 1 {
					t.Errorf("%s: %d password grants for an apply of %d scores, want 1", name, grants, scores)
				}
			})
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testProviderFactories(t),
				Steps: []resource.TestStep{{
					Config: providerConfigWith(emu, emulatortest.AdminPassword, "wrong-password") + fmt.Sprintf(`
resource "mediaplatform_score" "many" {
  count     = %d
  score_url = "https://cdn.example/scores/%s-${count.index}.sib"
}
`, scores, accName()),
					ExpectError: errorPattern("Unable to publish score", lead, "check username and password"),
				}},
			})
		})
	}
}

// TestAccProviderLoginRefused_adminLoginInEveryForm: twelve reads of the external
// authentication settings with a wrong admin_password send the administrator login
// once and lead with admin_username/admin_password, whatever the form of the 401.
// Before, a body not in the platform's problem form led with the platform user's
// access token, and each read sent the login again.
func TestAccProviderLoginRefused_adminLoginInEveryForm(t *testing.T) {
	t.Parallel()
	for _, form := range refusalForms {
		name := form
		if name == "" {
			name = "contract"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			emu, ctl := refusalEmulator(t, form)
			const reads = 12
			t.Cleanup(func() {
				logins := ctl.Stats().Requests["POST "+ctl.AdminURL("")+"/login"]
				t.Logf("%s: %d reads with a wrong admin_password sent %d administrator logins", name, reads, logins)
				if logins != 1 {
					t.Errorf("%s: %d administrator logins for %d reads, want 1", name, logins, reads)
				}
			})
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testProviderFactories(t),
				Steps: []resource.TestStep{{
					Config: providerConfigWith(emu, "wrong-password", emulatortest.Password) + fmt.Sprintf(`
data "mediaplatform_external_authentication" "many" {
  count = %d
}
`, reads),
					ExpectError: errorPattern("The administrator API login (admin_username/admin_password) was refused"),
				}},
			})
		})
	}
}

// TestAccProviderLoginRefused_leadPrintedOnce: an apply of 5 scores with a wrong
// password, through the terraform CLI, prints the refusal's lead once, with one
// score's error; the other 4 scores' errors are one line pointing to it. Before, each
// of the 5 printed the same lead (79 lines of errors; 51 after).
func TestAccProviderLoginRefused_leadPrintedOnce(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	emu := newTestEmulator(t)
	const scores = 5
	w := newWorkspace(t, emu, "")
	w.writeProvider(providerConfigWith(emu, emulatortest.AdminPassword, "wrong-password"), fmt.Sprintf(`
resource "mediaplatform_score" "many" {
  count     = %d
  score_url = "https://cdn.example/scores/%s-${count.index}.sib"
}
`, scores, accName()))
	expectLeadOnce(t, w, "apply", scores, "Unable to publish score",
		"The platform refused the user's credentials (OAuth error invalid_grant)", "username and password")
}

// TestAccProviderLoginRefused_adminLeadPrintedOnce: a plan reading the external
// authentication settings 5 times with a wrong admin_password prints the refusal's
// lead once; the other 4 reads' errors point to it.
func TestAccProviderLoginRefused_adminLeadPrintedOnce(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	emu := newTestEmulator(t)
	const reads = 5
	w := newWorkspace(t, emu, "")
	w.writeProvider(providerConfigWith(emu, "wrong-password", emulatortest.Password), fmt.Sprintf(`
data "mediaplatform_external_authentication" "many" {
  count = %d
}
`, reads))
	expectLeadOnce(t, w, "plan", reads, "",
		"The administrator API login (admin_username/admin_password) was refused", "admin_username and admin_password")
}

// expectLeadOnce runs terraform command in w, which must fail for objects objects with
// the same refused credential: lead once, and one line naming settings for each other
// object. summary, when set, is every error's summary.
func expectLeadOnce(t *testing.T, w *workspace, command string, objects int, summary, lead, settings string) {
	t.Helper()
	args := []string{command}
	if command == "apply" {
		args = append(args, "-auto-approve")
	}
	out, err := w.command(args...).CombinedOutput()
	if err == nil {
		t.Fatalf("terraform %s with a wrong password succeeded:\n%s", command, out)
	}
	text := string(out)
	errorsAt := strings.Index(text, "Error: ")
	if errorsAt < 0 {
		t.Fatalf("the failed %s printed no error:\n%s", command, text)
	}
	lines := strings.Count(strings.TrimSpace(text[errorsAt:]), "\n") + 1
	t.Logf("terraform %s of %d objects with a wrong password printed %d lines of errors", command, objects, lines)
	// How many objects a CLI reads once the first have failed is the CLI's to decide
	// (Terraform 1.15 stops reading the other data sources; 1.11 reads them all): each
	// error printed, one per object reached, is the lead once and a pointer to it after.
	errs := strings.Count(text, "Error: "+summary)
	if errs < 1 || errs > objects {
		t.Errorf("%d errors %q for %d objects, want one for each object reached:\n%s", errs, summary, objects, text)
	}
	if n := len(errorPattern(lead).FindAllString(text, -1)); n != 1 {
		t.Errorf("the lead is printed %d times, want once:\n%s", n, text)
	}
	pointer := errorPattern("The platform refused the same credentials (" + settings + ") as for another object " +
		"of this run: that object's error says what to check.")
	if n := len(pointer.FindAllString(text, -1)); n != errs-1 {
		t.Errorf("%d errors point to the lead, want %d (one for each other error):\n%s", n, errs-1, text)
	}
}
