package client

import (
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// TestTemplatedLinks: the token flow's links and command:cancel given as RFC 6570
// templates with an optional query expression are expanded with no variables (an
// apply with an ephemeral access token failed).
func TestTemplatedLinks(t *testing.T) {
	t.Parallel()
	env, c := readingEnv(t, "templatedLinks")
	tok, err := c.GrantAccessToken(env.ctx)
	if err != nil {
		t.Fatalf("grant: %v", err)
	}
	if tok, err = c.ExtendAccessToken(env.ctx, tok); err != nil {
		t.Fatalf("extend: %v", err)
	}
	if err := c.RemoveAccessToken(env.ctx, tok); err != nil {
		t.Fatalf("remove: %v", err)
	}
	id, err := env.emu.CreateCommand(emulator.CommandScript{Steps: []emulator.CommandStep{{Lifecycle: "suspended", Progress: 30}}})
	if err != nil {
		t.Fatal(err)
	}
	cmd, err := c.GetCommand(env.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if canceled, err := c.CancelCommand(env.ctx, cmd); err != nil || canceled.Command.Error == nil || canceled.Command.Error.Cause != "canceled" {
		t.Errorf("cancel: %+v, %v", canceled, err)
	}
	if err := c.Close(env.ctx); err != nil {
		t.Fatal(err)
	}
	if st := env.stats(); st.LiveTokens != 0 {
		t.Errorf("%d platform tokens live, want 0", st.LiveTokens)
	}
}
