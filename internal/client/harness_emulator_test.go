package client

// The emulator harness of the client's tests: emuEnv serves an emulator
// (internal/emulatortest), makes clients of the default accounts, and checks at the
// end that nothing secret was logged.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflogtest"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

const (
	routeScores    = "/api/v1/apis/media.publishing;version=2;realm=global/scores"
	routeScoreByID = routeScores + "/{id}"
)

// emuEnv is one emulator on an httptest server (emulatortest), with a TRACE logger
// capturing everything the clients log. At cleanup it checks that the logs hold none of
// the configured secrets nor any credential or viewer URL that crossed the wire.
type emuEnv struct {
	t    *testing.T
	emu  *emulator.Emulator
	srv  *emulatortest.Server
	ctx  context.Context
	logs *syncBuffer
	seen *secretRecorder
	// clk, when set (newEmuEnvOnClock), is the clock of the clients and of the
	// emulator's rate limit; inflight counts the clients' requests under way.
	clk      *fakeClock
	inflight atomic.Int64
}

func newEmuEnv(t *testing.T, opts emulator.Options) *emuEnv {
	t.Helper()
	if opts.RenderDelay == 0 {
		opts.RenderDelay = 50 * time.Millisecond
	}
	env := &emuEnv{t: t, srv: emulatortest.Start(t, opts), logs: &syncBuffer{}, seen: &secretRecorder{}}
	env.emu = env.srv.Emulator
	env.ctx = tflogtest.RootLogger(context.Background(), env.logs)
	t.Cleanup(env.checkLogs) // runs after the clients' Close (cleanups run last-in first-out)
	return env
}

func (env *emuEnv) config() Config {
	cfg := emulatorConfig(env.srv)
	cfg.RetryWaitMin, cfg.RetryWaitMax = 2*time.Millisecond, 20*time.Millisecond
	cfg.Transport = &recordingTransport{next: http.DefaultTransport, rec: env.seen, inflight: &env.inflight}
	if env.clk != nil {
		cfg.clock = env.clk
	}
	return cfg
}

// emulatorConfig is the configuration of the default accounts on an emulator.
func emulatorConfig(s *emulatortest.Server) Config {
	return Config{
		AdminURL: s.AdminURL(), AdminUsername: emulatortest.AdminUsername, AdminPassword: emulatortest.AdminPassword,
		PlatformURL: s.PlatformURL(), ClientID: emulatortest.ClientID, ClientSecret: emulatortest.ClientSecret,
		Username: emulatortest.Username, Password: emulatortest.Password,
	}
}

// client returns a client for the emulator, closed at cleanup.
func (env *emuEnv) client(mutate ...func(*Config)) *Client {
	env.t.Helper()
	cfg := env.config()
	for _, m := range mutate {
		m(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		env.t.Fatalf("New: %v", err)
	}
	env.t.Cleanup(func() {
		if err := c.Close(env.ctx); err != nil {
			env.t.Errorf("Close: %v", err)
		}
	})
	return c
}

func (env *emuEnv) stats() emulator.Stats { return env.emu.Stats() }

func (env *emuEnv) checkLogs() {
	logs := env.logs.String()
	if !strings.Contains(logs, `"@message":"HTTP request"`) {
		env.t.Errorf("no request was logged; is the logger wired?")
	}
	secrets := append(env.seen.list(), emulatortest.AdminPassword, emulatortest.Password, emulatortest.ClientSecret,
		emulatortest.ViewerPassword,
		base64.StdEncoding.EncodeToString([]byte(emulatortest.ClientID+":"+emulatortest.ClientSecret)))
	for _, s := range secrets {
		if strings.Contains(logs, s) {
			env.t.Errorf("the logs contain the secret %q", s)
		}
	}
}

// secretRecorder collects credentials and viewer URLs seen on the wire.
type secretRecorder struct {
	mu     sync.Mutex
	values map[string]bool
}

func (r *secretRecorder) add(v string) {
	if len(v) < 6 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.values == nil {
		r.values = map[string]bool{}
	}
	r.values[v] = true
}

func (r *secretRecorder) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for v := range r.values {
		out = append(out, v)
	}
	return out
}

