package client

// The client's logs.

import (
	"bytes"
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-log/tflogtest"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

func TestLogsCarryNoSecrets(t *testing.T) {
	t.Parallel()
	f := newProxiedPlatform(t, emulator.Options{})
	f.handle("POST "+routeScores+"/s1/view", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"view": map[string]any{
			"id": "v1", "scoreId": "s1", "viewerUrl": "https://host/viewer/SECRET-VIEW-123",
			"createdAt": "2026-11-21T10:15:00.000Z", "expiresAt": "2026-11-21T12:15:00.000Z",
			"settings": map[string]any{"printable": true, "pages": "1-3", "licenseString": "", "lang": "en"},
		}})
	})
	var buf syncBuffer
	ctx := tflogtest.RootLogger(context.Background(), &buf)
	c, err := New(f.config())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CheckSession(ctx); err != nil {
		t.Fatal(err)
	}
	v, err := c.CreateView(ctx, "s1", ViewInput{Pages: "1-3"})
	if err != nil || v.ViewerURL == "" || !v.Settings.Printable {
		t.Fatalf("view %+v %v", v, err)
	}
	_, _ = c.GetScore(ctx, "missing")
	tok, err := c.GrantAccessToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.RemoveAccessToken(ctx, tok)
	session := c.session.peek()
	shared := c.token.peek().Token
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	logs := buf.String()
	if !strings.Contains(logs, `"path":"/auth/oauth2/ropc/default"`) || !strings.Contains(logs, `"status":200`) || !strings.Contains(logs, `"@module":"provider.mediaplatform_client"`) {
		t.Fatalf("expected request logs, got:\n%s", logs)
	}
	basic := base64.StdEncoding.EncodeToString([]byte(emulatortest.ClientID + ":" + emulatortest.ClientSecret))
	for _, secret := range []string{emulatortest.Password, emulatortest.ClientSecret, emulatortest.AdminPassword, basic, session, shared, tok.Token, "SECRET-VIEW-123", "serviceAccessToken"} {
		if secret != "" && strings.Contains(logs, secret) {
			t.Errorf("logs contain secret %q", secret)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for the concurrent writers of several
// loggers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestEchoedSecretsAreMasked(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c, p := env.proxiedClient()
	// A gateway that echoes the login form in its error; a token endpoint that quotes
	// the password in its description.
	p.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/login$`, Respond: &faultproxy.Answer{
		Status: 400, Header: http.Header{"Content-Type": {"text/plain"}},
		Body: "bad request: user=admin&pass=" + emulatortest.AdminPassword + "&r=createsession",
	}})
	p.Add(faultproxy.Fault{Method: http.MethodPost, Path: `/ropc/default$`, Respond: &faultproxy.Answer{
		Status: 400, Header: http.Header{"Content-Type": {"application/json"}},
		Body: `{"error":"invalid_grant","error_description":"password ` + emulatortest.Password + ` is wrong for alice"}`,
	}})
	_, adminErr := c.GetExternalAuthentication(env.ctx)
	_, platformErr := c.ListScores(env.ctx, ListScoresInput{})
	for name, err := range map[string]error{"admin": adminErr, "platform": platformErr} {
		if err == nil {
			t.Fatalf("%s: no error", name)
		}
		for _, secret := range []string{emulatortest.AdminPassword, emulatortest.Password} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("%s error shows a secret: %v", name, err)
			}
		}
		if !strings.Contains(err.Error(), "***") {
			t.Errorf("%s error: want the echoed secret masked, got %v", name, err)
		}
	}
	// The logs are checked for every secret when the test ends (emuEnv.checkLogs).
}

func TestAddressesArePrintedRedacted(t *testing.T) {
	t.Parallel()
	_, err := New(Config{AdminURL: "ftp://root:hunter2@host/api/v1"})
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("got %v", err)
	}
	c, err := New(Config{PlatformURL: "https://u:hunter2@host", AdminURL: "https://u:hunter2@host/api/v1"})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.maskText("answer: hunter2"); strings.Contains(got, "hunter2") {
		t.Errorf("a password in an address is not masked: %q", got)
	}
}
