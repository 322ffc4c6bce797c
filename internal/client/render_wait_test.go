package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// stepClock is the rendering wait's clock in tests: the wait's loop asks for a timer
// and blocks on it until the test moves the clock on and fires it.
type stepClock struct {
	mu   sync.Mutex
	t    time.Time
	asks chan stepAsk
}

type stepAsk struct {
	d    time.Duration
	from time.Time // the clock's time when the timer was asked for
	fire chan time.Time
}

func newStepClock() *stepClock {
	return &stepClock{t: time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC), asks: make(chan stepAsk)}
}

func (c *stepClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// after returns once the test has moved the clock to the timer's deadline and fired
// it, as a real timer's deadline has passed when it fires. Returning as soon as the
// test took the ask let the loop, woken by a new wait at that moment, read the clock
// before it moved and ask for the same timer again: the fake clock then ran the wait
// twice (2 runs in 800 with three busy loops beside it).
func (c *stepClock) after(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	c.asks <- stepAsk{d, c.now(), ch}
	ch <- <-ch
	return ch
}

// renderPlatform is a platform whose scores render in one second of the step clock
// (pending for half of it), and a client of it whose rendering wait runs on the clock.
type renderPlatform struct {
	f   *proxiedPlatform
	clk *stepClock
	c   *Client

	mu      sync.Mutex
	scores  []string             // ids, oldest first
	created map[string]time.Time // id → creation on the step clock
	fails   map[string]bool      // ids whose rendering fails
	hidden  map[string]bool      // ids the list leaves out (another order, churn)
	stuck   map[string]bool      // ids that never finish rendering
	// summaries makes the list give each score without options and renderings;
	// transposed makes every score transposed.
	summaries, transposed bool
	// shift is how far the platform's clock is from the step clock, now; stepped
	// records the shift in force when each score was created.
	shift   time.Duration
	stepped map[string]time.Duration
}

func newRenderPlatform(t *testing.T) *renderPlatform {
	p := &renderPlatform{f: newProxiedPlatform(t, emulator.Options{}), clk: newStepClock(), created: map[string]time.Time{},
		fails: map[string]bool{}, hidden: map[string]bool{}, stuck: map[string]bool{}, stepped: map[string]time.Duration{}}
	p.f.handle("POST "+routeScores+"/count", func(w http.ResponseWriter, _ *http.Request) {
		p.mu.Lock()
		defer p.mu.Unlock()
		writeJSON(w, map[string]any{"count": len(p.scores)})
	})
	p.f.handle("GET "+routeScores, func(w http.ResponseWriter, r *http.Request) {
		offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		p.mu.Lock()
		defer p.mu.Unlock()
		var list []any
		for _, id := range p.scores[min(offset, len(p.scores)):] {
			if !p.hidden[id] {
				s := p.scoreLocked(id)
				if p.summaries {
					delete(s, "options")
					delete(s, "renderings")
				}
				list = append(list, s)
			}
		}
		writeJSON(w, map[string]any{"scores": list})
	})
	cfg := p.f.config()
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	c.renders.clk = funcClock{now: p.clk.now, after: p.clk.after}
	p.c = c
	return p
}

// publish creates n scores now, on the platform's side.
func (p *renderPlatform) publish(n int) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var ids []string
	for range n {
		id := fmt.Sprintf("00000000-0000-4000-8000-%012d", len(p.scores))
		p.scores = append(p.scores, id)
		p.created[id] = p.clk.now()
		p.stepped[id] = p.shift
		ids = append(ids, id)
		p.f.handle("GET "+routeScores+"/"+id, func(w http.ResponseWriter, _ *http.Request) {
			p.mu.Lock()
			defer p.mu.Unlock()
			writeJSON(w, map[string]any{"score": p.scoreLocked(id)})
		})
	}
	return ids
}

