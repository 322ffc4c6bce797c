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
// values). Whatever it says, no request goes to another host than the platform's.
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
		tr := &fuzzedRoute{route: "/serviceroots", status: http.StatusOK, contentType: "application/json", body: body}
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