var secretFields = regexp.MustCompile(`"(access_token|accessToken|token|viewerUrl)"\s*:\s*"([^"]+)"`)

// recordingTransport records every credential in requests and responses.
type recordingTransport struct {
	next     http.RoundTripper
	rec      *secretRecorder
	inflight *atomic.Int64 // requests under way
}

func (t *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.inflight.Add(1)
	defer t.inflight.Add(-1)
	if a := req.Header.Get("Authorization"); a != "" {
		_, v, _ := strings.Cut(a, " ")
		t.rec.add(v)
	}
	t.rec.add(req.Header.Get("token"))
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	for _, m := range secretFields.FindAllSubmatch(body, -1) {
		t.rec.add(string(m[2]))
	}
	for _, c := range resp.Cookies() {
		t.rec.add(c.Value)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// proxiedPlatform is an emulator behind a fault proxy, for the tests that control the
// wire precisely (odd bodies, timings, a route's answer that depends on earlier
// ones): the emulator serves the contract (logins, tokens, discovery, scores) and a
// test answers the routes it names itself (handle), in the platform's place. It
// replaces the hand-written fake platform that predated the emulator.
type proxiedPlatform struct {
	*emulatortest.Server
	proxy *faultproxy.Proxy
}

func newProxiedPlatform(t *testing.T, opts emulator.Options) *proxiedPlatform {
	t.Helper()
	s := emulatortest.Start(t, opts)
	p := faultproxy.Start(s.URL)
	t.Cleanup(p.Close)
	return &proxiedPlatform{Server: s, proxy: p}
}

// config is the default accounts' configuration through the proxy, with short
// retry waits.
func (p *proxiedPlatform) config() Config {
	cfg := emulatorConfig(p.Server)
	cfg.AdminURL, cfg.PlatformURL = p.Emulator.AdminURL(p.proxy.URL), p.Emulator.PlatformURL(p.proxy.URL)
	cfg.RetryWaitMin, cfg.RetryWaitMax = time.Millisecond, 5*time.Millisecond
	return cfg
}

// handle answers route ("METHOD escaped-path") with h from now on.
func (p *proxiedPlatform) handle(route string, h http.HandlerFunc) {
	method, path, _ := strings.Cut(route, " ")
	p.proxy.Add(faultproxy.Fault{Method: method, Path: "^" + regexp.QuoteMeta(path) + "$", Handle: h})
}

// count is the number of requests to route ("METHOD escaped-path") the proxy saw.
func (p *proxiedPlatform) count(route string) int {
	method, path, _ := strings.Cut(route, " ")
	return p.proxy.Count(method, "^"+regexp.QuoteMeta(path)+"$")
}

// total is the number of requests the proxy saw.
func (p *proxiedPlatform) total() int { return len(p.proxy.Requests()) }

// The emulator's token flow, as the client finds it.
const (
	routeGrant       = "POST /auth/oauth2/ropc/default"
	routeTokenInfo   = "GET /auth/tokens/current"
	routeTokenExtend = "POST /auth/tokens/current/extension"
	routeTokenRemove = "DELETE /auth/tokens/current"
	routeAdminLogin  = "POST " + emulator.AdminPath + "/login"
	routeAdminLogout = "GET " + emulator.AdminPath + "/logout"
)

// writeJSON answers 200 with v as JSON.
func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(v)
}

func writeProblem(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"code": code, "message": msg, "status": status, "params": map[string]any{}})
}

// scoreJSON returns a score object as the platform writes it.
func scoreJSON(id, scoreURL, alias, status string) map[string]any {
	s := map[string]any{
		"id": id, "scoreUrl": scoreURL, "status": status,
		"publisher": map[string]any{"identity": map[string]any{"user": emulatortest.Username}},
		"options":   map[string]any{"transpose": false},
		"createdAt": "2026-11-21T10:15:00.000Z", "updatedAt": "2026-11-21T10:15:00.000Z",
		"renderings": []any{},
	}
	if alias != "" {
		s["publisher"] = map[string]any{"scoreId": alias, "identity": map[string]any{"user": emulatortest.Username}}
	}
	return s
}

