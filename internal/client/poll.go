package client

// The generic poll: a step tried with backoff until it is done or the context ends.

import (
	"context"
	"fmt"
	"time"
)

// Polling bounds for WaitForRendering and WaitForCommand.
const (
	pollStart = 100 * time.Millisecond
	pollMax   = 2 * time.Second
)

// poll calls step until it reports done or fails, sleeping between calls with a
// backoff from pollStart, doubling up to pollMax. When ctx ends during a sleep, the
// error says what was waited for (waiting) and wraps ctx's error.
func poll(ctx context.Context, step func() (done bool, err error), waiting func() string) error {
	delay := pollStart
	for {
		done, err := step()
		if done || err != nil {
			return err
		}
		if err := sleepCtx(ctx, delay); err != nil {
			return fmt.Errorf("%s: %w", waiting(), err)
		}
		delay = min(delay*2, pollMax)
	}
}

// sleepCtx waits for d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
