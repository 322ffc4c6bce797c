package provider

import (
	"os"
	"sync/atomic"
	"testing"
	"time"
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
