package provider

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// TestWithGrace_cutAtGrace: a graceful context outlives its parent's cancellation by
// the grace, then ends with errStopBound as its cause; one its caller stops first, or
// whose parent is never cancelled, is not cut by the bound.
func TestWithGrace_cutAtGrace(t *testing.T) {
	parent, cancelParent := context.WithCancel(context.Background())
	graceful, stop := withGrace(parent, 20*time.Millisecond)
	defer stop()
	cancelParent()
	if graceful.Err() != nil {
		t.Fatalf("the graceful context ended with its parent: %v", graceful.Err())
	}
	select {
	case <-graceful.Done():
	case <-time.After(time.Minute):
		t.Fatal("the graceful context outlived its grace by a minute")
	}
	if !errors.Is(graceful.Err(), context.Canceled) || !cutByStopBound(graceful) {
		t.Errorf("cut at its grace: Err %v, cause %v; want context.Canceled caused by errStopBound", graceful.Err(), context.Cause(graceful))
	}

	graceful, stop = withGrace(context.Background(), 20*time.Millisecond)
	stop()
	if graceful.Err() == nil || cutByStopBound(graceful) {
		t.Errorf("stopped by its caller: Err %v, cause %v; want ended, not by the stop bound", graceful.Err(), context.Cause(graceful))
	}
}

