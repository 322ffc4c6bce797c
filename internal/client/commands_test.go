package client

// The command resource and the addresses a command call may go to.

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

func TestCommandDecoding(t *testing.T) {
	t.Parallel()
	body := `{"version":"1.0","command":{"id":"c-7","type":"bulk","lifecycle":"finished","progress":100,
	  "state":{"text":"done","code":"x/DONE","param":{"totalCount":3,"successCount":2,"failureCount":1}},
	  "created":"2026-11-21T10:15:00.000Z","finished":"2026-11-21T10:16:00.000Z","creator":"alice","unknown":1},
	  "payload":{"command-parameters":{"ids":["a"]},"result":[{"success":true,"data":"a"},
	    {"success":false,"data":"","httpStatus":409,"errorCode":"datamodel/THUMBNAIL_CHANGED","errorMessage":"changed"}],"extra":true},
	  "_links":{"self":{"href":"/c/7"},"command:cancel":[{"href":"/c/7"}]}}`
	var cmd Command
	if err := json.Unmarshal([]byte(body), &cmd); err != nil {
		t.Fatal(err)
	}
	counts, ok := cmd.BulkCounts()
	if !ok || counts != (BulkCounts{Total: 3, Success: 2, Failure: 1}) {
		t.Errorf("counts %+v %v", counts, ok)
	}
	if !cmd.Command.Terminal() || *cmd.Command.Progress != 100 || cmd.Command.Finished.IsZero() || !cmd.Command.Modified.IsZero() {
		t.Errorf("command %+v", cmd.Command)
	}
	if len(cmd.Payload.Result) != 2 || cmd.Payload.Result[1].HTTPStatus != 409 || string(cmd.Payload.Parameters) != `{"ids":["a"]}` {
		t.Errorf("payload %+v", cmd.Payload)
	}
	if self, ok := cmd.Links.First("self"); !ok || self.Href != "/c/7" || len(cmd.Raw) == 0 || len(cmd.Payload.Raw) == 0 {
		t.Errorf("links/raw: %+v", cmd.Links)
	}
}

func TestPlatformHrefRefusesForeignHosts(t *testing.T) {
	t.Parallel()
	f := newProxiedPlatform(t, emulator.Options{})
	f.handle("GET /apis/registry;version=0/serviceroots", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"resources": map[string]any{
			relCommandByID: []any{map[string]any{"href": "/apis/commands;version=1;realm=global/commands/{id}", "templated": true}},
		}})
	})
	c := newTestClient(t, f.config())
	_, err := c.GetCommandByHref(context.Background(), "https://evil.example/commands/1")
	if err == nil || !strings.Contains(err.Error(), "refusing") {
		t.Fatalf("got %v", err)
	}
	_, err = c.GetCommandByHref(context.Background(), "/apis/commands;version=1;realm=global/commands/1")
	if !IsNotFound(err) {
		t.Fatalf("relative href: %v", err)
	}
	// A platform path outside the command service is refused before any request to it.
	before := f.count(routeTokenInfo)
	_, err = c.GetCommandByHref(context.Background(), "/auth/tokens/current")
	if err == nil || !strings.Contains(err.Error(), "does not address a command") {
		t.Fatalf("token information as a command: %v", err)
	}
	if n := f.count(routeTokenInfo) - before; n != 0 {
		t.Errorf("the token information was read %d times", n)
	}
}

// commandStepHeld is how long a step the tests read before it ends stays current: the
// read follows the command's creation at once, and must find the step still current on
// a loaded machine (at 50 ms, a loaded run of TestWaitForCommandInUpperCase read the
// command already finished).
const commandStepHeld = time.Second

