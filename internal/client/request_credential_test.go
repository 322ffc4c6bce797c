package client

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// TestCallCutWhileItsCredentialLoads: on a slow platform, a publish whose caller gives
// up while the token grant it waits for is on the wire ends with a CredentialWaitError
// that names the grant (an administrator call, the login), and the platform receives
// no publish; Close then waits for the grant and removes its token.
func TestCallCutWhileItsCredentialLoads(t *testing.T) {
	env := newEmuEnv(t, emulator.Options{Faults: emulator.Faults{LatencyMs: 400}})
	c := env.client()
	cut := func() (context.Context, context.CancelFunc) { return context.WithTimeout(env.ctx, 50*time.Millisecond) }

	ctx, cancel := cut()
	_, err := c.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn.example/scores/cut.sib", Alias: "cut"})
	cancel()
	var wait *CredentialWaitError
	if !errors.As(err, &wait) || wait.Credential != "platform token grant" || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("publish cut during the grant: %v (%T); want a CredentialWaitError naming the platform token grant", err, err)
	}
	ctx, cancel = cut()
	_, err = c.GetExternalAuthentication(ctx)
	cancel()
	if !errors.As(err, &wait) || wait.Credential != "administrator login" {
		t.Fatalf("administrator call cut during the login: %v (%T); want a CredentialWaitError naming the login", err, err)
	}
	for route, n := range env.stats().Requests {
		if strings.HasPrefix(route, http.MethodPost+" ") && strings.HasSuffix(route, "/scores") && n > 0 {
			t.Errorf("the platform received %d publishes (%s), want none", n, route)
		}
	}
	if err := c.Close(env.ctx); err != nil {
		t.Errorf("Close: %v", err)
	}
	if s := env.stats(); s.LiveTokens+s.LiveSessions != 0 {
		t.Errorf("after Close, %d tokens and %d sessions live, want none: Close waits for the loads under way", s.LiveTokens, s.LiveSessions)
	}
}
