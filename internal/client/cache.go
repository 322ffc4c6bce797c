package client

import (
	"context"
	"errors"
	"sync"
)

// flight is one load in progress; waiters block on done.
type flight[T any] struct {
	done chan struct{}
	val  T
	err  error
}

// wait blocks until f completes or ctx ends.
func (f *flight[T]) wait(ctx context.Context) (T, error) {
	select {
	case <-f.done:
		return f.val, f.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// leaderGaveUp reports whether a flight failed only because its leader's
// context ended, so that a waiter whose context is still live should try
// itself instead of inheriting the failure.
func leaderGaveUp(err error, ctx context.Context) bool {
	return ctx.Err() == nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded))
}

// cache holds a value loaded on first use, then reloaded when its policy says so,
// by exactly one goroutine at a time (single-flight); the others wait for that load
// or, when the policy allows, go on with the value held. A failed load is not
// cached and leaves the value held as it was, except a rejection of the configured
// credentials (see credentialsRejected): those cannot succeed on a later try, so
// every later get returns the same error without a request. No lock is held while
// loading. The administrator session, the token flow's hrefs and the service
// registry are loaded once; the platform token is extended or granted anew as it
// ages (Client.tokenPolicy).
type cache[T any] struct {
	mu       sync.Mutex
	ok       bool
	val      T
	call     *flight[T]
	closed   bool
	rejected error
	// serve decides whether the value held is served as it is; loading tells
	// whether a load is in progress. Nil serves it always.
	serve func(val T, loading bool) bool
}

// get returns the value held when the policy serves it, else loads one with load,
// which gets the value held (has is false when there is none).
func (l *cache[T]) get(ctx context.Context, load func(ctx context.Context, held T, has bool) (T, error)) (T, error) {
	var zero T
	for {
		l.mu.Lock()
		if l.closed {
			l.mu.Unlock()
			return zero, ErrClosed
		}
		if l.rejected != nil {
			err := l.rejected
			l.mu.Unlock()
			return zero, err
		}
		if l.ok && (l.serve == nil || l.serve(l.val, l.call != nil)) {
			v := l.val
			l.mu.Unlock()
			return v, nil
		}
		if f := l.call; f != nil {
			l.mu.Unlock()
			v, err := f.wait(ctx)
			if err != nil && leaderGaveUp(err, ctx) {
				continue
			}
			return v, err
		}
		f := &flight[T]{done: make(chan struct{})}
		l.call = f
		held, has := l.val, l.ok
		l.mu.Unlock()
		// The load goes on when its caller gives up (Ctrl-C, a stopped run): a login
		// or a token grant that reached the platform must be held, and so logged out or
		// removed at Close, not lost with its answer. It is bounded by the client's own
		// request timeout and retry budget.
		go func() {
			v, err := load(context.WithoutCancel(ctx), held, has)
			l.mu.Lock()
			if err == nil {
				l.ok, l.val = true, v
			} else if credentialsRejected(err) {
				l.rejected = err
			}
			l.call = nil
			l.mu.Unlock()
			f.val, f.err = v, err
			close(f.done)
		}()
		return f.wait(ctx)
	}
}

// once adapts a load that ignores the value held, for a cache loaded once.
func once[T any](load func(context.Context) (T, error)) func(context.Context, T, bool) (T, error) {
	return func(ctx context.Context, _ T, _ bool) (T, error) { return load(ctx) }
}

// peek returns the value held without loading one (the zero value when none).
func (l *cache[T]) peek() T {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.val
}

// resetIf forgets the value when pred holds for it, so that the next get
// loads a new one. Comparing with the value a caller used keeps a value that
// another goroutine has already replaced.
func (l *cache[T]) resetIf(pred func(T) bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ok && pred(l.val) {
		var zero T
		l.ok, l.val = false, zero
	}
}

// update replaces the value held with what change makes of it, when it reports a
// change.
func (l *cache[T]) update(change func(T) (T, bool)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.ok {
		return
	}
	if v, changed := change(l.val); changed {
		l.val = v
	}
}

// closeAndTake makes every later get fail with ErrClosed, waits (bounded by
// ctx) for a load in progress, and hands over the value held, if any.
func (l *cache[T]) closeAndTake(ctx context.Context) (T, bool) {
	l.mu.Lock()
	l.closed = true
	f := l.call
	l.mu.Unlock()
	if f != nil {
		_, _ = f.wait(ctx)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	v, ok := l.val, l.ok
	var zero T
	l.ok, l.val = false, zero
	return v, ok
}
