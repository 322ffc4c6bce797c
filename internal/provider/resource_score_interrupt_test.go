//go:build linux

package provider

import (
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// TestAccScore_interruptDuringTokenGrant: a CI cancel (SIGTERM to the process group)
// 1.5 s after "Creating…", on a platform that answers every request in 3 s, reaches the
// provider while its token flow is on the wire: the publish of no score was sent by
// the end of the stop bound. Each create says so: what was on the wire was the
// platform token grant, the publish was never sent, and nothing was published; it
// does not claim that the platform may have published the score. It names what may
// stay live, the token of a grant the platform completes after the provider ended,
// and until when. The platform received no publish, and the next apply creates every
// score once.
func TestAccScore_interruptDuringTokenGrant(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	emu := newTestEmulatorWith(t, "a platform answering in 3 s", emulator.Options{RenderDelay: testRenderDelay})
	ctl := emu.control(t, "a platform answering in 3 s")
	const scores = 3
	var config strings.Builder
	for i := range scores {
		name := accName()
		fmt.Fprintf(&config, "resource \"mediaplatform_score\" \"s%d\" {\n  score_url = %q\n  score_id  = %q\n}\n", i, accScoreURL(name), name)
	}
	w := newWorkspace(t, emu, config.String())
	ctl.SetFaults(emulator.Faults{LatencyMs: 3000})

	cmd := w.command("apply", "-auto-approve")
	out, _, exited := startInGroup(t, cmd)
	if !waitFor(2*time.Minute, func() bool { return strings.Contains(out.tail(), "Creating...") }) {
		t.Fatalf("the apply never started creating:\n%s", out.tail())
	}
	time.Sleep(1500 * time.Millisecond) // the cancel the issue measured: the token flow is on the wire
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	<-exited
	took := time.Since(stopped)
	// A grant still on the wire reaches the platform up to 3 s after the provider ended.
	time.Sleep(3 * time.Second)
	s := ctl.Stats()
	publishes := 0
	for route, n := range s.Requests {
		if strings.HasPrefix(route, http.MethodPost+" ") && strings.HasSuffix(route, "/scores") {
			publishes += n
		}
	}
	t.Logf("terraform ended %s after SIGTERM; the platform received %d publishes, %d grants, %d removals; %d tokens and %d sessions live",
		took.Round(10*time.Millisecond), publishes, s.Logins["oauth"], s.Requests[removalRoute], s.LiveTokens, s.LiveSessions)
	lead := strings.Join(strings.Fields(out.String()), " ")
	if publishes != 0 {
		t.Fatalf("the platform received %d publishes: the cancel came too late for this test's point:\n%s", publishes, out.String())
	}
	if strings.Contains(lead, "may have published") {
		t.Errorf("the stopped apply claims that the platform may have published a score it was never sent:\n%s", out.String())
	}
	for _, want := range []string{
		"Interrupted: Terraform was stopped while the provider's platform token grant was on its way, before the publish of this score was sent",
		"the platform did not publish this score; run the apply again",
		"the token it grants stays live until it expires, one token lifetime",
	} {
		if n := strings.Count(lead, want); n != scores {
			t.Errorf("the stopped apply says %q %d times, want once per score (%d):\n%s", want, n, scores, out.String())
		}
	}
	ctl.Expire(true, true) // a late grant's token is the one the diagnostics name
	ctl.SetFaults(emulator.Faults{})
	next := w.run("apply", "-auto-approve")
	if n := ctl.Stats().Scores; n != scores {
		t.Errorf("after the stopped apply and one more, the platform holds %d scores, want %d:\n%s", n, scores, next)
	}
}
