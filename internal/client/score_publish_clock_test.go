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