// scoreLocked is the score's JSON at the step clock's time.
func (p *renderPlatform) scoreLocked(id string) map[string]any {
	created := p.created[id]
	age := p.clk.now().Sub(created)
	status, since := "pending", created
	switch {
	case p.stuck[id]:
	case age >= time.Second && p.fails[id]:
		status, since = "error", created.Add(time.Second)
	case age >= time.Second:
		status, since = "idle", created.Add(time.Second)
	case age >= 500*time.Millisecond:
		status, since = "rendering", created.Add(500*time.Millisecond)
	}
	s := scoreJSON(id, "https://cdn.example/"+id+".sib", "", status)
	if p.transposed {
		s["options"] = map[string]any{"transpose": true}
	}
	// Each timestamp is written on the platform's clock as it was when it was taken.
	if since.Equal(created) {
		s["updatedAt"] = since.Add(p.stepped[id]).Format(time.RFC3339Nano)
	} else {
		s["updatedAt"] = since.Add(p.shift).Format(time.RFC3339Nano)
	}
	s["createdAt"] = created.Add(p.stepped[id]).Format(time.RFC3339Nano)
	return s
}

// waitAll waits for the scores' rendering at once, stepping the clock until every
// wait has ended, and returns the final scores by id.
func (p *renderPlatform) waitAll(t *testing.T, ids []string) map[string]*Score {
	t.Helper()
	type result struct {
		s   *Score
		err error
	}
	results := make(chan result, len(ids))
	for _, id := range ids {
		go func() {
			s, err := p.c.WaitForRendering(context.Background(), id)
			results <- result{s, err}
		}()
	}
	for deadline := time.Now().Add(5 * time.Second); ; {
		p.c.renders.mu.Lock()
		n := len(p.c.renders.waiters)
		p.c.renders.mu.Unlock()
		if n >= len(ids) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d waits registered", n, len(ids))
		}
		time.Sleep(time.Millisecond)
	}
	got := map[string]*Score{}
	for steps := 0; len(got) < len(ids); {
		select {
		case r := <-results:
			if r.err != nil {
				t.Fatalf("a wait failed: %v", r.err)
			}
			got[r.s.ID] = r.s
		case a := <-p.clk.asks:
			if steps++; steps > 40 {
				t.Fatalf("%d of %d waits ended after 40 steps of the clock", len(got), len(ids))
			}
			p.clk.mu.Lock()
			p.clk.t = p.clk.t.Add(a.d)
			now := p.clk.t
			p.clk.mu.Unlock()
			a.fire <- now
		case <-time.After(10 * time.Second):
			t.Fatalf("%d of %d waits ended, and the wait's loop asks for no timer", len(got), len(ids))
		}
	}
	return got
}

// requests counts the score requests since the last call, by kind.
func (p *renderPlatform) requests(since map[string]int) (gets, lists, counts int, now map[string]int) {
	seen := map[string]int{}
	for _, r := range p.f.proxy.Requests() {
		seen[r.Method+" "+r.Path]++
	}
	now = map[string]int{}
	for route, n := range seen {
		now[route] = n
		d := n - since[route]
		switch {
		case route == "GET "+routeScores:
			lists += d
		case route == "POST "+routeScores+"/count":
			counts += d
		case len(route) > len("GET "+routeScores+"/") && route[:len("GET "+routeScores+"/")] == "GET "+routeScores+"/":
			gets += d
		}
	}
	return gets, lists, counts, now
}

