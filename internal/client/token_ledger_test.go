package client

// The ledger: every token the client granted, its own or handed out to the caller
// (GrantAccessToken), is removed at Close unless it was removed before.

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// TestCloseRemovesHandedOutTokens: tokens handed out with GrantAccessToken and not
// removed by their holder (Terraform does not promise to close an ephemeral resource
// when it is stopped) are removed at Close, each named before and after as the
// client's own token is; a token its holder removed, or one extended since, is not
// removed twice, and Close reports no error.
func TestCloseRemovesHandedOutTokens(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c := holdingClient(t, env)
	ctx := env.ctx
	kept, err := c.GrantAccessToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	extended, err := c.GrantAccessToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExtendAccessToken(ctx, &AccessToken{Token: extended.Token}); err != nil {
		t.Fatal(err)
	}
	removed, err := c.GrantAccessToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.RemoveAccessToken(ctx, &AccessToken{Token: removed.Token}); err != nil {
		t.Fatal(err)
	}
	if st := env.stats(); st.LiveTokens != 3 {
		t.Fatalf("%d live tokens before Close, want 3 (the client's own and two handed out)", st.LiveTokens)
	}
	removalsBefore := env.stats().Requests["DELETE /auth/tokens/current"]
	if err := c.Close(context.WithoutCancel(ctx)); err != nil {
		t.Fatalf("Close: %v", err)
	}
	st := env.stats()
	if st.LiveTokens != 0 {
		t.Errorf("%d live tokens after Close, want 0", st.LiveTokens)
	}
	if n := st.Requests["DELETE /auth/tokens/current"] - removalsBefore; n != 3 {
		t.Errorf("Close sent %d token removals, want 3 (its own token and the two handed out not removed yet)", n)
	}
	logs := env.logs.String()
	for _, tok := range []*AccessToken{kept, extended} {
		name := "handed-out platform token " + credentialName(tok.Token)
		for _, want := range []string{"removing " + name + "; if the provider is stopped before it confirms, the token stays live", name + " removed"} {
			if !strings.Contains(logs, want) {
				t.Errorf("the exit's log lacks %q", want)
			}
		}
	}
	if name := credentialName(removed.Token); strings.Contains(logs, name) {
		t.Errorf("the exit named %s, the token its holder had removed already:\n%s", name, logs)
	}
}

// TestCloseReportsAHandOutUnderWay: a grant of a token to hand out that is still
// under way when the exit's window ends is named in Close's error: the token it
// brings is live, and nobody is left to remove it.
func TestCloseReportsAHandOutUnderWay(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c, p := reportingClient(t, env)
	hold := make(chan struct{})
	p.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/ropc/default$`, Hold: hold})
	done := make(chan error, 1)
	go func() {
		_, err := c.GrantAccessToken(env.ctx)
		done <- err
	}()
	if !waitFor(func() bool { return p.Count(http.MethodPost, `/ropc/default$`) == 1 }) {
		t.Fatal("the grant was not sent")
	}
	ctx, cancel := context.WithTimeout(env.ctx, exitWindow)
	defer cancel()
	err := c.Close(ctx)
	close(hold)
	t.Logf("the held grant, answered after the exit: %v", <-done)
	if err == nil || !strings.Contains(err.Error(), "a grant of a token to hand out (ephemeral mediaplatform_access_token) was still under way") {
		t.Errorf("Close: %v; want it to name the grant under way", err)
	}
	env.emu.Expire(true, true)
}
