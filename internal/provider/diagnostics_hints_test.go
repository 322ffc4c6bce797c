package provider

// The leads' hints, done as they say, through the terraform CLI.

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/testnet"
)

// TestAccDiagnosticsHints_misspeltVariableAsMeant: with MEDIAPLATFORM_ADMIN_USERNAM set
// instead of MEDIAPLATFORM_ADMIN_USERNAME, the missing admin_username's lead asks "did
// you mean …?"; the variable it names, set with the same value, makes the apply pass.
func TestAccDiagnosticsHints_misspeltVariableAsMeant(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	emu := newTestEmulator(t)
	cfg := emu.config()
	w := newWorkspace(t, emu, "")
	w.writeProvider("", `
resource "mediaplatform_external_authentication" "test" {
  domain_name = "CORP"
  enabled     = true
}
`)
	settings := []string{"MEDIAPLATFORM_ADMIN_URL=" + cfg.AdminURL, "MEDIAPLATFORM_ADMIN_PASSWORD=" + cfg.AdminPassword}
	w.env = append(settings, "MEDIAPLATFORM_ADMIN_USERNAM="+cfg.AdminUsername)
	out, err := w.command("apply", "-auto-approve").CombinedOutput()
	if err == nil {
		t.Fatalf("the apply without admin_username succeeded:\n%s", out)
	}
	meant := regexp.MustCompile(`is not set[\s\S]*did\s+you\s+mean\s+(MEDIAPLATFORM_[A-Z_]+)\?`).FindStringSubmatch(string(out))
	if meant == nil {
		t.Fatalf("the missing setting's lead names no variable meant:\n%s", out)
	}
	w.env = append(settings, meant[1]+"="+cfg.AdminUsername)
	w.run("apply", "-auto-approve")
	w.run("destroy", "-auto-approve")
}

// TestAccDiagnosticsHints_noProxyNamesTheHost: with HTTP_PROXY naming a proxy that is
// down, the lead says the request "never left this machine" and to "name the
// platform's host in NO_PROXY to reach it directly"; the host that lead names, put in
// NO_PROXY as it is written there, makes the plan pass. The platform is addressed by
// this machine's name, which resolves to the loopback address the emulator listens on:
// net/http sends a request for localhost or a loopback address past any proxy, so an
// address of those would show neither the error nor the hint.
func TestAccDiagnosticsHints_noProxyNamesTheHost(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	name, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	if addrs, err := net.DefaultResolver.LookupHost(t.Context(), name); err != nil || !slices.Contains(addrs, "127.0.0.1") {
		t.Skipf("this machine's name %q does not resolve to 127.0.0.1 (%v, %v), where the emulator listens", name, addrs, err)
	}
	emu := newTestEmulator(t)
	listening := strings.TrimPrefix(emu.URL, "http://")
	_, port, _ := net.SplitHostPort(listening)
	cfg := emu.config()
	for _, u := range []*string{&cfg.AdminURL, &cfg.PlatformURL, &cfg.PublishingURL, &cfg.RegistryURL} {
		*u = strings.Replace(*u, listening, net.JoinHostPort(name, port), 1)
	}
	down := testnet.ClosedAddress(t)
	w := newWorkspace(t, emu, "")
	w.writeProvider(providerBlock(cfg), `data "mediaplatform_health" "test" {}`+"\n")
	w.env = []string{"HTTP_PROXY=http://" + down}
	out, err := w.command("plan").CombinedOutput()
	if err == nil {
		t.Fatalf("the plan through a proxy that is down succeeded:\n%s", out)
	}
	hint := regexp.MustCompile(`request\s+for\s+(\S+)\s+\(from\s+[a-z_]+\)\s+never\s+left\s+this\s+machine[\s\S]*?` +
		`name\s+the\s+platform's\s+host\s+in\s+NO_PROXY`).FindSubmatch(out)
	if hint == nil {
		t.Fatalf("the lead of a proxy that is down does not say to name the host in NO_PROXY:\n%s", out)
	}
	t.Logf("the lead names %s; NO_PROXY=%s", hint[1], hint[1])
	w.env = append(w.env, "NO_PROXY="+string(hint[1]))
	w.run("plan")
}

