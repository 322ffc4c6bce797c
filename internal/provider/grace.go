package provider

import (
	"context"
	"sync"
	"time"
)

// withGrace returns a context that outlives ctx's cancellation by at most grace:
// a write already sent may finish (and its result reach the state) when Terraform
// stops, while a deadline of ctx still applies as it is. Call stop when done.
func withGrace(ctx context.Context, grace time.Duration) (graceful context.Context, stop context.CancelFunc) {
	out, cancel := context.WithCancel(context.WithoutCancel(ctx))
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
		timer = time.AfterFunc(grace, cancel)
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
