package emulator

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestLaggingReads: under Faults.LaggingReadsMs a score is invisible to the score
// API's reads (GET by UUID or alias, the list, the count) for that long after its
// creation, while writes see it at once (its alias is taken, it can be deleted);
// afterwards every read sees it. LaggedReads counts the reads that missed it.
func TestLaggingReads(t *testing.T) {
	t.Parallel()
	api := newScoreAPI(t, Options{}, true)
	api.e.SetFaults(Faults{LaggingReadsMs: 2000})
	old := api.publish(t, `{"scoreUrl":"https://cdn.example/old.sib","scoreId":"old"}`)
	api.clock.Advance(3 * time.Second)
	young := api.publish(t, `{"scoreUrl":"https://cdn.example/young.sib","scoreId":"young"}`)
	api.clock.Advance(1999 * time.Millisecond)

	for _, ref := range []string{young.ID, "young"} {
		wantScoreProblem(t, api.do(t, http.MethodGet, "/scores/"+ref, ""), http.StatusNotFound, "publishing/NOT_FOUND", "")
	}
	api.get(t, old.ID)
	if list := api.do(t, http.MethodGet, "/scores", "").body; strings.Contains(string(list), young.ID) || !strings.Contains(string(list), old.ID) {
		t.Errorf("the list during the lag = %s, want the old score only", list)
	}
	if count := api.do(t, http.MethodGet, "/scores/count", "").body; !strings.Contains(string(count), `"count":1`) {
		t.Errorf("the count during the lag = %s, want 1", count)
	}
	// Writes go to the primary: the alias is taken, and a repeated publish is refused.
	wantScoreProblem(t, api.do(t, http.MethodPost, "/scores", `{"scoreUrl":"https://cdn.example/again.sib","scoreId":"young"}`),
		http.StatusConflict, "publishing/CONFLICT", "")
	if got := api.e.LaggedReads(); got != 4 {
		t.Errorf("LaggedReads = %d, want 4 (two GETs, one list, one count)", got)
	}

	api.clock.Advance(time.Millisecond)
	api.get(t, young.ID)
	api.get(t, "young")
	if list := api.do(t, http.MethodGet, "/scores", "").body; !strings.Contains(string(list), young.ID) {
		t.Errorf("the list after the lag = %s, want the young score in it", list)
	}
	if got := api.e.LaggedReads(); got != 4 {
		t.Errorf("LaggedReads after the lag = %d, want still 4", got)
	}

	// A delete during the lag reaches the score.
	api.e.SetFaults(Faults{LaggingReadsMs: 60_000})
	api.do(t, http.MethodDelete, "/scores/"+young.ID, "").wantStatus(t, http.StatusNoContent)
	api.e.SetFaults(Faults{})
	wantScoreProblem(t, api.do(t, http.MethodGet, "/scores/"+young.ID, ""), http.StatusNotFound, "publishing/NOT_FOUND", "")
}

// TestLaggingReadsValidated: the control surface refuses a negative lag.
func TestLaggingReadsValidated(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	et.control(http.MethodPost, "/faults", `{"laggingReadsMs":-1}`).wantProblem(t, http.StatusBadRequest, "emulator/BAD_ARGUMENT", "laggingReadsMs")
	et.control(http.MethodPost, "/faults", `{"laggingReadsMs":2000}`).wantStatus(t, http.StatusOK)
}

// TestIndexRefresh: under Faults.IndexRefreshMs the list and the count leave out a
// score created since the index's last refresh (the last whole multiple of the
// period), while GET by UUID or alias sees it at once; after the next refresh the
// list and the count hold it.
func TestIndexRefresh(t *testing.T) {
	t.Parallel()
	api := newScoreAPI(t, Options{}, true)
	now := api.clock.Now()
	api.clock.Advance(now.Truncate(time.Second).Add(time.Second + 100*time.Millisecond).Sub(now)) // 100 ms after a refresh
	api.e.SetFaults(Faults{IndexRefreshMs: 1000})
	young := api.publish(t, `{"scoreUrl":"https://cdn.example/indexed.sib","scoreId":"indexed"}`)
	if got := api.get(t, young.ID); got.ID != young.ID {
		t.Errorf("GET by UUID during the index's lag = %s, want %s", got.ID, young.ID)
	}
	api.get(t, "indexed")
	if list := api.do(t, http.MethodGet, "/scores", "").body; strings.Contains(string(list), young.ID) {
		t.Errorf("the list before the index's refresh = %s, want the new score left out", list)
	}
	if count := api.do(t, http.MethodGet, "/scores/count", "").body; !strings.Contains(string(count), `"count":0`) {
		t.Errorf("the count before the index's refresh = %s, want 0", count)
	}
	if got := api.e.LaggedReads(); got != 2 {
		t.Errorf("LaggedReads = %d, want 2 (one list, one count)", got)
	}
	api.clock.Advance(900 * time.Millisecond) // past the next whole second: the index is refreshed
	if list := api.do(t, http.MethodGet, "/scores", "").body; !strings.Contains(string(list), young.ID) {
		t.Errorf("the list after the index's refresh = %s, want the new score in it", list)
	}
	if count := api.do(t, http.MethodGet, "/scores/count", "").body; !strings.Contains(string(count), `"count":1`) {
		t.Errorf("the count after the index's refresh = %s, want 1", count)
	}
}

// TestIndexRefreshValidated: the control surface refuses a negative period.
func TestIndexRefreshValidated(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	et.control(http.MethodPost, "/faults", `{"indexRefreshMs":-1}`).wantProblem(t, http.StatusBadRequest, "emulator/BAD_ARGUMENT", "indexRefreshMs")
	et.control(http.MethodPost, "/faults", `{"indexRefreshMs":1000}`).wantStatus(t, http.StatusOK)
}

// TestPlatformClockHoldsTheLag: Options.PlatformClock is the clock of the scores' times
// and of the Date header: while it stands still, a score under Faults.LaggingReadsMs
// stays hidden however long this machine's time runs, its creation time and every
// answer's Date are the clock's time, and once the clock has moved past the lag the
// score is read.
func TestPlatformClockHoldsTheLag(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	e := New(Options{PlatformClock: clock.Now})
	api := &scoreAPI{emuTester: serveEmulator(t, e)}
	api.pub = e.PublishingURL(api.srv.URL)
	api.token = api.platformLogin(DefaultUserName, DefaultUserPassword)
	e.SetFaults(Faults{LaggingReadsMs: 1})
	s := api.publish(t, `{"scoreUrl":"https://cdn.example/still.sib","scoreId":"still"}`)
	if want := formatTime(testClockStart); s.CreatedAt != want {
		t.Errorf("createdAt = %s, want the platform clock's %s", s.CreatedAt, want)
	}
	// A millisecond of lag, and more than that of this machine's time.
	time.Sleep(5 * time.Millisecond)
	r := api.do(t, http.MethodGet, "/scores/"+s.ID, "")
	wantScoreProblem(t, r, http.StatusNotFound, "publishing/NOT_FOUND", "")
	if got, want := r.header.Get("Date"), testClockStart.Format(http.TimeFormat); got != want {
		t.Errorf("Date = %q, want the platform clock's %q", got, want)
	}
	clock.Advance(time.Millisecond)
	api.get(t, s.ID)
	if got := e.LaggedReads(); got != 1 {
		t.Errorf("LaggedReads = %d, want 1", got)
	}
}