// TestAccDiagnosticsHints_rateLimitWaitAsGiven: a platform that allows 25 requests a
// 10-minute window and answers the next with 429 and "Retry-After: 600", longer than
// the provider's retry budget: an apply of 30 scores fails with the rate-limit lead.
// The test does what the lead says: with a lower -parallelism when it says so (at
// once, -parallelism=1), and when it names a wait, again once that wait is over on
// the platform's clock. The apply then completes, and the state holds every score the
// platform holds. Before, the lead said "Run again later, or with a lower
// -parallelism": a lower -parallelism met the same 429 (the window counts requests,
// not requests at once), and "later" named no time.
func TestAccDiagnosticsHints_rateLimitWaitAsGiven(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	const scores = 30
	var ahead atomic.Int64 // how far the platform's clock is ahead of this machine's
	emu := newTestEmulatorWith(t, "a rate limit on a clock of its own", emulator.Options{RenderDelay: testRenderDelay,
		RateLimitClock: func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }})
	ctl := emu.control(t, "a rate limit of 25 requests in 10 minutes")
	var config strings.Builder
	for i := range scores {
		fmt.Fprintf(&config, "resource \"mediaplatform_score\" \"s%d\" {\n  score_url          = %q\n  wait_for_rendering = false\n}\n",
			i, accScoreURL(accName()))
	}
	w := newWorkspace(t, emu, config.String())
	ctl.SetFaults(emulator.Faults{RateLimitPerSecond: 25, RateLimitWindowSeconds: 600})
	t.Cleanup(func() {
		ctl.SetFaults(emulator.Faults{})
		w.run("destroy", "-auto-approve")
	})
	out, err := w.command("apply", "-auto-approve", "-parallelism=30").CombinedOutput()
	if err == nil {
		t.Fatalf("the apply of %d scores under a limit of 25 requests succeeded: the test shows no hint:\n%s", scores, out)
	}
	lead := regexp.MustCompile(`The\s+platform\s+is\s+limiting\s+the\s+request\s+rate\s+\(HTTP\s+429\)[\s\S]*?\n\s*\n`).Find(out)
	if lead == nil {
		t.Fatalf("the failed apply has no rate-limit lead:\n%s", out)
	}
	said := strings.Join(strings.Fields(string(lead)), " ")
	t.Logf("the lead: %s", said)
	// The run's token removal at its exit met the same 429 (the window was spent), so
	// that token stays live until it expires on the platform; expire it, so that the
	// emulator's end-of-test check judges the runs that follow.
	if n := ctl.Stats().LiveTokens; n > 1 {
		t.Errorf("the rate-limited run left %d tokens live, want at most its own", n)
	}
	ctl.Expire(true, false)
	args := []string{"apply", "-auto-approve"}
	if strings.Contains(said, "with a lower -parallelism") {
		args = append(args, "-parallelism=1")
	}
	if m := regexp.MustCompile(`once that wait \(([0-9hms.]+)\) is over`).FindStringSubmatch(said); m != nil {
		wait, err := time.ParseDuration(m[1])
		if err != nil {
			t.Fatal(err)
		}
		ahead.Add(int64(wait + time.Second))
	}
	if out, err := w.command(args...).CombinedOutput(); err != nil {
		t.Fatalf("the apply done as the lead says (%s) failed:\n%s", strings.Join(args, " "), out)
	}
	if inState, held := len(strings.Fields(w.run("state", "list"))), ctl.Stats().Scores; inState != held || held != scores {
		t.Errorf("the platform holds %d scores and the state %d, want %d of each", held, inState, scores)
	}
}

// TestAccDiagnosticsHints_rateLimitWithoutRetryAfterAsGiven: a publishing API that
// serves at most 2 calls at once and answers the next with 429 and no Retry-After (a
// concurrency limit; RFC 6585 makes the header optional), each publish taking a
// second: an apply of 8 scores at -parallelism=8 fails with the lead "Nothing was
// changed by this request. Run again later, or with a lower -parallelism." The test
// does what it says, with -parallelism=1, the limit and the provider's settings
// unchanged: the apply completes, and the state holds every score the platform holds.
// Run again at -parallelism=8 instead, the apply met the same 429s (2026-11-29): under a
// limit of calls at once, "later" helps only once the platform's other callers are done.
//
// The provider runs with max_retries = 0, a user's setting that lets the first 429
// through. With the default max_retries the same apply at -parallelism=8 completed in
// 9 s (2026-11-29): the client retries such a 429 for up to 2 minutes a call, and its
// pace after a 429 found the platform's; the lead comes only from a limit that pace
// cannot meet in that time, longer than a test may take.
func TestAccDiagnosticsHints_rateLimitWithoutRetryAfterAsGiven(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	const scores, atOnce = 8, 2
	emu, proxy := newProxiedTestEmulator(t, "a platform that serves 2 publishes at once")
	ctl := emu.control(t, "score counts")
	busy := proxy.Add(faultproxy.Fault{Path: `/scores`, Busy: atOnce, Respond: &faultproxy.Answer{
		Status: http.StatusTooManyRequests, Header: http.Header{"Content-Type": {"application/problem+json"}},
		Body: `{"code":"publishing/TOO_MANY_REQUESTS","message":"too many requests at once","params":{},"status":429}`,
	}})
	proxy.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/scores$`, Latency: time.Second})
	var config strings.Builder
	for i := range scores {
		fmt.Fprintf(&config, "resource \"mediaplatform_score\" \"s%d\" {\n  score_url          = %q\n  wait_for_rendering = false\n}\n",
			i, accScoreURL(accName()))
	}
	w := newWorkspace(t, emu, "")
	w.writeWith("max_retries = 0", config.String())
	t.Cleanup(func() {
		proxy.Clear()
		w.run("destroy", "-auto-approve")
	})
	out, err := w.command("apply", "-auto-approve", fmt.Sprintf("-parallelism=%d", scores)).CombinedOutput()
	if err == nil {
		t.Fatalf("the apply of %d scores at once on a platform that serves %d succeeded: the test shows no hint:\n%s",
			scores, atOnce, out)
	}
	lead := regexp.MustCompile(`The\s+platform\s+is\s+limiting\s+the\s+request\s+rate\s+\(HTTP\s+429\)[\s\S]*?\n\s*\n`).Find(out)
	if lead == nil {
		t.Fatalf("the failed apply has no rate-limit lead:\n%s", out)
	}
	said := strings.Join(strings.Fields(string(lead)), " ")
	t.Logf("%d requests refused; the lead: %s", proxy.Hits(busy), said)
	if !strings.Contains(said, "Nothing was changed by this request. Run again later, or with a lower -parallelism.") {
		t.Fatalf("the lead of a 429 without Retry-After does not say to run again with a lower -parallelism: %s", said)
	}
	if out, err := w.command("apply", "-auto-approve", "-parallelism=1").CombinedOutput(); err != nil {
		t.Fatalf("the apply with a lower -parallelism, as the lead says, failed:\n%s", out)
	}
	if inState, held := len(strings.Fields(w.run("state", "list"))), ctl.Stats().Scores; inState != held || held != scores {
		t.Errorf("the platform holds %d scores and the state %d, want %d of each", held, inState, scores)
	}
}
