package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// dsCommandRoute is the emulator's stats key of GET <command>.
const dsCommandRoute = "GET /apis/commands;version=1;realm=global/commands/{id}"

// dsCreateCommand starts a scripted command on the emulator and returns its id.
func dsCreateCommand(t *testing.T, emu *emulator.Emulator, script emulator.CommandScript) string {
	t.Helper()
	id, err := emu.CreateCommand(script)
	if err != nil {
		t.Fatalf("creating command: %v", err)
	}
	return id
}

// dsCommandMatchesPlatform checks the state against the command as the platform now
// reports it: times, and the whole resource in json.
func dsCommandMatchesPlatform(emu *testEmulator, c *client.Client, address string, id *string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		cmd, err := c.GetCommand(context.Background(), *id)
		if err != nil {
			return err
		}
		want, err := normalizeJSON(cmd.Raw)
		if err != nil {
			return err
		}
		return resource.ComposeAggregateTestCheckFunc(
			resource.TestCheckResourceAttr(address, "created", cmd.Command.Created.Format(time.RFC3339Nano)),
			resource.TestCheckResourceAttr(address, "modified", cmd.Command.Modified.Format(time.RFC3339Nano)),
			resource.TestCheckResourceAttr(address, "finished", cmd.Command.Finished.Format(time.RFC3339Nano)),
			resource.TestCheckResourceAttr(address, "json", want.ValueString()),
			resource.TestCheckResourceAttr(address, "href", emu.platformURL()+emulator.CommandPath(*id)),
		)(s)
	}
}

// TestAccDataSourceCommand_waitForCompletion waits for a command scripted
// pending → running → finished and reports it finished, every field checked.
func TestAccDataSourceCommand_waitForCompletion(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	ctl := emu.control(t, "scripted commands")
	c := emu.client(t)
	const address = "data.mediaplatform_command.test"
	var id string
	var readsBefore int
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{
			{
				// A first step, so that the command below starts after terraform init.
				Config: emu.providerConfig() + `
data "mediaplatform_health" "test" {}
`,
			},
			{
				PreConfig: func() {
					id = dsCreateCommand(t, ctl, emulator.CommandScript{
						Type: "publishing:purge", Creator: "alice",
						Parameters: map[string]any{"ids": []any{"a", "b"}, "purge": true},
						Steps: []emulator.CommandStep{
							{Lifecycle: "pending", Duration: 700 * time.Millisecond},
							{Lifecycle: "running", Progress: 50, Duration: 700 * time.Millisecond,
								State: &emulator.CommandStepState{Text: "Purging renderings", Code: "publishing/PURGING", Params: map[string]any{"done": 1}}},
							{Lifecycle: "finished", Progress: 100,
								State: &emulator.CommandStepState{Text: "Purged", Code: "publishing/PURGED", Params: map[string]any{"done": 2, "note": "ok"}}},
						},
					})
					readsBefore = ctl.Stats().Requests[dsCommandRoute]
				},
				Config: emu.providerConfig() + `
data "mediaplatform_command" "test" {
  id                  = "c-1"
  wait_for_completion = true
  timeouts {
    read = "1m"
  }
}
`,
				ConfigStateChecks: []statecheck.StateCheck{
					dsExpect(address, "id", knownvalue.StringExact("c-1")),
					dsExpect(address, "version", knownvalue.StringExact("1.0")),
					dsExpect(address, "type", knownvalue.StringExact("publishing:purge")),
					dsExpect(address, "lifecycle_state", knownvalue.StringExact("finished")),
					dsExpect(address, "progress", knownvalue.Int64Exact(100)),
					dsExpect(address, "state", knownvalue.ObjectExact(map[string]knownvalue.Check{
						"text": knownvalue.StringExact("Purged"),
						"code": knownvalue.StringExact("publishing/PURGED"),
						"params": knownvalue.MapExact(map[string]knownvalue.Check{
							"done": knownvalue.StringExact("2"),
							"note": knownvalue.StringExact("ok"),
						}),
					})),
					dsExpect(address, "finished", knownvalue.NotNull()),
					dsExpect(address, "creator", knownvalue.StringExact("alice")),
					dsExpect(address, "host", knownvalue.StringExact("emulator-1")),
					dsExpect(address, "service_name", knownvalue.StringExact("publishing")),
					dsExpect(address, "service_version", knownvalue.StringExact("2.0.0")),
					dsExpect(address, "service_instance", knownvalue.StringExact("i-1")),
					dsExpect(address, "error", knownvalue.Null()),
					dsExpect(address, "parameters_json", knownvalue.StringExact(`{"ids":["a","b"],"purge":true}`)),
					dsExpect(address, "results", knownvalue.Null()),
					dsExpect(address, "total_count", knownvalue.Null()),
					dsExpect(address, "success_count", knownvalue.Null()),
					dsExpect(address, "failure_count", knownvalue.Null()),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					dsCommandMatchesPlatform(emu, c, address, &id),
					func(*terraform.State) error {
						// The command took 1.4 s to finish: reading it once would have found it
						// pending or running.
						if n := ctl.Stats().Requests[dsCommandRoute] - readsBefore; n < 2 {
							return fmt.Errorf("the command was read %d times; waiting needs at least 2", n)
						}
						return nil
					},
				),
			},
		},
	})
	if id != "c-1" {
		t.Errorf("the scripted command got id %q, want c-1", id)
	}
}

