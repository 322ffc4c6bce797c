package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
)

// TestDataSourceHealth reads the emulator's health report: status ok from the
// default verifier.
func TestDataSourceHealth(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	const address = "data.mediaplatform_health.test"
	expectRead(t, emu.providerConfig()+`
data "mediaplatform_health" "test" {}
`,
		dsExpect(address, "health_status", knownvalue.StringExact("ok")),
		dsExpect(address, "health_verifier", knownvalue.StringExact("default")),
		dsExpect(address, "healthy", knownvalue.Bool(true)),
	)
	if ctl := emu.optionalControl(t, "that the health report was requested"); ctl != nil {
		if n := ctl.Stats().Requests["GET "+ctl.PublishingURL("")+"/core/health"]; n == 0 {
			t.Error("the health report was never requested")
		}
	}
}
