//go:build linux

package provider

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// TestAccDiagnostics_interruptDuringTokenGrant: Ctrl-C (SIGINT to the process group)
// 1.5 s after a plan starts reading, on a platform that answers every request in 3 s,
// reaches the reads while the token flow they wait for is on the wire. The error of a
// refresh read and of a data source read say that the platform token grant was on
// its way and the read never sent, and what may stay live until when: the token of a
// grant the platform completes after the provider ended.
func TestAccDiagnostics_interruptDuringTokenGrant(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	emu := newTestEmulatorWith(t, "a platform answering in 3 s", emulator.Options{RenderDelay: testRenderDelay})
	ctl := emu.control(t, "a platform answering in 3 s")
	name := accName()
	w := newWorkspace(t, emu, fmt.Sprintf("resource \"mediaplatform_score\" \"s\" {\n  score_url = %q\n  score_id  = %q\n}\n"+
		"data \"mediaplatform_score_count\" \"all\" {}\n", accScoreURL(name), name))
	w.run("apply", "-auto-approve")
	ctl.SetFaults(emulator.Faults{LatencyMs: 3000})

	cmd := w.command("plan")
	out, _, exited := startInGroup(t, cmd)
	if !waitFor(2*time.Minute, func() bool { return strings.Contains(out.String(), "Refreshing state...") }) {
		t.Fatalf("the plan never started reading:\n%s", out.String())
	}
	time.Sleep(1500 * time.Millisecond) // the token flow is on the wire
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	<-exited
	time.Sleep(3 * time.Second) // a grant still on the wire reaches the platform
	s := ctl.Stats()
	t.Logf("after the interrupted plan: %d grants, %d removals, %d tokens live", s.Logins["oauth"], s.Requests[removalRoute], s.LiveTokens)
	text := strings.Join(strings.Fields(out.String()), " ")
	if !strings.Contains(text, "Interrupted") {
		t.Fatalf("the plan reports no interruption:\n%s", out.String())
	}
	for _, want := range []string{
		"the provider's platform token grant was on its way, before",
		"the token it grants stays live until it expires, one token lifetime",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the interrupted plan does not say %q:\n%s", want, out.String())
		}
	}
	for _, generic := range []string{"while this call was on its way", "the reads still on their way were abandoned"} {
		if strings.Contains(text, generic) {
			t.Errorf("the interrupted plan says %q, not what was on the wire:\n%s", generic, out.String())
		}
	}
	ctl.Expire(true, false) // the late grant's token, which the error names
	ctl.SetFaults(emulator.Faults{})
	w.run("destroy", "-auto-approve")
}