// freshScoreJSON is scoreJSON of https://cdn/a.sib created now, on this machine's
// clock (the emulator's).
func freshScoreJSON(id, alias, status string) map[string]any {
	s := scoreJSON(id, "https://cdn/a.sib", alias, status)
	s["createdAt"] = time.Now().UTC().Format(time.RFC3339Nano)
	return s
}

// publishDirect publishes a score under alias on p's emulator, past the proxy (its
// requests are not counted), with a client of its own, closed at once.
func publishDirect(t *testing.T, p *proxiedPlatform, alias string) {
	t.Helper()
	c, err := New(emulatorConfig(p.Server))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close(context.Background()) }()
	if _, err := c.PublishScore(context.Background(), PublishScoreInput{ScoreURL: "https://x/s", Alias: alias}); err != nil {
		t.Fatal(err)
	}
}

// blockedPage is what a WAF or a captive portal answers in the platform's place.
var blockedPage = &faultproxy.Answer{
	Status: http.StatusOK, Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}},
	Body: "<!DOCTYPE html><html><body><h1>Request blocked</h1></body></html>",
}

// churn is another client of a shared platform: it publishes new scores and deletes
// scores that were there before, at a steady rate, until stopped. A score is marked
// deleted before its DELETE is sent, so "never deleted" is never claimed of a score
// that may be gone.
type churn struct {
	mu        sync.Mutex
	deleted   map[string]bool
	victims   []string // scores it may delete, in random order
	published atomic.Int64
	failed    atomic.Value // the first error
	stop      chan struct{}
	done      sync.WaitGroup
}

// startChurn publishes and deletes (one of victims, in their order or shuffled, then
// the scores it published itself) perSecond times a second each, in workers
// goroutines, until the test ends or halt is called.
func startChurn(t *testing.T, c *Client, victims []string, perSecond, workers int, shuffle bool) *churn {
	t.Helper()
	ch := &churn{deleted: map[string]bool{}, victims: append([]string(nil), victims...), stop: make(chan struct{})}
	if shuffle {
		rand.Shuffle(len(ch.victims), func(i, j int) { ch.victims[i], ch.victims[j] = ch.victims[j], ch.victims[i] })
	}
	interval := time.Duration(workers) * time.Second / time.Duration(perSecond)
	ctx := context.Background()
	for w := range workers {
		ch.done.Go(func() {
			tick := time.NewTicker(interval)
			defer tick.Stop()
			for i := 0; ; i++ {
				select {
				case <-ch.stop:
					return
				case <-tick.C:
				}
				s, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: fmt.Sprintf("https://cdn.example/churn-%d-%d.sib", w, i)})
				if err != nil {
					ch.failed.CompareAndSwap(nil, err)
				}
				ch.published.Add(1)
				ch.mu.Lock()
				if s != nil {
					// Once the victims given are gone, the churn deletes its own scores:
					// the set keeps its size however long a slow machine takes.
					ch.victims = append(ch.victims, s.ID)
				}
				if len(ch.victims) == 0 {
					ch.mu.Unlock()
					continue
				}
				victim := ch.victims[0]
				ch.victims = ch.victims[1:]
				ch.deleted[victim] = true
				ch.mu.Unlock()
				if err := c.DeleteScore(ctx, victim, false); err != nil {
					ch.failed.CompareAndSwap(nil, err)
				}
			}
		})
	}
	t.Cleanup(ch.halt)
	return ch
}

// halt stops the churn and waits for its requests to end.
func (ch *churn) halt() {
	select {
	case <-ch.stop:
	default:
		close(ch.stop)
	}
	ch.done.Wait()
}

