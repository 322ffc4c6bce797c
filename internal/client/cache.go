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

// lazy holds a value loaded on first use by exactly one goroutine at a time
// (single-flight). A failed load is not cached, except a rejection of the
// configured credentials (see credentialsRejected): those cannot succeed on a
// later try, so every later get returns the same error without a request.
// No lock is held while loading.
type lazy[T any] struct {
	mu       sync.Mutex
	ok       bool
	val      T
	call     *flight[T]
	closed   bool
	rejected error
}

// get returns the value, loading it with load when there is none.
func (l *lazy[T]) get(ctx context.Context, load func(context.Context) (T, error)) (T, error) {
	var zero T
	for {
		l.mu.Lock()
		if l.closed {
			l.mu.Unlock()
			return zero, ErrClosed
		}
		if l.ok {
			v := l.val
			l.mu.Unlock()
			return v, nil
		}
		if l.rejected != nil {
			err := l.rejected
			l.mu.Unlock()
			return zero, err
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
		l.mu.Unlock()

		f.val, f.err = load(ctx)

		l.mu.Lock()
		if f.err == nil {
			l.ok, l.val = true, f.val
		} else if credentialsRejected(f.err) {
			l.rejected = f.err
		}
		l.call = nil
		l.mu.Unlock()
		close(f.done)
		return f.val, f.err
	}
}

// peek returns the value without loading it.
func (l *lazy[T]) peek() (T, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.val, l.ok
}

// resetIf forgets the value when pred holds for it, so that the next get
// loads a new one. Comparing with the value a caller used keeps a value that
// another goroutine has already replaced.
func (l *lazy[T]) resetIf(pred func(T) bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ok && pred(l.val) {
		var zero T
		l.ok, l.val = false, zero
	}
}

// closeAndTake makes every later get fail with ErrClosed, waits (bounded by
// ctx) for a load in progress, and hands over the value held, if any.
func (l *lazy[T]) closeAndTake(ctx context.Context) (T, bool) {
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
