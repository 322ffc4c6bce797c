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
)

func TestLogsCarryNoSecrets(t *testing.T) {
	t.Parallel()
	f := newProxiedPlatform(t, emulator.Options{})
	f.handle("POST "+routeScores+"/s1/view", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"view": map[string]any{
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
