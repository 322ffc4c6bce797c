package client

// The fuzz target of registry.go: the service registry's document, through the whole
// pipeline (the registry's types are read and its href templates expanded inside the
// client).

import (
	"context"
	"net/http"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// FuzzRegistryAnswer fuzzes the service registry document: each resource as one entry
// or many, its systems, its href templates (RFC 6570, expanded with the caller's
// values). The registry may list services on other hosts (platformHref trusts them),
// so a request elsewhere is refused by the transport, not counted as a defect; the
// fuzzer's first find, an href "A:" that the client requested as it stands, is kept
// in testdata/fuzz.
func FuzzRegistryAnswer(f *testing.F) {
	for _, b := range answersOf(f, kindRegistry) {
		f.Add(b)
	}
	for _, b := range hostileBodies() {
		f.Add(b)
	}
	f.Add([]byte(`{"resources": {"datamodel:system-model": {"href": "{+systemType}{/systemID*}{?lang,insist:3}{#x}", ` +
		`"templated": true, "systems": [{"systemType": "interplay-pam", "systemID": "pam-1"}]}}}`))
	f.Add([]byte(`{"resources": {"datamodel:asset-model-by-id": [{"href": "{{{"}, {"href": "/a/{assetId:99999999999}"}]}}`))
	emu := emulator.New(emulator.Options{RenderDelay: -1})
	f.Fuzz(func(t *testing.T, body []byte) {
		tr := &fuzzedRoute{route: "/serviceroots", status: http.StatusOK, contentType: "application/json", body: body,
			elsewhere: true}
		c, done := fuzzClient(t, emu, tr)
		within(t, "reading the service registry", body, func() {
			ctx := context.Background()
			_, _ = c.Systems(ctx)
			_, _ = c.SystemModel(ctx, "interplay-pam", "pam-1", true, "de-CH")
			_, _ = c.AssetModelByID(ctx, "interplay-pam", "pam-1", "clip-ü/1", "")
		})
		done()
	})
}
