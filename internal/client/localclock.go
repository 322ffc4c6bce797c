package client

// This machine's clock, as the client waits on it and judges its budgets with it: the
// rate gate's pace and pauses, the backoff between attempts, Retry-After waits, the
// exit's waits, the time a call has spent retrying, the rendering wait's rounds, the
// batched refresh's waits for a page and the re-reads of a lagging score. One clock, held by Client and
// set by Config.clock (tests: a fake clock moves only when the test says); the
// platform's clock is another matter (clock.go). The exchange times read against the
// platform's Date header (response.sent, .received) stay on the real clock: the Date
// is.

import (
	"context"
	"time"
)

// localClock tells the time and waits.
type localClock interface {
	// Now is the current time.
	Now() time.Time
	// Sleep waits for d, or until ctx ends, returning ctx's error then.
	Sleep(ctx context.Context, d time.Duration) error
	// After is a channel that receives the time once d has passed (time.After), for
	// a wait that selects on other events too.
	After(d time.Duration) <-chan time.Time
}

// realClock is the time package's clock.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error { return sleepCtx(ctx, d) }

func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// onClock is how a mechanism of the client (the rate gate, the rendering wait, the
// batched refresh) reads the client's one clock: New sets clk to Client.local, and a
// zero value, as a test makes one, reads the real clock.
type onClock struct{ clk localClock }

// now is the time on the clock.
func (o onClock) now() time.Time { return orRealClock(o.clk).Now() }

// after is a channel that receives the time once d has passed.
func (o onClock) after(d time.Duration) <-chan time.Time { return orRealClock(o.clk).After(d) }

// sleep waits for d, or until ctx ends.
func (o onClock) sleep(ctx context.Context, d time.Duration) error {
	return orRealClock(o.clk).Sleep(ctx, d)
}

// orRealClock is k, or the real clock when k is nil.
func orRealClock(k localClock) localClock {
	if k == nil {
		return realClock{}
	}
	return k
}