func TestEmulatorCommands(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c := env.client()
	ctx := env.ctx

	id, err := env.emu.CreateCommand(emulator.CommandScript{
		Type: "datamodel:bulk-update", Creator: "alice", Parameters: map[string]any{"ids": []any{"a", "b"}},
		Steps: []emulator.CommandStep{
			{Lifecycle: "pending", Duration: commandStepHeld},
			{Lifecycle: "running", Progress: 50, Duration: commandStepHeld,
				State: &emulator.CommandStepState{Text: "Updating", Code: "datamodel/UPDATING", Params: map[string]any{"done": 1}}},
			{Lifecycle: "finished", Progress: 100},
		},
		Results: []emulator.CommandResult{
			{Success: true, Data: "a"},
			{Success: false, HTTPStatus: 409, ErrorCode: "datamodel/THUMBNAIL_CHANGED", ErrorMessage: "thumbnail changed"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	cmd, err := c.GetCommand(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if cmd.Version != "1.0" || cmd.Command.ID != id || cmd.Command.Terminal() || cmd.Command.Type != "datamodel:bulk-update" {
		t.Errorf("command %+v", cmd.Command)
	}
	done, err := c.WaitForCommand(ctx, cmd)
	if err != nil {
		t.Fatal(err)
	}
	ci := done.Command
	if ci.Lifecycle != LifecycleFinished || ci.Progress == nil || *ci.Progress != 100 || ci.Finished.IsZero() ||
		ci.Creator != "alice" || ci.Host == "" || ci.ServiceName == "" || ci.Error != nil {
		t.Errorf("finished command %+v", ci)
	}
	counts, ok := done.BulkCounts()
	if !ok || counts != (BulkCounts{Total: 2, Success: 1, Failure: 1}) {
		t.Errorf("counts %+v %v", counts, ok)
	}
	if done.Payload == nil || len(done.Payload.Result) != 2 || done.Payload.Result[1].ErrorCode != "datamodel/THUMBNAIL_CHANGED" ||
		done.Payload.Result[1].HTTPStatus != 409 || done.Payload.Result[0].Data != "a" || !strings.Contains(string(done.Payload.Parameters), `"ids"`) {
		t.Errorf("payload %+v", done.Payload)
	}
	if _, err := c.CancelCommand(ctx, done); !IsForbidden(err) {
		t.Errorf("cancel finished: %v", err)
	}
	self, _ := done.Links.First("self")
	if again, err := c.GetCommandByHref(ctx, self.Href); err != nil || again.Command.ID != id {
		t.Errorf("by href: %v", err)
	}

	failing, _ := env.emu.CreateCommand(emulator.CommandScript{
		Steps: []emulator.CommandStep{{Lifecycle: "running", Duration: 50 * time.Millisecond}, {Lifecycle: "error"}},
		Error: &emulator.CommandError{Cause: "timeout", HTTPCode: 504, Text: "too slow", Code: "commands/TIMEOUT"},
	})
	cmd, err = c.GetCommand(ctx, failing)
	if err != nil {
		t.Fatal(err)
	}
	if cmd, err = c.WaitForCommand(ctx, cmd); err != nil || cmd.Command.Lifecycle != LifecycleError || cmd.Command.Error == nil ||
		cmd.Command.Error.Cause != "timeout" || cmd.Command.Error.HTTPCode != 504 || cmd.Command.Error.Code != "commands/TIMEOUT" {
		t.Errorf("failed command %+v %v", cmd.Command, err)
	}

	suspended, _ := env.emu.CreateCommand(emulator.CommandScript{Steps: []emulator.CommandStep{{Lifecycle: "suspended", Progress: 30}}})
	cmd, err = c.GetCommand(ctx, suspended)
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 2*time.Second) // the first read must fit in it on a loaded machine
	defer cancel()
	last, err := c.WaitForCommand(wctx, cmd)
	if !errors.Is(err, context.DeadlineExceeded) || last == nil || last.Command.Lifecycle != LifecycleSuspended {
		t.Errorf("suspended: %+v %v", last, err)
	}
	canceled, err := c.CancelCommand(ctx, cmd)
	if err != nil || canceled.Command.Lifecycle != LifecycleError || canceled.Command.Error == nil || canceled.Command.Error.Cause != "canceled" {
		t.Errorf("cancel: %+v %v", canceled, err)
	}
	if again, err := c.CancelCommand(ctx, canceled); err != nil || again.Command.Error.Cause != "canceled" {
		t.Errorf("second cancel: %+v %v", again, err)
	}
	if _, err := c.GetCommand(ctx, "c-999"); !IsNotFound(err) {
		t.Errorf("missing command: %v", err)
	}
}

// TestCommandNamedValuesInAnyCase: a lifecycle and an error cause the specification
// names are read in any case and kept in its spelling (rule 20: Jackson writes a Java
// enum's name); a value it does not name stays as it came, and is not terminal.
func TestCommandNamedValuesInAnyCase(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ lifecycle, cause, wantLifecycle, wantCause string }{
		{"FINISHED", "", LifecycleFinished, ""},
		{"Error", "RUNTIMEERROR", LifecycleError, CauseRuntimeError},
		{"ERROR", "Canceled", LifecycleError, CauseCanceled},
		{"RUNNING", "", LifecycleRunning, ""},
		{"Pending", "", LifecyclePending, ""},
		{"SUSPENDED", "", LifecycleSuspended, ""},
		{"error", "TIMEOUT", LifecycleError, CauseTimeout},
		{"Finishing", "Rejected", "Finishing", CauseRejected},
		{"DONE", "gone", "DONE", "gone"},
	} {
		body := `{"version":"1.0","command":{"id":"c-1","lifecycle":"` + tc.lifecycle + `"`
		if tc.cause != "" {
			body += `,"error":{"cause":"` + tc.cause + `","text":"x","code":"commands/X"}`
		}
		body += `}}`
		var cmd Command
		if err := json.Unmarshal([]byte(body), &cmd); err != nil {
			t.Fatal(err)
		}
		ci := cmd.Command
		if ci.Lifecycle != tc.wantLifecycle {
			t.Errorf("lifecycle %q read as %q, want %q", tc.lifecycle, ci.Lifecycle, tc.wantLifecycle)
		}
		if terminal := tc.wantLifecycle == LifecycleFinished || tc.wantLifecycle == LifecycleError; ci.Terminal() != terminal {
			t.Errorf("lifecycle %q: terminal %v, want %v", tc.lifecycle, ci.Terminal(), terminal)
		}
		if tc.cause != "" && (ci.Error == nil || ci.Error.Cause != tc.wantCause) {
			t.Errorf("cause %q read as %+v, want %q", tc.cause, ci.Error, tc.wantCause)
		}
	}
}

// TestWaitForCommandInUpperCase: on a platform that writes the lifecycle in upper case
// (switch upperCaseLifecycle), a wait ends when the command has finished, and a
// failed command is read as in lifecycle error.
func TestWaitForCommandInUpperCase(t *testing.T) {
	t.Parallel()
	env, c := readingEnv(t, "upperCaseLifecycle")
	ctx, cancel := context.WithTimeout(env.ctx, time.Minute) // bounds only a wait that never ends
	defer cancel()
	for _, tc := range []struct {
		last string
		want string
	}{{"finished", LifecycleFinished}, {"error", LifecycleError}} {
		id, err := env.emu.CreateCommand(emulator.CommandScript{Steps: []emulator.CommandStep{
			{Lifecycle: "running", Progress: 40, Duration: commandStepHeld}, {Lifecycle: tc.last, Progress: 100},
		}})
		if err != nil {
			t.Fatal(err)
		}
		cmd, err := c.GetCommand(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(cmd.Raw), `"RUNNING"`) || cmd.Command.Lifecycle != LifecycleRunning {
			t.Fatalf("the platform wrote %s, read as %q", cmd.Raw, cmd.Command.Lifecycle)
		}
		done, err := c.WaitForCommand(ctx, cmd)
		if err != nil || done.Command.Lifecycle != tc.want {
			t.Errorf("wait for a command ending %s: %v, lifecycle %q", strings.ToUpper(tc.last), err, done.Command.Lifecycle)
		}
	}
}