// TestRenderWaitShared: the waits of one process share their reads. The first wave,
// before the rendering time is known, backs off as one poll would, reading one list
// page a round for all its scores; once a score has finished, the next wave is read
// once, when it should have finished, with one page; a single wait reads its own score
// with a GET; a score that fails to render ends its own wait with its status, the
// others go on; a score missing from the page is read with a GET.
func TestRenderWaitShared(t *testing.T) {
	t.Parallel()
	p := newRenderPlatform(t)

	// The first wave: unknown rendering time.
	_, _, _, since := p.requests(nil)
	first := p.waitAll(t, p.publish(10))
	gets, lists, counts, since := p.requests(since)
	for id, s := range first {
		if s.Status != ScoreStatusIdle {
			t.Errorf("first wave: %s ended %q", id, s.Status)
		}
	}
	if gets != 0 || counts != 1 || lists > 5 {
		t.Errorf("first wave of 10: %d GETs, %d list pages, %d counts; want no GET, one count, at most 5 pages", gets, lists, counts)
	}
	if got := p.c.renders.renderTime; got != time.Second {
		t.Errorf("learned rendering time %s, want 1s", got)
	}

	// The second wave, one of which fails: read once, when due.
	ids := p.publish(10)
	p.mu.Lock()
	p.fails[ids[3]] = true
	p.mu.Unlock()
	p.c.renders.published() // this client's publishes keep the tail placed
	for range 9 {
		p.c.renders.published()
	}
	second := p.waitAll(t, ids)
	gets, lists, counts, since = p.requests(since)
	if gets != 0 || lists != 1 || counts != 0 {
		t.Errorf("second wave of 10: %d GETs, %d list pages, %d counts; want one page", gets, lists, counts)
	}
	for _, id := range ids {
		want := ScoreStatusIdle
		if id == ids[3] {
			want = ScoreStatusError
		}
		if second[id].Status != want {
			t.Errorf("second wave: %s ended %q, want %q", id, second[id].Status, want)
		}
	}

	// A single wait polls its own score.
	single := p.waitAll(t, p.publish(1))
	p.c.renders.published()
	gets, lists, counts, since = p.requests(since)
	if len(single) != 1 || gets != 1 || lists != 0 || counts != 0 {
		t.Errorf("a single wait: %d GETs, %d pages, %d counts; want one GET", gets, lists, counts)
	}

	// A wave whose page lacks one score: that one is read with a GET.
	ids = p.publish(5)
	for range 5 {
		p.c.renders.published()
	}
	p.mu.Lock()
	p.hidden[ids[2]] = true
	p.mu.Unlock()
	if got := p.waitAll(t, ids); len(got) != 5 || got[ids[2]].Status != ScoreStatusIdle {
		t.Errorf("a wave with a score missing from the page: %v", got)
	}
	gets, lists, _, _ = p.requests(since)
	if gets != 1 || lists != 1 {
		t.Errorf("a score missing from the page: %d GETs, %d pages; want one of each", gets, lists)
	}
}

// TestRenderWaitSummaries: on a platform whose list gives each score as a summary
// (without options and renderings), a wave of waits shares its list pages as on one
// that lists whole scores, and each wait reads its score whole once, when the page
// shows it finished: every wait ends with the score's options and renderings, none
// with a summary. (On a platform that lists whole scores the same wave makes no GET:
// TestRenderWaitShared.)
func TestRenderWaitSummaries(t *testing.T) {
	t.Parallel()
	p := newRenderPlatform(t)
	p.summaries, p.transposed = true, true
	_, _, _, since := p.requests(nil)
	ids := p.publish(10)
	got := p.waitAll(t, ids)
	gets, lists, counts, _ := p.requests(since)
	for _, id := range ids {
		s := got[id]
		if s == nil || s.Status != ScoreStatusIdle || !s.Transpose {
			t.Errorf("%s ended as %v, want the whole idle score, transposed", id, raw(s))
		} else if s.Summary() {
			t.Errorf("%s ended as a summary: %s", id, s.Raw)
		}
	}
	if gets != len(ids) || counts != 1 || lists > 5 {
		t.Errorf("a wave of 10 on a platform that lists summaries: %d GETs, %d list pages, %d counts; want one GET a "+
			"score, one count, at most 5 pages", gets, lists, counts)
	}
}

// TestRenderWaitGivesUp: a wait whose context ends returns the latest read with the
// error, and the others go on.
func TestRenderWaitGivesUp(t *testing.T) {
	t.Parallel()
	p := newRenderPlatform(t)
	ids := p.publish(2)
	p.mu.Lock()
	p.stuck[ids[0]] = true
	p.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := p.c.WaitForRendering(ctx, ids[0])
		done <- err
	}()
	got := p.waitAll(t, ids[1:])
	cancel()
	if err := <-done; err == nil || !errors.Is(err, context.Canceled) {
		t.Errorf("the cancelled wait: %v", err)
	}
	if got[ids[1]].Status != ScoreStatusIdle {
		t.Errorf("the other wait: %+v", got[ids[1]])
	}
}