// TestAccScore_interruptStopBound holds the platform's answer to a publish past the
// provider's stop bound, with request_timeout = 60s, and interrupts terraform once
// while it waits; the look-up of its alias that would settle it is held too: terraform
// ends within stopBound of the interrupt (not when the request times out), leaves no
// token live, and says that the publish's outcome is unknown and how the next run
// recovers it; the next apply takes the score over by its alias (adopt_unrecorded)
// and publishes nothing twice.
func TestAccScore_interruptStopBound(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	emu, proxy := newProxiedTestEmulator(t, "a publish answer held past the stop bound")
	ctl := emu.control(t, "score counts and live tokens")
	release := make(chan struct{})
	released := false
	letGo := func() {
		if !released {
			released = true
			close(release)
		}
	}
	defer letGo()
	proxy.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/scores$`, Hold: release})
	proxy.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/scores/stop-bound$`, Hold: release})
	w := newWorkspace(t, emu, "")
	w.writeWith(`request_timeout = "60s"`, fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url        = %q
  score_id         = "stop-bound"
  adopt_unrecorded = true
}
`, accScoreURL("stop-bound")))

	cmd := w.command("apply", "-auto-approve")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }() // an interrupted apply exits non-zero
	if !waitFor(time.Minute, func() bool { return ctl.Stats().Scores == 1 }) {
		t.Fatalf("the publish did not reach the platform within a minute:\n%s", out.String())
	}
	// The platform holds the score and its answer is held: one interrupt.
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	interrupted := time.Now()
	// Far past the bound, the answer is let through, so that a provider that waits for
	// it does not keep the test for the whole request_timeout.
	const patience = 25 * time.Second
	select {
	case <-done:
	case <-time.After(patience):
		letGo()
		<-done
	}
	took := time.Since(interrupted)
	letGo()
	s := ctl.Stats()
	t.Logf("terraform ended %s after one interrupt (stop bound %s, request_timeout 60s); %d scores on the platform, %d tokens and %d sessions live",
		took.Round(10*time.Millisecond), stopBound, s.Scores, s.LiveTokens, s.LiveSessions)
	if !strings.Contains(out.String(), "Interrupt received") {
		t.Fatalf("terraform was not interrupted:\n%s", out.String())
	}
	if took > stopBound {
		t.Errorf("terraform ended %s after one interrupt, beyond the provider's stop bound of %s:\n%s", took.Round(10*time.Millisecond), stopBound, out.String())
	}
	if s.LiveTokens+s.LiveSessions != 0 {
		t.Errorf("the stopped apply left %d tokens and %d sessions live", s.LiveTokens, s.LiveSessions)
	}
	lead := strings.Join(strings.Fields(out.String()), " ")
	for _, want := range []string{"Interrupted: Terraform was stopped while the publish of this score was on its way",
		"had not answered " + publishGrace.String() + " later", "within about 8s of one interrupt", "outcome is unknown", `alias "stop-bound"`, "adopt_unrecorded = true, takes it over"} {
		if !strings.Contains(lead, want) {
			t.Errorf("the stopped apply does not say %q:\n%s", want, out.String())
		}
	}

	proxy.Clear()
	publishes := proxy.Count(http.MethodPost, `/scores$`)
	next := w.run("apply", "-auto-approve")
	if n := ctl.Stats().Scores; n != 1 {
		t.Errorf("after the stopped apply and one more, the platform holds %d scores, want 1:\n%s", n, next)
	}
	if !strings.Contains(next, "Score adopted") {
		t.Errorf("the next apply did not take the score over by its alias:\n%s", next)
	}
	t.Logf("the next apply sent %d publishes", proxy.Count(http.MethodPost, `/scores$`)-publishes)
	w.run("destroy", "-auto-approve")
}

// TestAccScoreView_interruptStopBound: the same for a view's create, whose answer is
// held past the stop bound: terraform ends within it, and says that the view's
// outcome is unknown and that its viewer URL stays valid until it expires.
func TestAccScoreView_interruptStopBound(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	emu, proxy := newProxiedTestEmulator(t, "a view's create answer held past the stop bound")
	ctl := emu.control(t, "view counts and live tokens")
	release := make(chan struct{})
	defer close(release)
	w := newWorkspace(t, emu, "")
	config := fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url = %q
  score_id  = "stop-bound-view"
}
`, accScoreURL("stop-bound-view"))
	w.writeWith(`request_timeout = "60s"`, config)
	w.run("apply", "-auto-approve")
	w.writeWith(`request_timeout = "60s"`, config+`
resource "mediaplatform_score_view" "test" {
  score = mediaplatform_score.test.id
}
`)
	proxy.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/view$`, Hold: release})
	cmd := w.command("apply", "-auto-approve")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	if !waitFor(time.Minute, func() bool { return ctl.Stats().Views == 1 }) {
		t.Fatalf("the view's create did not reach the platform within a minute:\n%s", out.String())
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	interrupted := time.Now()
	select {
	case <-done:
	case <-time.After(stopBound + time.Minute):
		t.Fatalf("terraform did not end within a minute past the stop bound:\n%s", out.String())
	}
	took := time.Since(interrupted)
	s := ctl.Stats()
	t.Logf("terraform ended %s after one interrupt (stop bound %s); %d tokens and %d sessions live", took.Round(10*time.Millisecond), stopBound, s.LiveTokens, s.LiveSessions)
	if took > stopBound {
		t.Errorf("terraform ended %s after one interrupt, beyond the provider's stop bound of %s:\n%s", took.Round(10*time.Millisecond), stopBound, out.String())
	}
	if s.LiveTokens+s.LiveSessions != 0 {
		t.Errorf("the stopped apply left %d tokens and %d sessions live", s.LiveTokens, s.LiveSessions)
	}
	lead := strings.Join(strings.Fields(out.String()), " ")
	for _, want := range []string{"Interrupted: Terraform was stopped while the create of this view was on its way",
		"outcome is unknown", "stays valid until it expires"} {
		if !strings.Contains(lead, want) {
			t.Errorf("the stopped apply does not say %q:\n%s", want, out.String())
		}
	}
}

// TestAccScore_interruptSettlesPublishes interrupts terraform once (SIGINT) while a
// slow gateway holds the answers to 4 publishes 8 s after the platform acted, with
// score_id and without: terraform ends within stopBound of the interrupt, the state
// holds the 4 scores (each publish cut at publishGrace was looked up, by its alias or
// by its score_url and this run's time, within publishSettle), and the next plan is
// empty, so a second apply publishes nothing twice. Before, the state held 0 of 4 and
// the next apply published the 4 unaliased scores again: 8 on the platform.
func TestAccScore_interruptSettlesPublishes(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	const scores = 4
	for _, aliased := range []bool{false, true} {
		t.Run(fmt.Sprintf("score_id %v", aliased), func(t *testing.T) {
			t.Parallel()
			emu, proxy := newProxiedTestEmulator(t, "a slow gateway holding publish answers")
			ctl := emu.control(t, "score counts and live tokens")
			proxy.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/scores$`, Delay: 8 * time.Second})
			name := accName()
			alias := ""
			if aliased {
				alias = fmt.Sprintf("\n  score_id  = \"%s-${count.index}\"", name)
			}
			w := newWorkspace(t, emu, "")
			w.writeWith(`request_timeout = "60s"`, fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  count     = %d
  score_url = "%s-${count.index}.sib"%s
}
`, scores, strings.TrimSuffix(accScoreURL(name), ".sib"), alias))

			cmd := w.command("apply", "-auto-approve")
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			if !waitFor(time.Minute, func() bool { return ctl.Stats().Scores == scores }) {
				t.Fatalf("the publishes did not reach the platform within a minute:\n%s", out.String())
			}
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			interrupted := time.Now()
			var err error
			select {
			case err = <-done:
			case <-time.After(stopBound + time.Minute):
				t.Fatalf("terraform did not end within a minute past the stop bound:\n%s", out.String())
			}
			took := time.Since(interrupted)
			exit := exitCode(t, err)
			inState := len(strings.Fields(w.run("state", "list")))
			s := ctl.Stats()
			t.Logf("terraform ended %s after one interrupt (stop bound %s), exit %d; %d of %d scores in the state, %d on "+
				"the platform, %d tokens and %d sessions live", took.Round(10*time.Millisecond), stopBound, exit, inState,
				scores, s.Scores, s.LiveTokens, s.LiveSessions)
			if !strings.Contains(out.String(), "Interrupt received") {
				t.Fatalf("terraform was not interrupted:\n%s", out.String())
			}
			if took > stopBound {
				t.Errorf("terraform ended %s after one interrupt, beyond the provider's stop bound of %s:\n%s",
					took.Round(10*time.Millisecond), stopBound, out.String())
			}
			if inState != scores {
				t.Errorf("the state holds %d of the %d scores the platform published:\n%s", inState, scores, out.String())
			}
			if n := countWarnings(out.String(), "Score published; recorded after the stop"); n != scores {
				t.Errorf("%d warnings name a score recorded after the stop, want %d:\n%s", n, scores, out.String())
			}
			proxy.Clear()
			if plan, err := w.command("plan", "-detailed-exitcode").CombinedOutput(); exitCode(t, err) != 0 {
				t.Errorf("the plan after the stopped apply is not empty:\n%s", plan)
			}
			w.run("apply", "-auto-approve")
			if n := ctl.Stats().Scores; n != scores {
				t.Errorf("after the stopped apply and one more, the platform holds %d scores for %d configured", n, scores)
			}
			w.run("destroy", "-auto-approve")
		})
	}
}
