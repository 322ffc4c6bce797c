package provider

import (
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

func TestQuietUnreadLogs(t *testing.T) {
	quieted := []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_PROVIDER_MEDIAPLATFORM"}
	for _, tc := range []struct {
		name, set string
		wantOff   bool
	}{
		{name: "no TF_LOG variable", wantOff: true},
		{name: "TF_LOG", set: "TF_LOG", wantOff: false},
		{name: "TF_LOG_PROVIDER", set: "TF_LOG_PROVIDER", wantOff: false},
		{name: "TF_LOG_SDK_PROTO", set: "TF_LOG_SDK_PROTO", wantOff: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, name := range append(quieted, "TF_LOG", "TF_LOG_PROVIDER") {
				t.Setenv(name, "")
				if err := os.Unsetenv(name); err != nil {
					t.Fatal(err)
				}
			}
			if tc.set != "" {
				t.Setenv(tc.set, "trace")
			}
			quietUnreadLogs()
			for _, name := range quieted {
				if name == tc.set {
					continue
				}
				if got := os.Getenv(name) == "OFF"; got != tc.wantOff {
					t.Errorf("%s = %q, want OFF: %v", name, os.Getenv(name), tc.wantOff)
				}
			}
		})
	}
}

// TestWatchParent: the watch calls orphaned once, when the parent changes, and not
// at all when it does not, when stopped, or for a process started by init.
func TestWatchParent(t *testing.T) {
	t.Parallel()
	var ppid atomic.Int64
	ppid.Store(4242)
	getppid := func() int { return int(ppid.Load()) }
	orphaned := make(chan struct{}, 2)
	stop := watchParent(getppid, time.Millisecond, func() { orphaned <- struct{}{} })
	defer stop()
	time.Sleep(20 * time.Millisecond)
	if len(orphaned) != 0 {
		t.Fatal("orphaned while the parent was there")
	}
	ppid.Store(1) // Terraform died: the process now belongs to init
	select {
	case <-orphaned:
	case <-time.After(5 * time.Second):
		t.Fatal("the parent's end went unnoticed")
	}
	time.Sleep(20 * time.Millisecond)
	if len(orphaned) != 0 {
		t.Error("orphaned called twice")
	}

	ppid.Store(4242)
	stopped := watchParent(getppid, time.Millisecond, func() { orphaned <- struct{}{} })
	stopped()
	ppid.Store(1)
	time.Sleep(20 * time.Millisecond)
	if len(orphaned) != 0 {
		t.Error("a stopped watch called orphaned")
	}
	_ = watchParent(func() int { return 1 }, time.Millisecond, func() { orphaned <- struct{}{} })
	time.Sleep(20 * time.Millisecond)
	if len(orphaned) != 0 {
		t.Error("a process started by init was taken for an orphan")
	}
}

// TestAccServe_logoutAfterEveryCommand runs the real provider binary under the real
// Terraform CLI, as a user does: through a dev_overrides CLI configuration, one
// provider process per Terraform phase, each ended by Terraform's graceful shutdown.
// Every process logs out its administrator session and removes its platform token
// when it ends.
func TestAccServe_logoutAfterEveryCommand(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	emu := newTestEmulator(t)
	ctl := emu.control(t, "live session and token counts")
	w := newWorkspace(t, emu, fmt.Sprintf(`
resource "mediaplatform_external_authentication" "test" {
  domain_name = %q
  enabled     = true
}
resource "mediaplatform_score" "test" {
  score_url = %q
}
resource "mediaplatform_score_view" "test" {
  score = mediaplatform_score.test.id
}
`, accDomain(), accScoreURL(accName())))
	for i, args := range [][]string{
		{"plan"},
		{"apply", "-auto-approve"},
		{"plan"},
		{"destroy", "-auto-approve"},
	} {
		before := ctl.Stats()
		w.run(args...)
		after := ctl.Stats()
		if after.LiveSessions != 0 || after.LiveTokens != 0 {
			t.Errorf("after terraform %s: %d live admin sessions and %d live platform tokens, want 0 and 0",
				args[0], after.LiveSessions, after.LiveTokens)
		}
		// The first plan has nothing to refresh and must not log in; every later
		// command logs in both ways, so the zero counts above are logouts.
		switch n := after.Logins["admin"] - before.Logins["admin"]; {
		case i == 0 && after.TotalRequests() != 0:
			t.Errorf("planning new objects made %d requests, want none", after.TotalRequests())
		case i > 0 && (n == 0 || after.Logins["oauth"] == before.Logins["oauth"]):
			t.Errorf("terraform %s did not log in both ways (admin %d, oauth %d); the test proves nothing",
				args[0], n, after.Logins["oauth"]-before.Logins["oauth"])
		}
	}
}

// TestAccServe_closeUnderLatency runs terraform with every platform request taking a second:
// the provider still logs out and removes its token inside Terraform's shutdown window.
func TestAccServe_closeUnderLatency(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	emu, proxy := newProxiedTestEmulator(t, "a slow network")
	ctl := emu.control(t, "live session and token counts")
	proxy.Add(faultproxy.Fault{Latency: time.Second})
	w := newWorkspace(t, emu, `
data "mediaplatform_health" "test" {}
data "mediaplatform_external_authentication" "test" {}
`)
	w.run("plan")
	if s := ctl.Stats(); s.LiveSessions != 0 || s.LiveTokens != 0 {
		t.Errorf("after terraform plan at 1 s per request: %d live sessions, %d live tokens, want none", s.LiveSessions, s.LiveTokens)
	}
}