// TestRenderWaitClockStep: the platform's clock steps two hours forward while a wave
// renders, so its scores read as taking two hours. The rendering time learned is
// bounded by what this machine's clock saw of the wait, and the next wave is read
// when it has rendered, a second later, not two hours later.
func TestRenderWaitClockStep(t *testing.T) {
	t.Parallel()
	p := newRenderPlatform(t)
	ids := p.publish(10)
	p.mu.Lock()
	p.shift = 2 * time.Hour
	p.mu.Unlock()
	start := p.clk.now()
	p.waitAll(t, ids)
	seen := p.clk.now().Sub(start)
	if got := p.c.renders.renderTime; got <= 0 || got > seen {
		t.Errorf("learned rendering time %s from a wave this machine saw take %s", got, seen)
	}
	ids = p.publish(10)
	for range 10 {
		p.c.renders.published()
	}
	start = p.clk.now()
	for id, s := range p.waitAll(t, ids) {
		if s.Status != ScoreStatusIdle {
			t.Errorf("%s ended %q", id, s.Status)
		}
	}
	if took := p.clk.now().Sub(start); took > 3*time.Second {
		t.Errorf("the wave after the step waited %s for scores that render in 1s", took)
	}
}

// arrive is Terraform at its parallelism on a machine of some speed: the creates of
// a wave start gap apart on the step clock, each publishing its score (the client
// sees the publish on the wire) and then waiting for it. Once all have arrived, the
// clock is stepped from timer to timer until every wait has ended.
func (p *renderPlatform) arrive(t *testing.T, n int, gap time.Duration) map[string]*Score {
	t.Helper()
	type result struct {
		s   *Score
		err error
	}
	results := make(chan result, n)
	p.c.renders.mu.Lock()
	base := len(p.c.renders.waiters)
	p.c.renders.mu.Unlock()
	for i := range n {
		if i > 0 {
			p.clk.mu.Lock()
			p.clk.t = p.clk.t.Add(gap)
			p.clk.mu.Unlock()
		}
		end := p.c.renders.publishing()
		id := p.publish(1)[0]
		p.c.renders.published()
		end()
		go func() {
			s, err := p.c.WaitForRendering(context.Background(), id)
			results <- result{s, err}
		}()
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
			p.c.renders.mu.Lock()
			k := len(p.c.renders.waiters)
			p.c.renders.mu.Unlock()
			if k >= base+i+1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("wait %d of %d not registered", i+1, n)
			}
		}
	}
	got := map[string]*Score{}
	for steps := 0; len(got) < n; {
		select {
		case r := <-results:
			if r.err != nil {
				t.Fatalf("a wait failed: %v", r.err)
			}
			got[r.s.ID] = r.s
		case a := <-p.clk.asks:
			if steps++; steps > 40 {
				t.Fatalf("%d of %d waits ended after 40 steps of the clock", len(got), n)
			}
			p.clk.mu.Lock()
			if at := a.from.Add(a.d); at.After(p.clk.t) {
				p.clk.t = at
			}
			now := p.clk.t
			p.clk.mu.Unlock()
			a.fire <- now
		case <-time.After(10 * time.Second):
			t.Fatalf("%d of %d waits ended, and the wait's loop asks for no timer", len(got), n)
		}
	}
	return got
}

