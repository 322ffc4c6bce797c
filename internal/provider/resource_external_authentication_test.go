package provider

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

const externalAuthAddress = "mediaplatform_external_authentication.test"

// externalAuthConfig is a settings resource with the given extra arguments.
func externalAuthConfig(emu *testEmulator, body string) string {
	return emu.providerConfig() + `
resource "mediaplatform_external_authentication" "test" {
` + body + `
}
`
}

// expectSettings checks the platform's settings against want.
func expectSettings(t *testing.T, emu *testEmulator, want client.ExternalAuthentication) error {
	t.Helper()
	got, err := emu.client(t).GetExternalAuthentication(context.Background())
	if err != nil {
		return err
	}
	got.Raw = nil
	if !reflect.DeepEqual(*got, want) {
		return fmt.Errorf("platform settings = %+v, want %+v", *got, want)
	}
	return nil
}

func TestAccExternalAuthentication_lifecycle(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	emu.takeSettings(t)
	domain, domain2 := accDomain(), accDomain()
	twoServers := fmt.Sprintf(`
  domain_name = %q
  enabled     = true
  servers = [
    { address = "dc1.corp.example", port = 389 },
    { address = "dc2.corp.example", port = 636, enabled = false },
  ]
`, domain)
	oneServer := fmt.Sprintf(`
  domain_name = %q
  enabled     = true
  servers = [
    { address = "dc3.corp.example", port = 3269 },
  ]
`, domain2)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		CheckDestroy: func(*terraform.State) error {
			// deletion_policy "disable": the same settings, switched off.
			return expectSettings(t, emu, client.ExternalAuthentication{
				DomainName: domain2,
				Servers:    []client.AuthServer{{Address: "dc3.corp.example", Port: 3269, Enabled: true}},
			})
		},
		Steps: []resource.TestStep{
			{
				Config: externalAuthConfig(emu, twoServers),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(externalAuthAddress, tfjsonpath.New("id"), knownvalue.StringExact("external-authentication")),
					statecheck.ExpectKnownValue(externalAuthAddress, tfjsonpath.New("deletion_policy"), knownvalue.StringExact("disable")),
					statecheck.ExpectKnownValue(externalAuthAddress, tfjsonpath.New("servers"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectExact(map[string]knownvalue.Check{
							"address": knownvalue.StringExact("dc1.corp.example"),
							"port":    knownvalue.Int64Exact(389),
							"enabled": knownvalue.Bool(true),
						}),
						knownvalue.ObjectExact(map[string]knownvalue.Check{
							"address": knownvalue.StringExact("dc2.corp.example"),
							"port":    knownvalue.Int64Exact(636),
							"enabled": knownvalue.Bool(false),
						}),
					})),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: func(*terraform.State) error {
					return expectSettings(t, emu, client.ExternalAuthentication{
						DomainName: domain, Enabled: true,
						Servers: []client.AuthServer{
							{Address: "dc1.corp.example", Port: 389, Enabled: true},
							{Address: "dc2.corp.example", Port: 636, Enabled: false},
						},
					})
				},
			},
			{
				ResourceName:      externalAuthAddress,
				ImportState:       true,
				ImportStateId:     "any-id-will-do",
				ImportStateVerify: true,
			},
			{
				Config: externalAuthConfig(emu, oneServer),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(externalAuthAddress, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: func(*terraform.State) error {
					return expectSettings(t, emu, client.ExternalAuthentication{
						DomainName: domain2, Enabled: true,
						Servers: []client.AuthServer{{Address: "dc3.corp.example", Port: 3269, Enabled: true}},
					})
				},
			},
		},
	})
}

// TestAccExternalAuthentication_drift changes the settings through the admin API
// between steps: the plan shows the change and the apply restores the configuration.
func TestAccExternalAuthentication_drift(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	emu.takeSettings(t)
	domain := accDomain()
	config := externalAuthConfig(emu, fmt.Sprintf(`
  domain_name = %q
  enabled     = true
  servers     = []
`, domain))
	want := client.ExternalAuthentication{DomainName: domain, Enabled: true}
	drift := func(s client.ExternalAuthentication) func() {
		return func() {
			if _, err := emu.client(t).PutExternalAuthentication(context.Background(), s); err != nil {
				t.Fatalf("changing the settings out of band: %v", err)
			}
		}
	}
	restored := resource.ConfigPlanChecks{
		PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(externalAuthAddress, plancheck.ResourceActionUpdate),
		},
		PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(externalAuthAddress, tfjsonpath.New("servers"), knownvalue.ListSizeExact(0)),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				// Someone switches external authentication off.
				PreConfig:        drift(client.ExternalAuthentication{DomainName: domain, Enabled: false}),
				Config:           config,
				ConfigPlanChecks: restored,
				Check:            func(*terraform.State) error { return expectSettings(t, emu, want) },
			},
			{
				// Someone renames the domain and adds a server.
				PreConfig: drift(client.ExternalAuthentication{DomainName: accDomain(), Enabled: true,
					Servers: []client.AuthServer{{Address: "rogue.example", Port: 389, Enabled: true}}}),
				Config:           config,
				ConfigPlanChecks: restored,
				Check:            func(*terraform.State) error { return expectSettings(t, emu, want) },
			},
		},
	})
}

