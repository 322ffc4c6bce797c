package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// TestAccActionCancelCommand_invoke cancels a running command with `terraform apply -invoke`,
// then invokes the action again on the command that has now ended: the second
// invocation is a success (already canceled), and on a finished command it fails
// saying how the command ended.
func TestAccActionCancelCommand_invoke(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	emu := newTestEmulator(t)
	ctl := emu.control(t, "scripted commands")
	running, err := ctl.CreateCommand(emulator.CommandScript{Type: "publishing:purge", Steps: []emulator.CommandStep{
		{Lifecycle: "running", Progress: 40},
	}})
	if err != nil {
		t.Fatal(err)
	}
	finished, err := ctl.CreateCommand(emulator.CommandScript{Steps: []emulator.CommandStep{{Lifecycle: "finished", Progress: 100}}})
	if err != nil {
		t.Fatal(err)
	}
	w := newWorkspace(t, emu, fmt.Sprintf(`
action "mediaplatform_cancel_command" "running" {
  config {
    id = %q
  }
}
action "mediaplatform_cancel_command" "finished" {
  config {
    id = %q
  }
}
`, running, finished))
	w.skipBelowCLI("1.14.0")

	out := w.run("apply", "-auto-approve", "-invoke=action.mediaplatform_cancel_command.running")
	for _, want := range []string{"is running at 40% progress; canceling it.", "canceled: lifecycle error (cause canceled)."} {
		if !strings.Contains(out, want) {
			t.Errorf("the invocation does not report %q:\n%s", want, out)
		}
	}
	cmd, err := emu.client(t).GetCommand(context.Background(), running)
	if err != nil {
		t.Fatal(err)
	}
	if cmd.Command.Lifecycle != client.LifecycleError || cmd.Command.Error == nil || cmd.Command.Error.Cause != "canceled" {
		t.Errorf("after the invocation the command is %q (error %+v), want error with cause canceled", cmd.Command.Lifecycle, cmd.Command.Error)
	}
	w.run("apply", "-auto-approve", "-invoke=action.mediaplatform_cancel_command.running")

	failed := w.command("apply", "-auto-approve", "-invoke=action.mediaplatform_cancel_command.finished")
	b, err := failed.CombinedOutput()
	if err == nil {
		t.Fatalf("canceling a finished command succeeded:\n%s", b)
	}
	if !errorPattern("Command already ended", "has already ended in lifecycle \"finished\", so it cannot be canceled").Match(b) {
		t.Errorf("the failure does not say how the command ended:\n%s", b)
	}
}
