package client

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// localLimitTransport fails every request as a dial does when the process has no
// file left for the socket.
type localLimitTransport struct{ calls atomic.Int32 }

func (l *localLimitTransport) RoundTrip(*http.Request) (*http.Response, error) {
	l.calls.Add(1)
	return nil, &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("socket", syscall.EMFILE)}
}

// TestLocalLimitIsNotRetried: a connection this machine refuses to open (EMFILE) is
// not retried as a network failure: one attempt, an error of kind NetworkLocal with
// the open-files limit in force, and nothing sent.
func TestLocalLimitIsNotRetried(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	if _, err := env.client().Health(env.ctx); err != nil { // the harness's check that requests are logged
		t.Fatal(err)
	}
	cfg := env.config()
	transport := &localLimitTransport{}
	cfg.Transport, cfg.MaxRetries = transport, 4
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Health(env.ctx)
	var netErr *NetworkError
	if !errors.As(err, &netErr) || netErr.Kind != NetworkLocal {
		t.Fatalf("Health under EMFILE: %v, want a NetworkError of kind %q", err, NetworkLocal)
	}
	if n := transport.calls.Load(); n != 1 {
		t.Errorf("%d attempts for a local limit, want 1 (max_retries 4 is for the network)", n)
	}
	if netErr.OpenFiles != openFilesLimit() || netErr.ConnsPerHost != connsPerHostFor(openFilesLimit()) {
		t.Errorf("the error names the limit %d and %d connections per host, want %d and %d", netErr.OpenFiles,
			netErr.ConnsPerHost, openFilesLimit(), connsPerHostFor(openFilesLimit()))
	}
	if IsUnknownOutcome(err) {
		t.Errorf("a connection never opened leaves the outcome unknown: %v", err)
	}
}

func TestConnsPerHostFor(t *testing.T) {
	t.Parallel()
	for limit, want := range map[uint64]int{0: maxConnsPerHost, 8: 2, 32: 8, 64: 16, 256: 64, 1024: 64, 1 << 20: 64} {
		if got := connsPerHostFor(limit); got != want {
			t.Errorf("connsPerHostFor(%d) = %d, want %d", limit, got, want)
		}
	}
}

// TestRequestThatNeverGotAConnectionWasNotSent: a publish waiting for a connection to
// its host, all busy (here the one connection the client may open, held by a slow
// answer), and stopped there (Ctrl-C, or request_timeout) was never sent: its
// outcome is known, and the error says that the connections were busy, not that the
// platform may have acted.
func TestRequestThatNeverGotAConnectionWasNotSent(t *testing.T) {
	t.Parallel()
	f := newProxiedPlatform(t, emulator.Options{})
	cfg := f.config()
	cfg.connsPerHost = 1
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	ctx := context.Background()
	if _, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn.example/scores/first.sib"}); err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	held := f.proxy.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/core/health$`, Hold: release})
	healthDone := make(chan struct{})
	go func() {
		defer close(healthDone)
		_, _ = c.Health(ctx)
	}()
	for f.proxy.Hits(held) == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	posts := f.proxy.Count(http.MethodPost, `/scores$`)
	stop, cancel := context.WithCancel(ctx)
	time.AfterFunc(200*time.Millisecond, cancel)
	_, err = c.PublishScore(stop, PublishScoreInput{ScoreURL: "https://cdn.example/scores/second.sib"})
	close(release)
	<-healthDone
	if err == nil {
		t.Fatal("the publish succeeded while the one connection was held")
	}
	if IsUnknownOutcome(err) {
		t.Errorf("a publish that never got a connection leaves its outcome unknown: %v", err)
	}
	if n := f.proxy.Count(http.MethodPost, `/scores$`) - posts; n != 0 {
		t.Errorf("%d publishes reached the platform while the connection was held, want 0", n)
	}
	if !strings.Contains(err.Error(), "nothing was sent") {
		t.Errorf("the error does not say that nothing was sent: %v", err)
	}
}
