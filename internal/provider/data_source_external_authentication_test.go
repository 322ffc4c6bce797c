package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"
)

// TestAccDataSourceExternalAuthentication reads settings written through the API, then
// reads them again after they changed outside Terraform.
func TestAccDataSourceExternalAuthentication(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	emu.takeSettings(t)
	domain, domain2 := accDomain(), accDomain()
	c := emu.client(t)
	put := func(s client.ExternalAuthentication) {
		t.Helper()
		if _, err := c.PutExternalAuthentication(context.Background(), s); err != nil {
			t.Fatalf("storing settings: %v", err)
		}
	}
	put(client.ExternalAuthentication{DomainName: domain, Enabled: true, Servers: []client.AuthServer{
		{Address: "dc1.corp.example", Port: 389, Enabled: true},
		{Address: "10.0.0.7", Port: 636, Enabled: false},
	}})

	const address = "data.mediaplatform_external_authentication.test"
	config := emu.providerConfig() + `
data "mediaplatform_external_authentication" "test" {}
`
	server := func(addr string, port int64, enabled bool) knownvalue.Check {
		return knownvalue.ObjectExact(map[string]knownvalue.Check{
			"address": knownvalue.StringExact(addr),
			"port":    knownvalue.Int64Exact(port),
			"enabled": knownvalue.Bool(enabled),
		})
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					dsExpect(address, "id", knownvalue.StringExact("external-authentication")),
					dsExpect(address, "domain_name", knownvalue.StringExact(domain)),
					dsExpect(address, "enabled", knownvalue.Bool(true)),
					dsExpect(address, "servers", knownvalue.ListExact([]knownvalue.Check{
						server("dc1.corp.example", 389, true),
						server("10.0.0.7", 636, false),
					})),
				},
			},
			{
				// Changed outside Terraform: the data source reads the new settings.
				PreConfig: func() {
					put(client.ExternalAuthentication{DomainName: domain2, Enabled: false})
				},
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					dsExpect(address, "domain_name", knownvalue.StringExact(domain2)),
					dsExpect(address, "enabled", knownvalue.Bool(false)),
					dsExpect(address, "servers", knownvalue.ListSizeExact(0)),
				},
			},
		},
	})
}

// TestDataSourceExternalAuthentication_notAdministrator reports the refusal for an
// account without administrator rights.
func TestDataSourceExternalAuthentication_notAdministrator(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	emu.control(t, "the viewer account")
	expectPlanError(t, `
provider "mediaplatform" {
  admin_url      = "`+emu.adminURL()+`"
  admin_username = "`+emulatortest.ViewerUsername+`"
  admin_password = "`+emulatortest.ViewerPassword+`"
}
data "mediaplatform_external_authentication" "test" {}
`, errorPattern("Unable to read external authentication settings",
		"The administrator API refused admin_username: it is logged in but not an administrator.", "admin/FORBIDDEN"))
}
