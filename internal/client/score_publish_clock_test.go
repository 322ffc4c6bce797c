package client

// Publish recovery when the platform's clock steps while a publish is in flight.

import (
	"net/http"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// TestPublishRecoveryAcrossAClockStep: the platform creates the score, its clock steps
// two hours forward, and only then the publish's answer is lost. The look-up that
// recovers the publish reads the score's createdAt on the clock before the step and
// the platform's time on the clock after it: the score is still the one this publish
// created, and is adopted, not published a second time.
func TestPublishRecoveryAcrossAClockStep(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c, p := env.proxiedClient()
	if _, err := c.CountScores(env.ctx, CountScoresInput{}); err != nil { // the platform's clock, learned
		t.Fatal(err)
	}
	release := make(chan struct{})
	p.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/scores$`, Times: 1, Hold: release, Drop: true})
	go func() {
		defer close(release)
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
			if env.emu.Stats().Scores == 1 {
				env.emu.SetFaults(emulator.Faults{ClockOffsetSeconds: 2 * 3600})
				return
			}
		}
	}()
	s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/step.sib"})
	if err != nil {
		t.Fatal(err)
	}
	if n := env.emu.Stats().Scores; n != 1 || s.Recovered == "" {
		t.Errorf("the platform holds %d scores (want the one, adopted: %q)", n, s.Recovered)
	}
}

// TestPublishRecoveryWithEpochTimes: on a platform that writes its times as epoch
// milliseconds (rule 21) and whose clock then steps two hours forward, a publish whose
// answer is lost after the platform acted adopts the score it created, judged by that
// score's createdAt on the platform's clock, and not the score of the same address
// published two hours before on that clock. Before rule 21 the createdAt was absent,
// no score was "created since", and the outcome stayed unknown.
func TestPublishRecoveryWithEpochTimes(t *testing.T) {
	t.Parallel()
	var r emulator.Readings
	r.EpochTimestamps = true
	env := newEmuEnv(t, emulator.Options{Faults: emulator.Faults{Readings: r}})
	c, p := env.proxiedClient()
	older, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/epoch-lost.sib"})
	if err != nil || older.Recovered != "" {
		t.Fatalf("the first publish: %+v, %v", older, err)
	}
	env.emu.SetFaults(emulator.Faults{Readings: r, ClockOffsetSeconds: 2 * 3600})
	if _, err := c.CountScores(env.ctx, CountScoresInput{}); err != nil { // the platform's clock, learned again
		t.Fatal(err)
	}
	p.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/scores$`, Times: 1, Drop: true})
	s, err := c.PublishScore(env.ctx, PublishScoreInput{ScoreURL: "https://cdn.example/epoch-lost.sib"})
	if err != nil {
		t.Fatal(err)
	}
	if n := env.emu.Stats().Scores; n != 2 || s.Recovered == "" || s.ID == older.ID || s.CreatedAt.Before(older.CreatedAt) {
		t.Errorf("the platform holds %d scores (want 2); adopted %s created %v (%q), the older is %s created %v",
			n, s.ID, s.CreatedAt, s.Recovered, older.ID, older.CreatedAt)
	}
}