// isDeleted reports whether the churn has deleted (or is deleting) the score.
func (ch *churn) isDeleted(id string) bool {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return ch.deleted[id]
}

// listOrders are the two list orders a walk meets: the contract's (oldest first) and
// the newest first of contract §V9.
var listOrders = []struct {
	name     string
	readings emulator.Readings
}{
	{"oldest first", emulator.Readings{}},
	{"newest first", emulator.Readings{NewestFirst: true}},
}

// seededChurnEnv is an emulator holding n scores, answering after latency, with the
// readings given, and a client of it.
func seededChurnEnv(t *testing.T, n int, latency time.Duration, readings emulator.Readings) (*emuEnv, *Client) {
	t.Helper()
	seed := &emulator.Seed{}
	for i := range n {
		seed.Scores = append(seed.Scores, emulator.SeedScore{ScoreURL: fmt.Sprintf("https://cdn.example/seeded-%d.sib", i)})
	}
	env := newEmuEnv(t, emulator.Options{RenderDelay: -1, Seed: seed,
		Faults: emulator.Faults{LatencyMs: int(latency / time.Millisecond), Readings: readings}})
	return env, env.client()
}

// readingEnv is an emulator serving the named readings and a client of it.
func readingEnv(t *testing.T, names ...string) (*emuEnv, *Client) {
	t.Helper()
	var r emulator.Readings
	for _, n := range names {
		if err := r.Set(n); err != nil {
			t.Fatal(err)
		}
	}
	env := newEmuEnv(t, emulator.Options{Faults: emulator.Faults{Readings: r}})
	return env, env.client()
}

// proxiedClient returns a client whose every request passes through a fault proxy in
// front of env's emulator.
func (env *emuEnv) proxiedClient() (*Client, *faultproxy.Proxy) {
	env.t.Helper()
	p := faultproxy.Start(env.srv.URL)
	env.t.Cleanup(p.Close)
	c := env.client(func(cfg *Config) {
		cfg.AdminURL = env.emu.AdminURL(p.URL)
		cfg.PlatformURL = env.emu.PlatformURL(p.URL)
	})
	return c, p
}

// setStatus returns a body rewrite that sets score.status in a score answer (any
// other answer, such as the empty one of a request the client gave up on at its
// deadline, passes unchanged).
func setStatus(status string) func([]byte) []byte {
	return func(b []byte) []byte {
		var doc map[string]map[string]any
		if err := json.Unmarshal(b, &doc); err != nil || doc["score"] == nil {
			return b
		}
		doc["score"]["status"] = status
		out, _ := json.Marshal(doc)
		return out
	}
}

// newEmuEnvOnClock is newEmuEnv on a fake clock: the clients it makes and the
// emulator's rate limit (Options.RateLimitClock) share one fakeClock, which moves on
// only when every request under way has been answered and the waits on the clock
// have settled (no new one for settleTime on the wall); it then moves to the earliest
// waiter's time. Waits on the clock (pace, backoff, Retry-After) take no time on the
// wall and keep their order and length: moving on while a caller was between reading
// the time and starting its wait would lengthen that wait.
func newEmuEnvOnClock(t *testing.T, opts emulator.Options) (*emuEnv, *fakeClock) {
	t.Helper()
	const settleTime = 2 * time.Millisecond
	clk := newFakeClock(time.Now())
	opts.RateLimitClock = clk.Now
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	// Registered before the environment's cleanups, so that it runs after them: the
	// clients' Close may wait on the clock too.
	t.Cleanup(func() {
		cancel()
		<-done
	})
	env := newEmuEnv(t, opts)
	env.clk = clk
	go func() {
		defer close(done)
		for clk.BlockUntil(ctx, 1) == nil {
			for n := -1; ; {
				select {
				case <-ctx.Done():
					return
				case <-time.After(settleTime):
				}
				m := clk.Sleepers()
				if m == n && env.inflight.Load() == 0 {
					break
				}
				n = m
			}
			clk.Wake()
		}
	}()
	return env, clk
}
