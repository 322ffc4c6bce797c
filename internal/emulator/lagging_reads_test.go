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

// TestRestoreScores: a restore puts back the scores of the backup with their UUIDs,
// aliases and creation times, and removes those created since; an alias is held by
// the score that held it in the backup.
func TestRestoreScores(t *testing.T) {
	t.Parallel()
	api := newScoreAPI(t, Options{}, true)
	kept := api.publish(t, `{"scoreUrl":"https://cdn.example/kept.sib","scoreId":"kept"}`)
	older := api.publish(t, `{"scoreUrl":"https://cdn.example/v1.sib","scoreId":"moved"}`)
	backup := api.e.BackupScores()

	api.clock.Advance(time.Second)
	api.do(t, http.MethodDelete, "/scores/"+older.ID, "").wantStatus(t, http.StatusNoContent)
	newer := api.publish(t, `{"scoreUrl":"https://cdn.example/v2.sib","scoreId":"moved"}`)
	added := api.publish(t, `{"scoreUrl":"https://cdn.example/added.sib"}`)

	api.e.RestoreScores(backup)
	for _, gone := range []string{newer.ID, added.ID} {
		wantScoreProblem(t, api.do(t, http.MethodGet, "/scores/"+gone, ""), http.StatusNotFound, "publishing/NOT_FOUND", "")
	}
	if got := api.get(t, "moved"); got.ID != older.ID || got.ScoreURL != older.ScoreURL || got.CreatedAt != older.CreatedAt {
		t.Errorf("after the restore the alias holds %+v, want the backup's score %+v", got, older)
	}
	if got := api.get(t, kept.ID); got.CreatedAt != kept.CreatedAt {
		t.Errorf("the kept score's createdAt changed: %s → %s", kept.CreatedAt, got.CreatedAt)
	}
	if n := api.e.scores.count(); n != 2 {
		t.Errorf("after the restore the platform holds %d scores, want 2", n)
	}
}
