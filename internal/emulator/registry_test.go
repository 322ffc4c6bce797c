package emulator

// The service registry (section R of the contract).

import (
	"maps"
	"mime"
	"reflect"
	"slices"
	"testing"
)

func TestRegistryServiceRoots(t *testing.T) {
	t.Parallel()
	h := newDMHarness(t)
	r := h.get(h.registryURL(), h.viewer)
	if mt, _, _ := mime.ParseMediaType(r.header.Get("Content-Type")); mt != "application/json" {
		t.Errorf("Content-Type %q", r.header.Get("Content-Type"))
	}
	resources := emuObject(t, dmOK(t, r)["resources"])

	dm := h.srv.URL + "/apis/datamodel;version=1;realm=global/systems/{systemType}/{systemID}"
	want := map[string]string{
		"datamodel:system-model":        dm + "/model{?insist,lang}",
		"datamodel:asset-model-by-id":   dm + "/assets/{assetId}/model{?lang}",
		"datamodel:asset-model-by-type": dm + "/asset-types/{assetType}/model{?lang}",
		"command:command-by-id":         h.srv.URL + "/apis/commands;version=1;realm=global/commands/{id}",
	}
	if got := slices.Sorted(maps.Keys(resources)); !slices.Equal(got, slices.Sorted(maps.Keys(want))) {
		t.Fatalf("resources %v, want %v", got, slices.Sorted(maps.Keys(want)))
	}
	wantSystems := []any{
		map[string]any{"systemType": dmPAM, "systemID": "pam-1"},
		map[string]any{"systemType": dmMAM, "systemID": "mam-1"},
	}
	for rel, href := range want {
		entries := emuArray(t, resources[rel])
		if len(entries) != 1 {
			t.Fatalf("%s: %d entries, want 1", rel, len(entries))
		}
		e := emuObject(t, entries[0])
		if e["href"] != href || e["templated"] != true {
			t.Errorf("%s: %v, want href %s templated", rel, e, href)
		}
		if rel == "command:command-by-id" {
			if _, ok := e["systems"]; ok {
				t.Errorf("%s: systems on the command resource", rel)
			}
		} else if !reflect.DeepEqual(e["systems"], wantSystems) {
			t.Errorf("%s: systems %v, want %v", rel, e["systems"], wantSystems)
		}
	}
	if got := h.expand("command:command-by-id", map[string]any{"id": "c-7"}); got != h.srv.URL+"/apis/commands;version=1;realm=global/commands/c-7" {
		t.Errorf("command-by-id expands to %s", got)
	}
	if got := h.systemModelURL(dmPAM, "pam-1", map[string]any{"insist": "time-based", "lang": "fr-CA"}); got !=
		h.srv.URL+"/apis/datamodel;version=1;realm=global/systems/interplay-pam/pam-1/model?insist=time-based&lang=fr-CA" {
		t.Errorf("system-model expands to %s", got)
	}
}
