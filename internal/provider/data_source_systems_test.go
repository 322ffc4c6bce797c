package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

func TestAccDataSourceSystems_basic(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	// The registry lists the emulator's two systems, production management first.
	want := []struct{ systemType, systemID string }{
		{"interplay-pam", "pam-1"},
		{"interplay-mam", "mam-1"},
	}
	var systems []knownvalue.Check
	for _, s := range want {
		if _, ok := emulator.SystemModelFixture(s.systemType, s.systemID); !ok {
			t.Fatalf("the emulator has no fixture for %s/%s", s.systemType, s.systemID)
		}
		systems = append(systems, knownvalue.ObjectExact(map[string]knownvalue.Check{
			"system_type": knownvalue.StringExact(s.systemType),
			"system_id":   knownvalue.StringExact(s.systemID),
		}))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: emu.providerConfig() + `
data "mediaplatform_systems" "all" {}

output "pairs" {
  value = [for s in data.mediaplatform_systems.all.systems : "${s.system_type}/${s.system_id}"]
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.mediaplatform_systems.all", tfjsonpath.New("systems"), knownvalue.ListExact(systems)),
				statecheck.ExpectKnownOutputValue("pairs", knownvalue.ListExact([]knownvalue.Check{
					knownvalue.StringExact("interplay-pam/pam-1"),
					knownvalue.StringExact("interplay-mam/mam-1"),
				})),
			},
		}},
	})
}