// TestAccExternalAuthentication_retain destroys with deletion_policy "retain": the
// platform keeps the settings untouched (the warning is checked with the real binary
// in TestAccExternalAuthentication_retainWarns).
func TestAccExternalAuthentication_retain(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	emu.takeSettings(t)
	domain := accDomain()
	want := client.ExternalAuthentication{DomainName: domain, Enabled: true,
		Servers: []client.AuthServer{{Address: "dc1.corp.example", Port: 389, Enabled: true}}}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		CheckDestroy:             func(*terraform.State) error { return expectSettings(t, emu, want) },
		Steps: []resource.TestStep{{
			Config: externalAuthConfig(emu, fmt.Sprintf(`
  domain_name     = %q
  enabled         = true
  deletion_policy = "retain"
  servers         = [{ address = "dc1.corp.example", port = 389 }]
`, domain)),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
		}},
	})
}

// TestExternalAuthentication_validation rejects bad arguments at plan time, before
// any request.
func TestExternalAuthentication_validation(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	nine := make([]string, 9)
	for i := range nine {
		nine[i] = fmt.Sprintf(`{ address = "dc%d.example", port = 389 }`, i)
	}
	testRejectedBeforeRequests(t, emu, func(body string) string { return externalAuthConfig(emu, body) }, []rejectedConfig{
		{`domain_name = "CORP"
  enabled = true
  servers = [{ address = "dc1.example", port = 0 }]`, []string{"port", "between 1 and 65535, got: 0"}},
		{`domain_name = "CORP"
  enabled = true
  servers = [{ address = "dc1.example", port = 65536 }]`, []string{"port", "between 1 and 65535, got: 65536"}},
		{`domain_name = "CORP"
  enabled = true
  servers = [` + strings.Join(nine, ", ") + `]`, []string{"servers", "at most 8 elements, got: 9"}},
		{`domain_name = "CORP"
  enabled = true
  deletion_policy = "delete"`, []string{"deletion_policy", `value must be one of`, `"delete"`}},
		{`domain_name = ""
  enabled = true`, []string{"domain_name", "length must be at least 1"}},
		{`domain_name = "CORP"
  enabled = true
  servers = [{ address = "", port = 389 }]`, []string{"address", "must be a host name or an IP address"}},
	})
}

// TestAccExternalAuthentication_retainWarns: through the real CLI, a destroy with
// deletion_policy = "retain" shows the warning users read and keeps the settings.
func TestAccExternalAuthentication_retainWarns(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	emu := newTestEmulator(t)
	emu.takeSettings(t)
	domain := accDomain()
	w := newWorkspace(t, emu, fmt.Sprintf(`
resource "mediaplatform_external_authentication" "test" {
  domain_name     = %q
  enabled         = true
  deletion_policy = "retain"
}
`, domain))
	w.run("apply", "-auto-approve")
	out := w.run("destroy", "-auto-approve")
	if !errorPattern("Warning: External authentication settings retained", "left unchanged on the platform").MatchString(out) {
		t.Errorf("destroy output lacks the retain warning:\n%s", out)
	}
	if err := expectSettings(t, emu, client.ExternalAuthentication{DomainName: domain, Enabled: true}); err != nil {
		t.Error(err)
	}
}

// TestAccReliability_adminSessionExpired expires the administrator session of a
// client that lives across runs: the next run logs in exactly once more and succeeds.
func TestAccReliability_adminSessionExpired(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	ctl := emu.control(t, "session expiry and login counts")
	// Checked last, once the provider's client and expectSettings' have logged out.
	t.Cleanup(func() {
		if s := ctl.Stats(); s.LiveSessions != 0 || s.LiveTokens != 0 {
			t.Errorf("%d live sessions, %d live tokens after close; want 0", s.LiveSessions, s.LiveTokens)
		}
	})
	p, ok := New("test")().(*mediaplatformProvider)
	if !ok {
		t.Fatal("New does not return a *mediaplatformProvider")
	}
	config := func(domain string) string {
		return emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_external_authentication" "test" {
  domain_name = %q
  enabled     = true
}
`, domain)
	}
	var logins int
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: sharedProviderFactories(p),
		Steps: []resource.TestStep{
			{
				Config: config("CORP"),
				Check: func(*terraform.State) error {
					if n := ctl.Stats().Logins["admin"]; n != 1 {
						return fmt.Errorf("%d administrator logins, want 1: the provider instance must keep its session", n)
					}
					return nil
				},
			},
			{
				PreConfig: func() {
					ctl.Expire(false, true)
					logins = ctl.Stats().Logins["admin"]
				},
				Config: config("CORP2"),
				Check: resource.ComposeTestCheckFunc(
					func(*terraform.State) error {
						if n := ctl.Stats().Logins["admin"] - logins; n != 1 {
							return fmt.Errorf("%d administrator logins after the session expired, want exactly 1", n)
						}
						return expectSettings(t, emu, client.ExternalAuthentication{DomainName: "CORP2", Enabled: true})
					},
				),
			},
		},
	})
	p.mu.Lock()
	c := p.client
	p.mu.Unlock()
	if c != nil {
		if err := c.Close(context.Background()); err != nil {
			t.Errorf("closing the client: %v", err)
		}
	}
}