// TestAccDataSourceCommand_bulk reports the entities of a bulk command, two of which
// failed, and the counts; once by id and once by href.
func TestAccDataSourceCommand_bulk(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	id := dsCreateCommand(t, emu.control(t, "scripted commands"), emulator.CommandScript{
		Type:       "datamodel:update-thumbnails",
		Parameters: map[string]any{"assets": []any{"clip-1", "clip-2", "seq-1"}},
		Steps:      []emulator.CommandStep{{Lifecycle: "running", Progress: 10}, {Lifecycle: "finished", Progress: 100}},
		Results: []emulator.CommandResult{
			{Success: true, Data: "clip-1"},
			{Success: false, HTTPStatus: 409, ErrorCode: "datamodel/THUMBNAIL_CHANGED", ErrorMessage: "the thumbnail of clip-2 changed"},
			{Success: false, HTTPStatus: 404, ErrorCode: "datamodel/NOT_FOUND", ErrorMessage: "asset seq-1 does not exist"},
		},
	})
	href := emu.platformURL() + emulator.CommandPath(id)
	results := knownvalue.ListExact([]knownvalue.Check{
		knownvalue.ObjectExact(map[string]knownvalue.Check{
			"success": knownvalue.Bool(true), "data": knownvalue.StringExact("clip-1"),
			"http_status": knownvalue.Null(), "error_code": knownvalue.Null(), "error_message": knownvalue.Null(),
		}),
		knownvalue.ObjectExact(map[string]knownvalue.Check{
			"success": knownvalue.Bool(false), "data": knownvalue.StringExact(""),
			"http_status": knownvalue.Int64Exact(409), "error_code": knownvalue.StringExact("datamodel/THUMBNAIL_CHANGED"),
			"error_message": knownvalue.StringExact("the thumbnail of clip-2 changed"),
		}),
		knownvalue.ObjectExact(map[string]knownvalue.Check{
			"success": knownvalue.Bool(false), "data": knownvalue.StringExact(""),
			"http_status": knownvalue.Int64Exact(404), "error_code": knownvalue.StringExact("datamodel/NOT_FOUND"),
			"error_message": knownvalue.StringExact("asset seq-1 does not exist"),
		}),
	})
	var checks []statecheck.StateCheck
	for _, address := range []string{"data.mediaplatform_command.by_id", "data.mediaplatform_command.by_href"} {
		checks = append(checks,
			dsExpect(address, "id", knownvalue.StringExact(id)),
			dsExpect(address, "href", knownvalue.StringExact(href)),
			dsExpect(address, "lifecycle_state", knownvalue.StringExact("finished")),
			dsExpect(address, "results", results),
			dsExpect(address, "total_count", knownvalue.Int64Exact(3)),
			dsExpect(address, "success_count", knownvalue.Int64Exact(1)),
			dsExpect(address, "failure_count", knownvalue.Int64Exact(2)),
			dsExpect(address, "error", knownvalue.Null()),
			dsExpect(address, "parameters_json", knownvalue.StringExact(`{"assets":["clip-1","clip-2","seq-1"]}`)),
			statecheck.ExpectKnownValue(address, dsPath("state", "params"), knownvalue.MapExact(map[string]knownvalue.Check{
				"totalCount": knownvalue.StringExact("3"), "successCount": knownvalue.StringExact("1"), "failureCount": knownvalue.StringExact("2"),
			})),
		)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			// fail_on_error does not apply: a bulk command with failed entities has finished.
			Config: emu.providerConfig() + fmt.Sprintf(`
data "mediaplatform_command" "by_id" {
  id                  = %q
  wait_for_completion = true
  fail_on_error       = true
}
data "mediaplatform_command" "by_href" {
  href = %q
}
`, id, href),
			ConfigStateChecks: checks,
		}},
	})
}

