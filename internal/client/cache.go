package client

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
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

// cache holds a value loaded on first use, then reloaded when its policy says so,
// by exactly one goroutine at a time (single-flight); the others wait for that load
// or, when the policy allows, go on with the value held. Every call waiting for a
// load gets its outcome, and the error of a load that nothing answered is held for as
// long as the load took, when that was a second or more, and at most two request
// timeouts (see get): a login that met a stuck server is met once by all the calls of
// a run, not once per call, one after another. A failed load leaves the value held as
// it was, and a rejection of the configured credentials (see credentialsRejected) is
// held for good: those cannot succeed on a later try, so every later get returns the
// same error without a request. No lock is held while loading. The administrator
// session, the token flow's hrefs and the service registry are loaded once; the
// platform token is extended or granted anew as it ages (Client.tokenPolicy).
type cache[T any] struct {
	mu       sync.Mutex
	ok       bool
	val      T
	call     *flight[T]
	closed   bool
	rejected error
	// failed is the error of the last load, held until heldUntil (this machine's
	// monotonic clock), and failedAt when the load ended.
	failed              error
	failedAt, heldUntil time.Time
	// serve decides whether the value held is served as it is; loading tells
	// whether a load is in progress. Nil serves it always.
	serve func(val T, loading bool) bool
}

// get returns the value held when the policy serves it, else loads one with load,
// which gets the value held (has is false when there is none).
func (l *cache[T]) get(ctx context.Context, load func(ctx context.Context, held T, has bool) (T, error)) (T, error) {
	var zero T
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
	if l.failed != nil && time.Now().Before(l.heldUntil) {
		// The last load failed moments ago. Asking again now would most likely cost as
		// long for the same outcome, once per call: a plan of many objects would wait
		// for a stuck login once per object, one after another.
		if v, ok := l.servedMeanwhile(); ok {
			l.mu.Unlock()
			return v, nil
		}
		err := &heldFailure{err: l.failed, ago: time.Since(l.failedAt), left: time.Until(l.heldUntil)}
		l.mu.Unlock()
		return zero, err
	}
	if f := l.call; f != nil {
		l.mu.Unlock()
		return l.await(ctx, f)
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
		start := time.Now()
		v, err := load(context.WithoutCancel(ctx), held, has)
		end := time.Now()
		l.mu.Lock()
		switch {
		case err == nil:
			l.ok, l.val = true, v
			l.failed = nil
		case credentialsRejected(err):
			l.rejected = err
		case end.Sub(start) >= minHeldFailure && silent(err):
			// Held for as long as it took to learn, at most maxHeld: a stuck server's
			// silence (attempts of request_timeout) is not asked again for as long.
			l.failed, l.failedAt, l.heldUntil = err, end, end.Add(min(end.Sub(start), maxHeld(err)))
		default:
			l.failed = nil
		}
		l.call = nil
		l.mu.Unlock()
		f.val, f.err = v, err
		close(f.done)
	}()
	return l.await(ctx, f)
}

// await returns the outcome of the load f. The load is detached from the context of
// the call that started it, so its outcome is every waiting call's, a request timeout
// (which matches context.DeadlineExceeded) included. When it failed, a value the
// policy still serves while a load is under way is returned instead: a token renewal
// that failed leaves the token held usable until it is too old.
func (l *cache[T]) await(ctx context.Context, f *flight[T]) (T, error) {
	v, err := f.wait(ctx)
	if err == nil || ctx.Err() != nil {
		return v, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if held, ok := l.servedMeanwhile(); ok && !l.closed && l.rejected == nil {
		return held, nil
	}
	return v, err
}

// servedMeanwhile returns the value held when the policy serves it while a load is
// under way (l.mu held).
func (l *cache[T]) servedMeanwhile() (T, bool) {
	if l.ok && (l.serve == nil || l.serve(l.val, true)) {
		return l.val, true
	}
	var zero T
	return zero, false
}

// minHeldFailure is the shortest failed load whose failure is held: a failure that came
// sooner costs little to meet again, and may have been a blip.
const minHeldFailure = time.Second

// silent reports whether err is a load that nothing answered: a timeout, a connection
// refused or cut, a name that does not resolve. Only such a failure is held: meeting
// it again costs every call the same wait for nothing. A load that got an answer (a
// 503 after its Retry-After waits, a refusal) took its time waiting on the platform's
// word or the rate limit, which says nothing of how soon a new try can succeed.
func silent(err error) bool {
	var netErr *NetworkError
	if !errors.As(err, &netErr) {
		return false
	}
	switch netErr.Kind {
	case NetworkTLS, NetworkPlainHTTP, NetworkProxyRefused:
		// Something answered: a certificate, a plain HTTP page, a proxy's refusal.
		return false
	}
	return true
}

// maxHeld bounds how long the silent failure err is held: two request timeouts, the
// attempts a silent request makes at most, whatever the load spent queued behind the
// rate limit or waiting on the platform's Retry-After before it met the silence.
func maxHeld(err error) time.Duration {
	var netErr *NetworkError
	if errors.As(err, &netErr) && netErr.Timeout > 0 {
		return 2 * netErr.Timeout
	}
	return 2 * DefaultRequestTimeout
}

// heldFailure is a load's failure returned to a call that came after it, while it is
// held: the call sent nothing itself. It wraps the load's error, so that the call
// leads with the same cause.
type heldFailure struct {
	err       error
	ago, left time.Duration
}

// Error says that the failure is another call's, and when the next try comes.
func (e *heldFailure) Error() string {
	return fmt.Sprintf("%v (the failure of a call %s ago, shared by the calls that follow it for %s more, so that a "+
		"stuck server is waited for once)", e.err, roundDuration(e.ago), roundDuration(e.left))
}

// Unwrap returns the load's error.
func (e *heldFailure) Unwrap() error { return e.err }

// roundDuration rounds d for a message: to the millisecond below a second, else to a
// tenth of a second.
func roundDuration(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(100 * time.Millisecond)
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

// loading reports whether a load is under way.
func (l *cache[T]) loading() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.call != nil
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
