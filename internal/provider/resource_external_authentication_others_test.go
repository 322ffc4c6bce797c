package provider

// Other writers of the external authentication settings (issue 38 item 3) and the
// readings of the settings answers (issue 36 items 1 and 2): nothing another
// administrator did disappears without a plan or an error showing it.

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// whenPlanned is a plan check that runs do once the plan is saved and before it is
// applied: what another administrator does between `terraform plan -out` and the
// apply of that plan.
type whenPlanned func()

func (f whenPlanned) CheckPlan(context.Context, plancheck.CheckPlanRequest, *plancheck.CheckPlanResponse) {
	f()
}

// ldapServer is the server another administrator adds.
var ldapServer = client.AuthServer{Address: "ldap.other-admin.example", Port: 636, Enabled: true}

// addServer is another administrator adding ldapServer through the admin API, with
// a client of its own; it reports its failure to t (it may run off the test's goroutine).
func addServer(t *testing.T, c *client.Client) {
	ctx := context.Background()
	s, err := c.GetExternalAuthentication(ctx)
	if err == nil {
		s.Servers = append(s.Servers, ldapServer)
		_, err = c.PutExternalAuthentication(ctx, *s)
	}
	if err != nil {
		t.Errorf("another administrator adding a server: %v", err)
	}
}

// expectServer checks that the platform still holds ldapServer.
func expectServer(t *testing.T, emu *testEmulator) error {
	t.Helper()
	s, err := emu.client(t).GetExternalAuthentication(context.Background())
	if err != nil {
		return err
	}
	for _, srv := range s.Servers {
		if srv.Address == ldapServer.Address {
			return nil
		}
	}
	return fmt.Errorf("the server another administrator added is gone: the platform holds %v", s.Servers)
}

// otherAdminConflict is the error of an apply whose plan no longer matches the platform.
var otherAdminConflict = errorPattern("Unable to update external authentication settings",
	"The settings changed on the platform since the plan was made", "servers[1]: "+ldapServer.Address+" port 636 (enabled) added",
	"Nothing was written", "Run terraform plan again")

// TestAccExternalAuthentication_otherAdministratorBeforeApply: another administrator
// adds a server between `terraform plan -out` (a domain change) and the apply of that
// plan. The apply stops with an error naming the server and writes nothing; the
// next plan shows the server, and applying it as configured keeps it.
func TestAccExternalAuthentication_otherAdministratorBeforeApply(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	emu.takeSettings(t)
	other := emu.client(t)
	domain, domain2 := accDomain(), accDomain()
	config := func(domain, servers string) string {
		return externalAuthConfig(emu, fmt.Sprintf(`
  domain_name = %q
  enabled     = true
  servers     = [{ address = "dc1.corp.example", port = 389 }%s]
`, domain, servers))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{
			{Config: config(domain, "")},
			{
				Config: config(domain2, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(externalAuthAddress, plancheck.ResourceActionUpdate),
					whenPlanned(func() { addServer(t, other) }),
				}},
				ExpectError: otherAdminConflict,
			},
			{
				// Nothing was written: the domain is the old one, the server still there.
				PreConfig: func() {
					if err := expectSettings(t, emu, client.ExternalAuthentication{DomainName: domain, Enabled: true,
						Servers: []client.AuthServer{{Address: "dc1.corp.example", Port: 389, Enabled: true}, ldapServer}}); err != nil {
						t.Error(err)
					}
				},
				// The next plan shows the server (its removal), so keeping it takes the configuration.
				Config: config(domain2, fmt.Sprintf(`, { address = %q, port = %d }`, ldapServer.Address, ldapServer.Port)),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(externalAuthAddress, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: func(*terraform.State) error { return expectServer(t, emu) },
			},
		},
	})
}

