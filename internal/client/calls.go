package client

// What the client's calls share beyond any one call: the context of the work that
// serves many of them, and the one report of an interrupt that stopped them.

import (
	"context"
	"sync/atomic"
)

// callScope holds what the calls of one client share.
type callScope struct {
	// background is the context of the work shared by many calls (SetBackground).
	background atomic.Pointer[context.Context]
	// interrupted is FirstInterruption's flag.
	interrupted atomic.Bool
}

// FirstInterruption reports whether this is the first time a caller asks after an
// interrupt stopped its call: an interrupt stops every call in flight, and one
// report of it is enough.
func (c *Client) FirstInterruption() bool { return !c.calls.interrupted.Swap(true) }

// SetBackground sets the context that the work shared by many calls runs in: a
// batched refresh's count and pages, the shared rendering wait. That work serves
// every call waiting for it and may outlive the call that started it, so it takes
// its logger and values from this context (never its cancellation) rather than
// from whichever call came first. The provider sets the context of its
// configuration: the context of a call is released once the call returns (see the
// provider's callContext). Without one, the work takes the starting call's context.
func (c *Client) SetBackground(ctx context.Context) { c.calls.background.Store(&ctx) }

// detached is the context of shared work started by a call with ctx: the
// background context when set, else ctx; never cancelled by either.
func (c *Client) detached(ctx context.Context) context.Context {
	if bg := c.calls.background.Load(); bg != nil {
		ctx = *bg
	}
	return context.WithoutCancel(ctx)
}
