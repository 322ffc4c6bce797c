package provider

// Numbers in any JSON form (issue 41 item 6, rule "numbers" of the reading table).

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// TestDataSourceCommand_exponentIntegers reads commands from a platform that
// writes every integer with an exponent (progress 1E+2, httpStatus 409.0E0,
// httpCode 5E+2, as Java's BigDecimal may): the same values as written plainly.
func TestDataSourceCommand_exponentIntegers(t *testing.T) {
	t.Parallel()
	emu := newTestEmulatorWith(t, "integers written with an exponent", emulator.Options{
		Faults: emulator.Faults{Readings: emulator.Readings{ExponentIntegers: true}},
	})
	ctl := emu.control(t, "scripted commands")
	bulk := dsCreateCommand(t, ctl, emulator.CommandScript{
		Type:  "datamodel:update-thumbnails",
		Steps: []emulator.CommandStep{{Lifecycle: "finished", Progress: 100}},
		Results: []emulator.CommandResult{
			{Success: true, Data: "clip-1"},
			{Success: false, HTTPStatus: 409, ErrorCode: "datamodel/THUMBNAIL_CHANGED", ErrorMessage: "the thumbnail of clip-2 changed"},
		},
	})
	failed := dsCreateCommand(t, ctl, emulator.CommandScript{
		Type:  "publishing:purge",
		Steps: []emulator.CommandStep{{Lifecycle: "running", Progress: 30}, {Lifecycle: "error", Progress: 30}},
	})
	expectRead(t, emu.providerConfig()+fmt.Sprintf(`
data "mediaplatform_command" "bulk" {
  id = %q
}
data "mediaplatform_command" "failed" {
  id                  = %q
  wait_for_completion = true
}
`, bulk, failed),
		[]statecheck.StateCheck{
			dsExpect("data.mediaplatform_command.bulk", "progress", knownvalue.Int64Exact(100)),
			dsExpect("data.mediaplatform_command.bulk", "total_count", knownvalue.Int64Exact(2)),
			dsExpect("data.mediaplatform_command.bulk", "failure_count", knownvalue.Int64Exact(1)),
			statecheck.ExpectKnownValue("data.mediaplatform_command.bulk", dsPath("results").AtSliceIndex(1).AtMapKey("http_status"),
				knownvalue.Int64Exact(409)),
			dsExpect("data.mediaplatform_command.failed", "progress", knownvalue.Int64Exact(30)),
			statecheck.ExpectKnownValue("data.mediaplatform_command.failed", dsPath("error", "http_code"), knownvalue.Int64Exact(500)),
		}...)
}
