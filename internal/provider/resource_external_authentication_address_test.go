package provider

// Server addresses as the platform takes them (issue 41 item 4): an IPv6 address
// written in brackets is sent without them, and the state keeps the spelling written.

import (
	"context"
	"fmt"
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
)

// TestAccExternalAuthentication_ipv6InBrackets: "[fd00::10]" is stored on the
// platform as fd00::10 (which refuses the brackets, as the contract does) and stays
// "[fd00::10]" in the state with an empty plan, also when the platform answers the
// address in another spelling; the data source and an import show the platform's
// spelling, and another address on the platform is drift that the apply undoes.
func TestAccExternalAuthentication_ipv6InBrackets(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	emu.takeSettings(t)
	domain := accDomain()
	config := externalAuthConfig(emu, `
  domain_name = "`+domain+`"
  enabled     = true
  servers     = [{ address = "[fd00::10]", port = 636 }, { address = "dc1.corp.example", port = 389 }]
`) + `
data "mediaplatform_external_authentication" "test" {
  depends_on = [mediaplatform_external_authentication.test]
}
`
	stored := func(address string) client.ExternalAuthentication {
		return client.ExternalAuthentication{DomainName: domain, Enabled: true, Servers: []client.AuthServer{
			{Address: address, Port: 636, Enabled: true}, {Address: "dc1.corp.example", Port: 389, Enabled: true},
		}}
	}
	onPlatform := func(address string) func() {
		return func() {
			if _, err := emu.client(t).PutExternalAuthentication(context.Background(), stored(address)); err != nil {
				t.Fatalf("changing the settings out of band: %v", err)
			}
		}
	}
	address := tfjsonpath.New("servers").AtSliceIndex(0).AtMapKey("address")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(externalAuthAddress, address, knownvalue.StringExact("[fd00::10]")),
					statecheck.ExpectKnownValue("data.mediaplatform_external_authentication.test", address,
						knownvalue.StringExact("fd00::10")),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: func(*terraform.State) error { return expectSettings(t, emu, stored("fd00::10")) },
			},
			{
				// The platform writes the same address in full: no change.
				PreConfig: onPlatform("fd00:0:0:0:0:0:0:10"),
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(externalAuthAddress, address, knownvalue.StringExact("[fd00::10]")),
				},
			},
			{
				// Another address on the platform is drift, put back by the apply.
				PreConfig: onPlatform("fd00::12"),
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(externalAuthAddress, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(externalAuthAddress, address, knownvalue.StringExact("[fd00::10]")),
				},
				Check: func(*terraform.State) error { return expectSettings(t, emu, stored("fd00::10")) },
			},
			{
				// An import has no spelling to keep: it shows the platform's.
				ResourceName:  externalAuthAddress,
				ImportState:   true,
				ImportStateId: externalAuthenticationID,
				ImportStateCheck: func(states []*terraform.InstanceState) error {
					if len(states) != 1 {
						return fmt.Errorf("imported %d states, want 1", len(states))
					}
					if got := states[0].Attributes["servers.0.address"]; got != "fd00::10" {
						return fmt.Errorf("imported servers.0.address %q, want the platform's fd00::10", got)
					}
					return nil
				},
			},
		},
	})
}

// TestAccExternalAuthentication_canonicalSpellings (issue 60, item 1): a user writes a
// domain controller as Windows shows it, "DC1.Corp.Example", and the domain in lower
// case; the platform stores them and gives them back in its own spelling
// ("dc1.corp.example", "CORP"). The apply passes, the next plan is empty, the state
// keeps what the user wrote; another server on the platform is still drift.
func TestAccExternalAuthentication_canonicalSpellings(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	emu.takeSettings(t)
	emu.control(t, "canonical spellings").SetFaults(emulator.Faults{Readings: emulator.Readings{CanonicalSettings: true}})
	domain := strings.ToLower(accDomain())
	config := externalAuthConfig(emu, `
  domain_name = "`+domain+`"
  enabled     = true
  servers     = [{ address = "DC1.Corp.Example", port = 636 }, { address = "FD00:0::10", port = 389 }]
`)
	address := tfjsonpath.New("servers").AtSliceIndex(0).AtMapKey("address")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(externalAuthAddress, address, knownvalue.StringExact("DC1.Corp.Example")),
					statecheck.ExpectKnownValue(externalAuthAddress, tfjsonpath.New("servers").AtSliceIndex(1).AtMapKey("address"),
						knownvalue.StringExact("FD00:0::10")),
					statecheck.ExpectKnownValue(externalAuthAddress, tfjsonpath.New("domain_name"), knownvalue.StringExact(domain)),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				// Another server on the platform is drift, put back by the apply.
				PreConfig: func() {
					if _, err := emu.client(t).PutExternalAuthentication(context.Background(), client.ExternalAuthentication{
						DomainName: domain, Enabled: true, Servers: []client.AuthServer{
							{Address: "dc2.corp.example", Port: 636, Enabled: true}, {Address: "fd00::10", Port: 389, Enabled: true},
						}}); err != nil {
						t.Fatalf("changing the settings out of band: %v", err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(externalAuthAddress, plancheck.ResourceActionUpdate),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(externalAuthAddress, address, knownvalue.StringExact("DC1.Corp.Example")),
				},
			},
		},
	})
}