// TestAccDataSourceCommand_failed reports a failed command in error, and with
// fail_on_error fails with its cause, code and text.
func TestAccDataSourceCommand_failed(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	id := dsCreateCommand(t, emu.control(t, "scripted commands"), emulator.CommandScript{
		Type:  "publishing:purge",
		Steps: []emulator.CommandStep{{Lifecycle: "error", Progress: 30}},
		Error: &emulator.CommandError{
			Cause: "runtimeError", HTTPCode: 507, Text: "disk full on renderer r-2",
			Code: "publishing/INTERNAL_SERVER_ERROR", Params: map[string]any{"renderer": "r-2", "freeBytes": 0},
		},
	})
	const address = "data.mediaplatform_command.test"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{
			{
				Config: emu.providerConfig() + fmt.Sprintf(`
data "mediaplatform_command" "test" {
  id = %q
}
`, id),
				ConfigStateChecks: []statecheck.StateCheck{
					dsExpect(address, "lifecycle_state", knownvalue.StringExact("error")),
					dsExpect(address, "progress", knownvalue.Int64Exact(30)),
					dsExpect(address, "finished", knownvalue.NotNull()),
					dsExpect(address, "error", knownvalue.ObjectExact(map[string]knownvalue.Check{
						"cause":     knownvalue.StringExact("runtimeError"),
						"http_code": knownvalue.Int64Exact(507),
						"text":      knownvalue.StringExact("disk full on renderer r-2"),
						"code":      knownvalue.StringExact("publishing/INTERNAL_SERVER_ERROR"),
						"params": knownvalue.MapExact(map[string]knownvalue.Check{
							"renderer": knownvalue.StringExact("r-2"), "freeBytes": knownvalue.StringExact("0"),
						}),
					})),
					dsExpect(address, "results", knownvalue.Null()),
				},
			},
			{
				Config: emu.providerConfig() + fmt.Sprintf(`
data "mediaplatform_command" "test" {
  id            = %q
  fail_on_error = true
}
`, id),
				ExpectError: errorPattern("Command failed", `Command "`+id+`" (type publishing:purge) ended in lifecycle "error"`,
					"cause runtimeError", "publishing/INTERNAL_SERVER_ERROR: disk full on renderer r-2", "(HTTP 507)", "fail_on_error = false"),
			},
		},
	})
}

// TestAccDataSourceCommand_waitTimeout fails with the command's id, lifecycle and the
// timeout when the command does not end in time; without waiting it reads the command
// as it is.
func TestAccDataSourceCommand_waitTimeout(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	id := dsCreateCommand(t, emu.control(t, "scripted commands"), emulator.CommandScript{
		Type:  "publishing:render-all",
		Steps: []emulator.CommandStep{{Lifecycle: "running", Progress: 40}}, // the last step holds forever
	})
	const address = "data.mediaplatform_command.test"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{
			{
				Config: emu.providerConfig() + fmt.Sprintf(`
data "mediaplatform_command" "test" {
  id = %q
}
`, id),
				ConfigStateChecks: []statecheck.StateCheck{
					dsExpect(address, "lifecycle_state", knownvalue.StringExact("running")),
					dsExpect(address, "progress", knownvalue.Int64Exact(40)),
					dsExpect(address, "finished", knownvalue.Null()),
					dsExpect(address, "error", knownvalue.Null()),
				},
			},
			{
				Config: emu.providerConfig() + fmt.Sprintf(`
data "mediaplatform_command" "test" {
  id                  = %q
  wait_for_completion = true
  timeouts {
    read = "1s"
  }
}
`, id),
				ExpectError: errorPattern("Timed out waiting for command",
					`Command "`+id+`" (type publishing:render-all) was still in lifecycle "running" at 40% progress`,
					"read timeout of 1s", "Raise timeouts.read"),
			},
		},
	})
}

// TestDataSourceCommand_notFound names the missing command, by id and by href.
func TestDataSourceCommand_notFound(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	href := emu.platformURL() + emulator.CommandPath("c-404")
	expectPlanError(t, emu.providerConfig()+`
data "mediaplatform_command" "test" {
  id = "c-404"
}
`, errorPattern("Command not found", `Command "c-404" does not exist on the platform`, "commands/NOT_FOUND"))
	expectPlanError(t, emu.providerConfig()+fmt.Sprintf(`
data "mediaplatform_command" "test" {
  href = %q
}
`, href), errorPattern("Command not found", fmt.Sprintf("The command at %q does not exist", href), "commands/NOT_FOUND"))
}