// TestAccExternalAuthentication_otherAdministratorDuringApply: the server is added
// while the apply is running, just before its update reaches the platform (the
// first settings request of the apply lets the other administrator in first).
func TestAccExternalAuthentication_otherAdministratorDuringApply(t *testing.T) {
	t.Parallel()
	direct := newTestEmulatorWith(t, "a change while the apply is on the wire", emulator.Options{RenderDelay: testRenderDelay})
	proxy := faultproxy.Start(direct.URL)
	t.Cleanup(proxy.Close)
	emu := servedTestEmulator(t, direct.emu, proxy.URL)
	other := direct.client(t) // straight to the platform, past the proxy
	domain, domain2 := accDomain(), accDomain()
	config := func(domain string) string {
		return externalAuthConfig(emu, fmt.Sprintf(`
  domain_name = %q
  enabled     = true
  servers     = [{ address = "dc1.corp.example", port = 389 }]
`, domain))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{
			{Config: config(domain)},
			{
				Config: config(domain2),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					whenPlanned(func() {
						// Query runs on the request before it is forwarded: the hook.
						proxy.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/externalauth$`, Times: 1,
							Query: func(_ url.Values) { addServer(t, other) }})
					}),
				}},
				ExpectError: otherAdminConflict,
			},
		},
		CheckDestroy: func(*terraform.State) error { return expectServer(t, emu) },
	})
}

// TestAccExternalAuthentication_otherAdministratorBeforeDestroy: a saved destroy plan
// (deletion_policy "disable") applied after another administrator added a server
// switches external authentication off and keeps the server.
func TestAccExternalAuthentication_otherAdministratorBeforeDestroy(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	emu.takeSettings(t)
	other := emu.client(t)
	domain := accDomain()
	config := externalAuthConfig(emu, fmt.Sprintf(`
  domain_name = %q
  enabled     = true
  servers     = [{ address = "dc1.corp.example", port = 389 }]
`, domain))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{
			{Config: config},
			{
				Config:  config,
				Destroy: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(externalAuthAddress, plancheck.ResourceActionDestroy),
					whenPlanned(func() { addServer(t, other) }),
				}},
			},
			{
				// CheckDestroy runs only for a destroy that found something in the state.
				PreConfig: func() {
					if err := expectSettings(t, emu, client.ExternalAuthentication{DomainName: domain, Enabled: false,
						Servers: []client.AuthServer{{Address: "dc1.corp.example", Port: 389, Enabled: true}, ldapServer}}); err != nil {
						t.Errorf("after the destroy: %v", err)
					}
				},
				Config: config,
			},
		},
	})
}

// TestAccExternalAuthentication_membersNotModelled: on a platform whose settings carry
// members this provider does not model, create, update, refresh and destroy keep
// them as they were.
func TestAccExternalAuthentication_membersNotModelled(t *testing.T) {
	t.Parallel()
	emu := newTestEmulatorWith(t, "settings with members beyond the contract's", emulator.Options{RenderDelay: testRenderDelay})
	emu.control(t, "readings").SetFaults(emulator.Faults{Readings: emulator.Readings{SettingsExtraFields: true}})
	kept := func(*terraform.State) error {
		s, err := emu.client(t).GetExternalAuthentication(context.Background())
		if err != nil {
			return err
		}
		if string(s.Extra["searchBase"]) != `"dc=corp,dc=example"` || string(s.Extra["connectTimeoutSeconds"]) != "30" {
			return fmt.Errorf("the members the provider does not model were reset: %s", s.Extra)
		}
		return nil
	}
	config := func(domain string, enabled bool) string {
		return externalAuthConfig(emu, fmt.Sprintf(`
  domain_name = %q
  enabled     = %t
  servers     = [{ address = "dc1.corp.example", port = 389 }]
`, domain, enabled))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		CheckDestroy:             kept,
		Steps: []resource.TestStep{
			{Config: config("CORP", true), Check: kept},
			{Config: config("CORP2", false), Check: kept},
		},
	})
}

// TestAccExternalAuthentication_readings: platforms that list every server slot, or
// leave out members whose value is false or empty, hold a disabled server as
// disabled: the apply is consistent, the next plan empty, and the data source agrees.
func TestAccExternalAuthentication_readings(t *testing.T) {
	t.Parallel()
	for _, reading := range []string{"allServerSlots", "omitEmptyAdminMembers", "omitDefaultAdminMembers", "unreportedSwitch"} {
		t.Run(reading, func(t *testing.T) {
			t.Parallel()
			emu := newTestEmulatorWith(t, "a reading of the settings answers", emulator.Options{RenderDelay: testRenderDelay})
			var readings emulator.Readings
			if err := readings.Set(reading); err != nil {
				t.Fatal(err)
			}
			emu.control(t, "readings").SetFaults(emulator.Faults{Readings: readings})
			servers := knownvalue.ListExact([]knownvalue.Check{
				knownvalue.ObjectExact(map[string]knownvalue.Check{
					"address": knownvalue.StringExact("dc1.corp.example"), "port": knownvalue.Int64Exact(389), "enabled": knownvalue.Bool(true)}),
				knownvalue.ObjectExact(map[string]knownvalue.Check{
					"address": knownvalue.StringExact("dc2.corp.example"), "port": knownvalue.Int64Exact(636), "enabled": knownvalue.Bool(false)}),
			})
			config := externalAuthConfig(emu, `
  domain_name = "CORP"
  enabled     = false
  servers = [
    { address = "dc1.corp.example", port = 389 },
    { address = "dc2.corp.example", port = 636, enabled = false },
  ]
`) + `
data "mediaplatform_external_authentication" "test" {
  depends_on = [mediaplatform_external_authentication.test]
}
`
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testProviderFactories(t),
				Steps: []resource.TestStep{{
					Config: config,
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue(externalAuthAddress, tfjsonpath.New("servers"), servers),
						statecheck.ExpectKnownValue("data.mediaplatform_external_authentication.test", tfjsonpath.New("servers"), servers),
						statecheck.ExpectKnownValue("data.mediaplatform_external_authentication.test", tfjsonpath.New("enabled"), knownvalue.Bool(false)),
					},
					ConfigPlanChecks: resource.ConfigPlanChecks{
						PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
					},
				}},
			})
		})
	}
}

// TestAccExternalAuthentication_unreportedSwitch (issue 60, item 3): on a platform
// whose settings answers never carry externalAuthenticationEnabled, the switch is
// applied and kept (the next plan, in another process, is empty: the absence is
// unknown, not false), and a destroy under deletion_policy "disable" switches it off
// on the platform instead of taking the absence for "already off".
func TestAccExternalAuthentication_unreportedSwitch(t *testing.T) {
	t.Parallel()
	emu := newTestEmulatorWith(t, "a platform that does not report the switch", emulator.Options{})
	ctl := emu.control(t, "readings")
	ctl.SetFaults(emulator.Faults{Readings: emulator.Readings{UnreportedSwitch: true}})
	config := externalAuthConfig(emu, `
  domain_name = "CORP"
  enabled     = true
  servers     = [{ address = "dc1.corp.example", port = 389 }]
`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		CheckDestroy: func(*terraform.State) error {
			if ctl.ExternalAuthenticationEnabled() {
				return fmt.Errorf("after destroy (deletion_policy disable) external authentication is still on")
			}
			return nil
		},
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(externalAuthAddress, tfjsonpath.New("enabled"), knownvalue.Bool(true)),
			},
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			Check: func(*terraform.State) error {
				if !ctl.ExternalAuthenticationEnabled() {
					return fmt.Errorf("the apply did not switch external authentication on")
				}
				return nil
			},
		}},
	})
}

// TestSettingsChangedSincePlan: a setting counts as changed outside the plan when the
// platform holds it differently from the state the plan was made from, unless it
// already holds the planned value.
func TestSettingsChangedSincePlan(t *testing.T) {
	t.Parallel()
	dc1 := client.AuthServer{Address: "dc1", Port: 389, Enabled: true}
	dc2 := client.AuthServer{Address: "dc2", Port: 636, Enabled: true}
	prior := client.ExternalAuthentication{DomainName: "A", Enabled: true, Servers: []client.AuthServer{dc1}}
	planned := client.ExternalAuthentication{DomainName: "B", Enabled: true, Servers: []client.AuthServer{dc1, dc2}}
	dc1Off := dc1
	dc1Off.Enabled = false
	for _, tc := range []struct {
		name    string
		current client.ExternalAuthentication
		want    string
	}{
		{"unchanged", prior, ""},
		{"already as planned", planned, ""},
		{"domain", client.ExternalAuthentication{DomainName: "C", Enabled: true, Servers: []client.AuthServer{dc1}},
			`domain_name: "A" when planned, now "C"`},
		{"switched off", client.ExternalAuthentication{DomainName: "A", Servers: []client.AuthServer{dc1}},
			`enabled: true when planned, now false`},
		{"server removed", client.ExternalAuthentication{DomainName: "A", Enabled: true},
			`servers[0]: dc1 port 389 (enabled) removed`},
		{"server disabled", client.ExternalAuthentication{DomainName: "A", Enabled: true, Servers: []client.AuthServer{dc1Off}},
			`servers[0]: dc1 port 389 (enabled) when planned, now dc1 port 389 (disabled)`},
		{"other server added", client.ExternalAuthentication{DomainName: "A", Enabled: true, Servers: []client.AuthServer{dc1, dc2, dc1}},
			`servers[2]: dc1 port 389 (enabled) added`},
	} {
		if got := strings.Join(settingsChangedSincePlan(prior, planned, tc.current), "; "); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