// TestRenderWaitWaves: the wait's reads grow with the waves of this run, not with the
// platform's size, the run's size or the machine's speed. On a platform that holds
// 2,000 other scores, waves of 10 creates (Terraform's parallelism) whose waits arrive
// 0, 20, 100 or 300 ms apart (a fast or a slow machine; a clustering window of 150 ms
// split the slower ones into several reads) are each read with one list page, once
// the whole wave is due; the platform is counted once; the last, incomplete wave of 5
// is read once too.
func TestRenderWaitWaves(t *testing.T) {
	t.Parallel()
	p := newRenderPlatform(t)
	p.publish(2000) // the platform's other scores
	_, _, _, since := p.requests(nil)
	// The first wave learns the rendering time (1 s) and the wave's size.
	p.arrive(t, 10, 0)
	gets, lists, counts, since := p.requests(since)
	if gets != 0 || counts != 1 || lists > 5 {
		t.Errorf("first wave of 10: %d GETs, %d list pages, %d counts; want no GET, one count, at most 5 pages", gets, lists, counts)
	}
	for _, gap := range []time.Duration{0, 20 * time.Millisecond, 100 * time.Millisecond, 300 * time.Millisecond} {
		for wave := range 3 {
			start := p.clk.now()
			for id, s := range p.arrive(t, 10, gap) {
				if s.Status != ScoreStatusIdle {
					t.Errorf("%s ended %q", id, s.Status)
				}
			}
			gets, lists, counts, since = p.requests(since)
			if gets != 0 || lists != 1 || counts != 0 {
				t.Errorf("wave %d of 10 creates %s apart: %d GETs, %d list pages, %d counts; want one page", wave+1, gap, gets, lists, counts)
			}
			// Read when the last wait is due: its rendering time (1 s) and the margin
			// after it arrived.
			if took, want := p.clk.now().Sub(start), 9*gap+time.Second+renderMargin; took != want {
				t.Errorf("wave %d of 10 creates %s apart took %s on the clock, want %s", wave+1, gap, took, want)
			}
		}
	}
	// The run's last wave: 5 creates, fewer than a wave.
	p.arrive(t, 5, 300*time.Millisecond)
	gets, lists, counts, _ = p.requests(since)
	if gets != 0 || lists != 1 || counts != 0 {
		t.Errorf("the last 5 creates: %d GETs, %d list pages, %d counts; want one page", gets, lists, counts)
	}
}

func TestWaitForRenderingWaitsOutUnknownStatuses(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{RenderDelay: -1})
	c, p := env.proxiedClient()
	s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/q.sib"})
	if err != nil {
		t.Fatal(err)
	}
	// A status that is not one of the named ones in another case (rule 20), nor another
	// platform's word for one of them (statusSynonyms), is unknown.
	for _, status := range []string{"reticulating", "held", "QUARANTINED"} {
		p.Clear()
		p.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/scores/[^/]+$`, Body: setStatus(status)})
		// Long enough for the first read on a loaded machine.
		ctx, cancel := context.WithTimeout(env.ctx, 2*time.Second)
		got, err := c.WaitForRendering(ctx, s.ID)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || got == nil || got.Status != status {
			t.Errorf("status %q: got %+v, %v; want to wait until the deadline", status, got, err)
		}
	}
	// A named status in another case is that status (rule 20): ERROR and Idle end the
	// wait, in the specification's spelling.
	for status, want := range map[string]string{"ERROR": ScoreStatusError, "Idle": ScoreStatusIdle,
		"ready": ScoreStatusIdle, "ERRORED": ScoreStatusError, "Failed": ScoreStatusError, "COMPLETE": ScoreStatusIdle} {
		p.Clear()
		p.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/scores/[^/]+$`, Body: setStatus(status)})
		ctx, cancel := context.WithTimeout(env.ctx, time.Minute) // bounds only a wait that never ends
		got, err := c.WaitForRendering(ctx, s.ID)
		cancel()
		if err != nil || got == nil || got.Status != want {
			t.Errorf("status %q: got %+v, %v; want the wait to end with status %q", status, got, err, want)
		}
	}
}

func TestWaitForRendering(t *testing.T) {
	t.Parallel()
	f := newProxiedPlatform(t, emulator.Options{})
	var n atomic.Int32
	f.handle("GET "+routeScores+"/s1", func(w http.ResponseWriter, r *http.Request) {
		status := []string{"pending", "rendering", "idle"}[min(int(n.Add(1))-1, 2)]
		writeJSON(w, map[string]any{"score": scoreJSON("s1", "https://x/s", "", status)})
	})
	c := newTestClient(t, f.config())
	s, err := c.WaitForRendering(context.Background(), "s1")
	if err != nil || s.Status != ScoreStatusIdle || n.Load() != 3 {
		t.Fatalf("got %+v %v after %d polls", s, err, n.Load())
	}
	f.handle("GET "+routeScores+"/s2", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"score": scoreJSON("s2", "https://x/s", "", "pending")})
	})
	// Generous: the first read must come back before the deadline on a loaded machine.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	s, err = c.WaitForRendering(ctx, "s2")
	if !errors.Is(err, context.DeadlineExceeded) || s == nil || s.Status != "pending" {
		t.Fatalf("timeout: %+v %v", s, err)
	}
}
