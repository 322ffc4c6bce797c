package client

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// TestLoginCutByAStopIsHeld: a stop (the caller's context ends) while the token grant
// and the administrator login are on the wire does not lose what they created: the
// platform granted a token and a session whose answers came after the stop, and the
// client still holds them, so Close removes both. Before, each was abandoned with its
// answer and stayed live until it expired.
func TestLoginCutByAStopIsHeld(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c, p := env.proxiedClient()
	const held = 400 * time.Millisecond
	p.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/oauth2/ropc/default$`, Delay: held})
	p.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/login$`, Delay: held})
	ctx, cancel := context.WithCancel(env.ctx)
	var wg sync.WaitGroup
	var scoreErr, sessionErr error
	wg.Go(func() { _, scoreErr = c.GetScore(ctx, "cut-1") })
	wg.Go(func() { _, sessionErr = c.CheckSession(ctx) })
	// Both requests are on the wire (the platform acts before the proxy holds the
	// answer) once the platform holds the token and the session.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if st := env.emu.Stats(); st.LiveTokens == 1 && st.LiveSessions == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the grant and the login never reached the platform: %+v", env.emu.Stats())
		}
	}
	cancel()
	wg.Wait()
	if scoreErr == nil || sessionErr == nil {
		t.Fatalf("the stopped calls succeeded: %v, %v", scoreErr, sessionErr)
	}
	if err := c.Close(env.ctx); err != nil {
		t.Fatal(err)
	}
	if st := env.emu.Stats(); st.LiveTokens != 0 || st.LiveSessions != 0 {
		t.Errorf("after Close: %d live tokens and %d live sessions, want none", st.LiveTokens, st.LiveSessions)
	}
}
