package client

// The command resource and the addresses a command call may go to.

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

func TestCommandDecoding(t *testing.T) {
	t.Parallel()
	body := `{"version":"1.0","command":{"id":"c-7","type":"bulk","lifecycle":"finished","progress":100,
	  "state":{"text":"done","code":"x/DONE","param":{"totalCount":3,"successCount":2,"failureCount":1}},
	  "created":"2026-11-21T10:15:00.000Z","finished":"2026-11-21T10:16:00.000Z","creator":"alice","unknown":1},
	  "payload":{"command-parameters":{"ids":["a"]},"result":[{"success":true,"data":"a"},
	    {"success":false,"data":"","httpStatus":409,"errorCode":"datamodel/THUMBNAIL_CHANGED","errorMessage":"changed"}],"extra":true},
	  "_links":{"self":{"href":"/c/7"},"command:cancel":[{"href":"/c/7"}]}}`
	var cmd Command
	if err := json.Unmarshal([]byte(body), &cmd); err != nil {
		t.Fatal(err)
	}
	counts, ok := cmd.BulkCounts()
	if !ok || counts != (BulkCounts{Total: 3, Success: 2, Failure: 1}) {
		t.Errorf("counts %+v %v", counts, ok)
	}
	if !cmd.Command.Terminal() || *cmd.Command.Progress != 100 || cmd.Command.Finished.IsZero() || !cmd.Command.Modified.IsZero() {
		t.Errorf("command %+v", cmd.Command)
	}
	if len(cmd.Payload.Result) != 2 || cmd.Payload.Result[1].HTTPStatus != 409 || string(cmd.Payload.Parameters) != `{"ids":["a"]}` {
		t.Errorf("payload %+v", cmd.Payload)
	}
	if self, ok := cmd.Links.First("self"); !ok || self.Href != "/c/7" || len(cmd.Raw) == 0 || len(cmd.Payload.Raw) == 0 {
		t.Errorf("links/raw: %+v", cmd.Links)
	}
}

func TestPlatformHrefRefusesForeignHosts(t *testing.T) {
	t.Parallel()
	f := newProxiedPlatform(t, emulator.Options{})
	f.handle("GET /apis/registry;version=0/serviceroots", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"resources": map[string]any{
			relCommandByID: []any{map[string]any{"href": "/apis/commands;version=1;realm=global/commands/{id}", "templated": true}},
		}})
	})
	c := newTestClient(t, f.config())
	_, err := c.GetCommandByHref(context.Background(), "https://evil.example/commands/1")
	if err == nil || !strings.Contains(err.Error(), "refusing") {
		t.Fatalf("got %v", err)
	}
	_, err = c.GetCommandByHref(context.Background(), "/apis/commands;version=1;realm=global/commands/1")
	if !IsNotFound(err) {
		t.Fatalf("relative href: %v", err)
	}
	// A platform path outside the command service is refused before any request to it.
	before := f.count(routeTokenInfo)
	_, err = c.GetCommandByHref(context.Background(), "/auth/tokens/current")
	if err == nil || !strings.Contains(err.Error(), "does not address a command") {
		t.Fatalf("token information as a command: %v", err)
	}
	if n := f.count(routeTokenInfo) - before; n != 0 {
		t.Errorf("the token information was read %d times", n)
	}
}
