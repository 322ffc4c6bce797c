package provider

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// stopGrace is how long a write already on the wire (a publish, a view's create) may
// still take once Terraform is stopped (one interrupt: Ctrl-C, a cancelled CI job,
// `docker stop`), whatever request_timeout is. With the exit's window (closeTimeout,
// under Terraform's 2 s for a provider to end) a stopped Terraform ends within about
// stopBound: inside `docker stop`'s 10 s, a runner's 10 s from SIGINT to SIGKILL, and
// Kubernetes' 30 s. A call still on the wire then is cut: its outcome is unknown, and
// the next run finds what it made (a score by its alias, adopt_unrecorded).
const stopGrace = 5 * time.Second

// stopBound is how long Terraform with this provider takes at most to end after one
// interrupt, as the documentation states it: stopGrace, the exit's window, and
// Terraform's own stop.
const stopBound = 8 * time.Second

// StopBound is stopBound for the models of CI runners and containers
// (internal/cimodels), which check that it fits inside each place's grace.
const StopBound = stopBound

// publishSettle is how long, within stopGrace, a publish cut by the stop bound is looked
// up (client.SettlePublish) before its outcome is left unknown: a GET of its alias, or
// the listing of its score_url read again while a search index may lag it.
const publishSettle = 1500 * time.Millisecond

// publishGrace is how long a publish already on the wire may still take once
// Terraform is stopped, before it is cut and settled: the publish and its settling
// end within stopGrace.
const publishGrace = stopGrace - publishSettle

// errStopBound is the cause of a graceful context cut at stopGrace.
var errStopBound = errors.New("the provider's stop bound passed")

// withGrace returns a context that outlives ctx's cancellation by at most grace:
// a write already sent may finish (and its result reach the state) when Terraform
// stops, while a deadline of ctx still applies as it is. Call stop when done. A
// context cut because grace passed has errStopBound as its cause (cutByStopBound).
func withGrace(ctx context.Context, grace time.Duration) (graceful context.Context, stop context.CancelFunc) {
	out, cancelCause := context.WithCancelCause(context.WithoutCancel(ctx))
	cancel := func() { cancelCause(nil) }
	if deadline, ok := ctx.Deadline(); ok {
		var cancelDeadline context.CancelFunc
		out, cancelDeadline = context.WithDeadline(out, deadline)
		inner := cancel
		cancel = func() { cancelDeadline(); inner() }
	}
	var timer *time.Timer
	var mu sync.Mutex
	stopAfter := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		timer = time.AfterFunc(grace, func() { cancelCause(errStopBound) })
	})
	return out, func() {
		stopAfter()
		mu.Lock()
		if timer != nil {
			timer.Stop()
		}
		mu.Unlock()
		cancel()
	}
}

// cutByStopBound reports whether a context of withGrace was cut because its grace
// after the interrupt passed, rather than ended by its caller or its deadline.
func cutByStopBound(graceful context.Context) bool {
	return errors.Is(context.Cause(graceful), errStopBound)
}

// stopBoundLead is the first sentence for a write cut at its grace (waited) after the
// interrupt: what happened and why. what names the write ("the publish of this score").
func stopBoundLead(what string, waited time.Duration) string {
	return fmt.Sprintf("Interrupted: Terraform was stopped while %s was on its way, and the platform had not answered "+
		"%s later, so the provider stopped waiting for it: Terraform with this provider ends within about %s of one "+
		"interrupt, whatever request_timeout is, inside the grace periods of CI runners and containers.",
		what, waited, stopBound)
}

// stopBoundCredentialLead is the first sentence for a write cut at its grace (waited)
// after the interrupt while the provider still waited for its credential: credential
// names the request that was on the wire ("platform token grant", "administrator
// login"), what names the write, which was never sent, and outcome says what that
// means ("the platform did not publish this score").
func stopBoundCredentialLead(credential, what, outcome string, waited time.Duration) string {
	return fmt.Sprintf("Interrupted: Terraform was stopped while the provider's %s was on its way, before %s was "+
		"sent: %s; run the apply again. The platform had not answered %s after the stop, so the provider stopped "+
		"waiting, and %s was never sent.", credential, what, outcome, waited, what)
}

// credentialLeftHint says what a login or grant still on the wire when the provider
// stopped waiting for it may leave live, and until when.
func credentialLeftHint(credential string) string {
	if credential == "administrator login" {
		return "If the platform completes that login, the session it opens stays live until it expires, after the " +
			"platform's idle period for sessions (30 minutes unless its operators changed it), unless the login's " +
			"answer and the logout both fit in the provider's exit (" + closeTimeout.String() + ")."
	}
	return "If the platform completes that grant, the token it grants stays live until it expires, one token lifetime " +
		"(the expires_in of the platform's grants) after the grant, unless the grant's answer and the token's removal " +
		"both fit in the provider's exit (" + closeTimeout.String() + ")."
}

// stopBoundPublishHint says what a publish cut at publishGrace, and not settled by
// the look-up after it, left and how the next run recovers it.
func stopBoundPublishHint(alias string, adopt bool) string {
	switch {
	case alias != "" && adopt:
		return fmt.Sprintf("The platform may have published the score, and the outcome is unknown: looking it up before "+
			"the provider ended did not find it. Nothing to do: the next "+
			"apply finds it by its alias %q (score_id) and, with adopt_unrecorded = true, takes it over with a warning "+
			"instead of publishing it again.", alias)
	case alias != "":
		return fmt.Sprintf("The platform may have published the score, and the outcome is unknown: looking it up before "+
			"the provider ended did not find it. The next apply finds it "+
			"by its alias %q (score_id) and stops with the terraform import command that takes it over; set "+
			"adopt_unrecorded = true on the resource to have it taken over by itself.", alias)
	}
	return "The platform may have published the score, and the outcome is unknown: looking for it by its score_url before " +
		"the provider ended did not find it, and without score_id nothing else tells it " +
		"apart from a score published by anyone else from the same file. Before applying again, find it (data source " +
		"mediaplatform_scores with score_url set to this address) and import it with `terraform import` and its UUID, or " +
		"delete it. Give every score a CI job creates a score_id."
}