// TestDataSourceCommand_validation rejects configurations without exactly one of
// id and href, or with a bad timeout, before any request.
func TestDataSourceCommand_validation(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	testRejectedBeforeRequests(t, emu, blockConfig(emu, `data "mediaplatform_command" "test"`), []rejectedConfig{
		{``, []string{"Missing Attribute Configuration", "Exactly one of these attributes must be configured: [id,href]"}},
		{"id = \"c-1\"\n  href = \"/apis/commands;version=1;realm=global/commands/c-1\"", []string{"Invalid Attribute Combination", "Exactly one of these attributes must be configured: [id,href]"}},
		{`id = ""`, []string{"id", "length must be at least 1"}},
		{"id = \"c-1\"\n  timeouts {\n    read = \"soon\"\n  }", []string{"Invalid Attribute Value Time Duration", `"soon" must be a string containing a sequence of decimal numbers`}},
	})
}

// TestDataSourceCommandRefresh maps a command resource with fields the schema does not
// model: they pass through in json, and nothing else is lost.
func TestDataSourceCommandRefresh(t *testing.T) {
	t.Parallel()
	raw := `{"version": "1.1", "futureTopLevel": {"flag": true},
 "command": {"id": "c-9", "lifecycle": "finished", "futureFlag": "x",
   "state": {"text": "Done", "code": "publishing/DONE", "param": {"n": 3}},
   "created": "2026-11-21T10:15:00.000Z", "finished": "2026-11-21T10:16:30.250Z"},
 "payload": {"command-parameters": {"z": 1, "a": [true, null]}, "result": [
   {"success": true, "data": "a"}, {"success": false, "data": "", "httpStatus": 409,
    "errorCode": "datamodel/THUMBNAIL_CHANGED", "errorMessage": "changed", "futureDetail": 1}],
   "futurePayload": "kept"},
 "_links": {"self": {"href": "https://host/apis/commands;version=1;realm=global/commands/c-9"}}}`
	var cmd client.Command
	if err := json.Unmarshal([]byte(raw), &cmd); err != nil {
		t.Fatal(err)
	}
	m := commandDataSourceModel{ID: types.StringNull(), Href: types.StringValue("/relative/c-9")}
	if diags := m.refresh(&cmd); diags.HasError() {
		t.Fatalf("refresh: %v", diags)
	}
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"id", m.ID, types.StringValue("c-9")},
		{"href (kept as configured)", m.Href, types.StringValue("/relative/c-9")},
		{"version", m.Version, types.StringValue("1.1")},
		{"type", m.Type, types.StringNull()},
		{"progress", m.Progress, types.Int64Null()},
		{"created", m.Created, types.StringValue("2026-11-21T10:15:00Z")},
		{"modified", m.Modified, types.StringNull()},
		{"finished", m.Finished, types.StringValue("2026-11-21T10:16:30.25Z")},
		{"host", m.Host, types.StringNull()},
		{"parameters_json", m.ParametersJSON, types.StringValue(`{"a":[true,null],"z":1}`)},
		// Without counts in the state params, they are counted from the results.
		{"total_count", m.TotalCount, types.Int64Value(2)},
		{"success_count", m.SuccessCount, types.Int64Value(1)},
		{"failure_count", m.FailureCount, types.Int64Value(1)},
	} {
		if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if m.State == nil || !maps.Equal(m.State.Params, map[string]string{"n": "3"}) {
		t.Errorf("state = %+v, want params read from \"param\"", m.State)
	}
	if len(m.Results) != 2 || m.Results[1].HTTPStatus.ValueInt64() != 409 || !m.Results[0].HTTPStatus.IsNull() {
		t.Errorf("results = %+v", m.Results)
	}
	for _, unmodelled := range []string{`"futureTopLevel":{"flag":true}`, `"futureFlag":"x"`, `"futureDetail":1`, `"futurePayload":"kept"`} {
		if !strings.Contains(m.JSON.ValueString(), unmodelled) {
			t.Errorf("json lacks %s: %s", unmodelled, m.JSON.ValueString())
		}
	}
	if m.Error != nil {
		t.Errorf("error = %+v, want nil", m.Error)
	}
}

func TestDataSourceShortDuration(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		20 * time.Minute: "20m", time.Second: "1s", time.Hour: "1h", 90 * time.Second: "1m30s",
		150 * time.Minute: "2h30m", 1500 * time.Millisecond: "1.5s",
	} {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%s) = %s, want %s", d, got, want)
		}
	}
}
