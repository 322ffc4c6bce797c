package client

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// fakeClock is a localClock whose time moves only when the test says: a client built
// with it waits (pace, backoff, Retry-After, the exit's waits) without any wall-clock
// sleep, and its budgets run on the test's time.
//
//	clk := newFakeClock(time.Now())
//	c := env.client(func(cfg *Config) { cfg.clock = clk })
//	go func() { done <- c.Close(ctx) }() // meets a 429 with Retry-After: 1
//	if err := clk.BlockUntil(ctx, 1); err != nil { ... } // the retry waits on the clock
//	clk.Advance(time.Second)             // and goes on
//
// BlockUntil waits until n sleepers are blocked, so that Advance reaches them; Wake
// advances to the earliest sleeper's time. A context deadline is judged against the
// fake Now: start the clock at the real time so that deadlines set with
// context.WithTimeout mean what they say.
type fakeClock struct {
	mu       sync.Mutex
	now      time.Time
	sleepers []*fakeSleeper
	changed  chan struct{} // closed, and replaced, whenever the sleepers change
}

// fakeSleeper is one Sleep in progress.
type fakeSleeper struct {
	until time.Time
	done  chan struct{}
}

var _ localClock = (*fakeClock)(nil)

// newFakeClock returns a fake clock reading start.
func newFakeClock(start time.Time) *fakeClock {
	return &fakeClock{now: start, changed: make(chan struct{})}
}

// After sends the fake time on the channel once it has advanced by d.
func (f *fakeClock) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	go func() {
		_ = f.Sleep(context.Background(), d)
		ch <- f.Now()
	}()
	return ch
}

// funcClock is a clock of a test's own functions: now tells the time, after gives
// the channel of a wait (nil: a wait that ends only with its other events), and a
// Sleep waits on after.
type funcClock struct {
	now   func() time.Time
	after func(time.Duration) <-chan time.Time
}

func (k funcClock) Now() time.Time { return k.now() }

func (k funcClock) After(d time.Duration) <-chan time.Time { return k.after(d) }

func (k funcClock) Sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-k.after(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Now is the fake time.
func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// Sleep blocks until the fake time has advanced by d, or ctx ends.
func (f *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	f.mu.Lock()
	s := &fakeSleeper{until: f.now.Add(d), done: make(chan struct{})}
	f.sleepers = append(f.sleepers, s)
	f.notify()
	f.mu.Unlock()
	select {
	case <-s.done:
		return nil
	case <-ctx.Done():
		f.mu.Lock()
		f.remove(s)
		f.mu.Unlock()
		return ctx.Err()
	}
}

// Advance moves the time on by d and wakes every sleeper whose time has come.
func (f *fakeClock) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
	for _, s := range append([]*fakeSleeper(nil), f.sleepers...) {
		if !s.until.After(f.now) {
			f.remove(s)
			close(s.done)
		}
	}
}

// Wake advances the time to the earliest sleeper's and returns by how much (0 when
// nobody sleeps).
func (f *fakeClock) Wake() time.Duration {
	f.mu.Lock()
	var d time.Duration
	for i, s := range f.sleepers {
		if left := s.until.Sub(f.now); i == 0 || left < d {
			d = left
		}
	}
	f.mu.Unlock()
	if d > 0 || f.Sleepers() > 0 {
		f.Advance(max(d, 0))
	}
	return d
}

// Sleepers is the number of Sleep calls blocked now.
func (f *fakeClock) Sleepers() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.sleepers)
}

// BlockUntil waits until at least n Sleep calls are blocked, or ctx ends.
func (f *fakeClock) BlockUntil(ctx context.Context, n int) error {
	for {
		f.mu.Lock()
		if len(f.sleepers) >= n {
			f.mu.Unlock()
			return nil
		}
		changed := f.changed
		f.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// remove drops s from the sleepers. Called with f.mu held.
func (f *fakeClock) remove(s *fakeSleeper) {
	for i, x := range f.sleepers {
		if x == s {
			f.sleepers = append(f.sleepers[:i], f.sleepers[i+1:]...)
			f.notify()
			return
		}
	}
}

// notify tells the BlockUntil calls that the sleepers changed. Called with f.mu held.
func (f *fakeClock) notify() {
	close(f.changed)
	f.changed = make(chan struct{})
}

// TestFakeClock: sleepers wake when the fake time reaches theirs and not before,
// BlockUntil sees them block, a cancelled sleep leaves, and a client's rate gate
// paces on the clock it was given, with no time passing on the wall.
func TestFakeClock(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := newFakeClock(start)
	woke := make(chan time.Duration, 2)
	for _, d := range []time.Duration{time.Second, 3 * time.Second} {
		go func() {
			if err := clk.Sleep(ctx, d); err == nil {
				woke <- d
			}
		}()
	}
	if err := clk.BlockUntil(ctx, 2); err != nil {
		t.Fatal(err)
	}
	clk.Advance(999 * time.Millisecond)
	select {
	case d := <-woke:
		t.Fatalf("the %s sleeper woke before its time", d)
	default:
	}
	clk.Advance(time.Millisecond)
	if d := <-woke; d != time.Second || clk.Sleepers() != 1 {
		t.Fatalf("woke %s with %d left asleep, want 1s and 1", d, clk.Sleepers())
	}
	if d := clk.Wake(); d != 2*time.Second || <-woke != 3*time.Second {
		t.Fatalf("Wake advanced %s, want 2s", d)
	}
	if got := clk.Now(); !got.Equal(start.Add(3 * time.Second)) {
		t.Fatalf("Now = %s, want start + 3s", got)
	}

	// A sleep whose context ends leaves the sleepers.
	sctx, scancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() { errc <- clk.Sleep(sctx, time.Hour) }()
	if err := clk.BlockUntil(ctx, 1); err != nil {
		t.Fatal(err)
	}
	scancel()
	if err := <-errc; !errors.Is(err, context.Canceled) || clk.Sleepers() != 0 {
		t.Fatalf("cancelled sleep: %v with %d asleep", err, clk.Sleepers())
	}

	// The rate gate of a client built with the clock paces on it: after a 429 that asks
	// for a second, the next attempt waits on the fake clock, not on the wall.
	c, err := New(Config{clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	wall := time.Now()
	c.gate.pause(time.Second)
	done := make(chan struct{})
	go func() { c.gate.wait(ctx); close(done) }()
	if err := clk.BlockUntil(ctx, 1); err != nil {
		t.Fatal(err)
	}
	clk.Advance(2 * time.Second) // the pause and the whole spread
	<-done
	if d := time.Since(wall); d > 500*time.Millisecond {
		t.Errorf("the gate's wait took %s on the wall", d)
	}
}
