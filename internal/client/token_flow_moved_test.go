package client

// The token flow's links are a cache of /auth: when the token service moves under a
// running client (its old paths answer 404 or 410), the client reads /auth again, once,
// and goes on where it leads (issue 41 item 9).

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// movedRoute is the emulator's stats key of a route of the moved token service.
func movedRoute(method, path string) string { return method + " " + emulator.MovedTokenService + path }

func TestTokenServiceMoveIsFollowed(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusNotFound, http.StatusGone} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			t.Parallel()
			env := newEmuEnv(t, emulator.Options{})
			c := env.client()
			list := func() error { _, err := c.ListScores(env.ctx, ListScoresInput{Limit: 1}); return err }
			if err := list(); err != nil {
				t.Fatal(err)
			}

			// The token service moves, and the token held expires with it: every call needs
			// a new grant, which the old link refuses.
			env.emu.MoveTokenService(status)
			env.emu.Expire(true, false)
			before := env.stats().Requests
			const calls = 12
			errs := make([]error, calls)
			var wg sync.WaitGroup
			for i := range calls {
				wg.Go(func() { errs[i] = list() })
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Fatalf("call %d after the move: %v", i, err)
				}
			}
			after := env.stats().Requests
			for route, want := range map[string]int{
				"GET /auth":                                1, // read again once, for every call
				"POST /auth/oauth2/ropc/default":           1, // the one grant, at the old link
				movedRoute("POST", "/oauth2/ropc/default"): 1, // and repeated at the new one
			} {
				if n := after[route] - before[route]; n != want {
					t.Errorf("%s: %d requests for %d calls after the move, want %d", route, n, calls, want)
				}
			}
		})
	}
}

// TestTokenRemovalFollowsTheMove: a token whose removal link moved is removed through
// the new one, at the exit and when removed on request; a 404 at the old link does not
// count as removed.
func TestTokenRemovalFollowsTheMove(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusNotFound, http.StatusGone} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			t.Parallel()
			env := newEmuEnv(t, emulator.Options{})
			c, err := New(env.config())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.ListScores(env.ctx, ListScoresInput{Limit: 1}); err != nil {
				t.Fatal(err)
			}
			own, err := c.GrantAccessToken(env.ctx)
			if err != nil {
				t.Fatal(err)
			}
			if n := env.stats().LiveTokens; n != 2 {
				t.Fatalf("%d live tokens before the move, want 2", n)
			}

			env.emu.MoveTokenService(status)
			if err := c.RemoveAccessToken(env.ctx, own); err != nil {
				t.Fatalf("removing a token after the move: %v", err)
			}
			if err := c.Close(context.WithoutCancel(env.ctx)); err != nil {
				t.Fatalf("closing after the move: %v", err)
			}
			if n := env.stats().LiveTokens; n != 0 {
				t.Errorf("%d tokens live after they were removed, want 0: a removal at the old link counted as done", n)
			}
			if n := env.stats().Requests[movedRoute("DELETE", "/tokens/current")]; n != 2 {
				t.Errorf("%d removals at the moved token service, want 2 (the client's token and its own)", n)
			}
		})
	}
}

// TestTokenExtensionFollowsTheMove: a token whose extension link moved is extended
// through the new one.
func TestTokenExtensionFollowsTheMove(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c := env.client()
	own, err := c.GrantAccessToken(env.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.RemoveAccessToken(env.ctx, own) }()
	env.emu.MoveTokenService(http.StatusGone)
	if _, err := c.ExtendAccessToken(env.ctx, own); err != nil {
		t.Fatalf("extending a token after the move: %v", err)
	}
	if n := env.stats().Requests[movedRoute("POST", "/tokens/current/extension")]; n != 1 {
		t.Errorf("%d extensions at the moved token service, want 1", n)
	}
}
