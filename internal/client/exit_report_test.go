package client

// The exit's reports: each credential is named at WARN before its release leaves, and
// again when its outcome is known, so that a process killed in between (Terraform
// kills a provider about 2 s after asking it to stop) has said which one it may leave.

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

// TestCloseReportsBeforeEachRelease: when the token removal and the logout reach the
// platform, the log already names each at WARN as being released, with what a stop
// then leaves; after Close it confirms each, and never shows the credential itself.
func TestCloseReportsBeforeEachRelease(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c, p := env.proxiedClient()
	if _, err := c.CheckSession(env.ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListScores(env.ctx, ListScoresInput{}); err != nil {
		t.Fatal(err)
	}
	token, session := c.token.peek(), c.session.peek()
	if token == nil || session == "" {
		t.Fatal("the client holds no token or no session: the test proves nothing")
	}
	tokenName, sessionName := "platform token "+credentialName(token.Token), "administrator session "+credentialName(session)

	// The logs as each release reached the proxy, before it was forwarded (Query runs
	// then; it leaves the empty query as it is).
	var mu sync.Mutex
	seen := map[string]string{}
	probe := func(key string) func(url.Values) {
		return func(url.Values) {
			mu.Lock()
			defer mu.Unlock()
			seen[key] = env.logs.String()
		}
	}
	p.Add(faultproxy.Fault{Method: http.MethodDelete, Path: `/auth/tokens/`, Query: probe("removal")})
	p.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/logout$`, Query: probe("logout")})
	if err := c.Close(context.WithoutCancel(env.ctx)); err != nil {
		t.Fatal(err)
	}
	if st := env.emu.Stats(); st.LiveTokens != 0 || st.LiveSessions != 0 {
		t.Fatalf("%d tokens and %d sessions live after Close", st.LiveTokens, st.LiveSessions)
	}
	for _, r := range []struct{ key, name, before, after string }{
		{"removal", tokenName, "removing " + tokenName + "; if the provider is stopped before it confirms, the token stays live until it expires", tokenName + " removed"},
		{"logout", sessionName, "logging out " + sessionName + "; if the provider is stopped before it confirms, the session stays live until it expires", sessionName + " logged out"},
	} {
		at, ok := seen[r.key]
		switch {
		case !ok:
			t.Errorf("the %s never reached the platform", r.key)
		case !strings.Contains(at, `"@level":"warn","@message":"Provider exiting: `+r.before):
			t.Errorf("when the %s left, the log did not say at WARN %q:\n%s", r.key, r.before, at)
		case strings.Contains(at, r.after):
			t.Errorf("when the %s left, the log already confirmed it", r.key)
		}
		if !strings.Contains(env.logs.String(), `"@message":"Provider exiting: `+r.after) {
			t.Errorf("after Close the log does not confirm %q", r.after)
		}
	}
}
