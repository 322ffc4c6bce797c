package client

// The data model types.

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

func TestLayoutItemCommon(t *testing.T) {
	t.Parallel()
	var items []LayoutItem
	err := json.Unmarshal([]byte(`[{"id":"a","common":true,"options":{"readOnlyExpressionRule":{"and":[{"attribute":"x","op":"isSet"}]}}},
	  {"id":"b","common":null},{"id":"c","subitems":[{"id":"d","common":true}]}]`), &items)
	if err != nil {
		t.Fatal(err)
	}
	if !items[0].Common || items[1].Common || items[2].Common || !items[2].Subitems[0].Common {
		t.Errorf("common flags: %+v", items)
	}
	if string(items[0].Options["readOnlyExpressionRule"]) != `{"and":[{"attribute":"x","op":"isSet"}]}` {
		t.Errorf("options: %s", items[0].Options["readOnlyExpressionRule"])
	}
}

func TestEmulatorDataModels(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c := env.client()
	ctx := env.ctx

	systems, err := c.Systems(ctx)
	if err != nil || len(systems) != 2 {
		t.Fatalf("systems %v %v", systems, err)
	}
	pam, err := c.SystemModel(ctx, "interplay-pam", "pam-1", true, "")
	if err != nil {
		t.Fatal(err)
	}
	if pam.Base != (SystemBase{"interplay-pam", "pam-1"}) || len(pam.AssetTypes) != 10 || len(pam.TimeBased) != 6 || len(pam.Attributes.Common) == 0 {
		t.Errorf("pam model: base %+v, %d asset types, %d layers, %d common", pam.Base, len(pam.AssetTypes), len(pam.TimeBased), len(pam.Attributes.Common))
	}
	for _, l := range pam.TimeBased {
		if !l.Ranged || !l.Gaps || !l.Overlap || len(l.Attributes) < 2 {
			t.Errorf("layer %+v", l)
		}
	}
	for _, a := range pam.Attributes.Common {
		if a.ID == "" || a.Type.BaseType == "" || len(a.AppliesTo) == 0 || len(a.Raw) == 0 {
			t.Errorf("attribute %+v", a)
		}
	}
	if pamNoTB, err := c.SystemModel(ctx, "interplay-pam", "pam-1", false, "fr"); err != nil || len(pamNoTB.TimeBased) != 0 {
		t.Errorf("without time-based: %v", err)
	}
	mam, err := c.SystemModel(ctx, "interplay-mam", "mam-1", true, "")
	if err != nil || len(mam.TimeBased) != 0 || len(mam.Attributes.Custom) == 0 {
		t.Errorf("mam model %v", err)
	}
	if _, err := c.SystemModel(ctx, "interplay-pam", "nope", false, ""); !IsNotFound(err) {
		t.Errorf("unknown system: %v", err)
	}

	clip, err := c.AssetModelByID(ctx, "interplay-pam", "pam-1", "clip-1", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(clip.Layout.AttributeGroupLayout) == 0 || len(clip.Layout.SimpleTimeBasedLayout) == 0 || len(clip.Layout.VirtualLayersLayout) != 2 {
		t.Errorf("clip layout %+v", clip.Layout)
	}
	expressions := 0
	for _, g := range clip.Layout.AttributeGroupLayout {
		for _, it := range g.Items {
			if _, ok := it.Options["visibilityExpressionRule"]; ok {
				expressions++
			}
			if _, ok := it.Options["readOnlyExpressionRule"]; ok {
				expressions++
			}
		}
	}
	if expressions == 0 {
		t.Error("no layout expressions")
	}
	if _, err := c.AssetModelByType(ctx, "interplay-pam", "pam-1", "sequence", "de"); err != nil {
		t.Errorf("by type: %v", err)
	}
	if _, err := c.AssetModelByID(ctx, "interplay-pam", "pam-1", "nope", ""); !IsNotFound(err) {
		t.Errorf("unknown asset: %v", err)
	}
	mamAsset, err := c.AssetModelByID(ctx, "interplay-mam", "mam-1", "asset-1", "")
	if err != nil {
		t.Fatal(err)
	}
	restricted := false
	var walk func(items []LayoutItem)
	walk = func(items []LayoutItem) {
		for _, it := range items {
			if _, ok := it.Options["restrictions"]; ok {
				restricted = true
			}
			walk(it.Subitems)
		}
	}
	for _, g := range mamAsset.Layout.AttributeGroupLayout {
		walk(g.Items)
	}
	if !restricted {
		t.Error("no row restrictions in the mam layout")
	}

	// A regular user sees readonly flags that the administrator does not.
	viewer := env.client(func(c *Config) { c.Username, c.Password = emulatortest.ViewerUsername, emulatortest.ViewerPassword })
	vm, err := viewer.AssetModelByID(ctx, "interplay-pam", "pam-1", "clip-1", "")
	if err != nil {
		t.Fatal(err)
	}
	if countReadonly(vm.Attributes) <= countReadonly(clip.Attributes) {
		t.Errorf("readonly flags: viewer %d, admin %d", countReadonly(vm.Attributes), countReadonly(clip.Attributes))
	}
}

func countReadonly(set AttributeSet) int {
	n := 0
	for _, a := range append(append([]Attribute{}, set.Common...), set.Custom...) {
		for _, f := range a.Flags {
			if f == "readonly" {
				n++
			}
		}
	}
	return n
}

// TestSystemModelGoneNeedsTheRegistry (contract §0): a 404 or 410 for the model of a
// system the service registry lists is not "no such system": something in front of
// the platform lacks the route, and the error is an address error. A system the
// registry does not list is gone.
func TestSystemModelGoneNeedsTheRegistry(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusNotFound, http.StatusGone} {
		p := newProxiedPlatform(t, emulator.Options{})
		p.proxy.Add(faultproxy.Fault{Method: http.MethodGet, Path: `^/apis/datamodel;version=1;realm=global/systems/`,
			Handle: func(w http.ResponseWriter, _ *http.Request) {
				writeProblem(w, status, "datamodel/NOT_FOUND", "no such resource")
			}})
		c, err := New(p.config())
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.SystemModel(t.Context(), "interplay-pam", "pam-1", false, "")
		if IsNotFound(err) || !IsAddressError(err) || !strings.Contains(err.Error(), "lists system interplay-pam/pam-1") {
			t.Errorf("%d for a listed system: IsNotFound %t, IsAddressError %t: %v", status, IsNotFound(err), IsAddressError(err), err)
		}
		if _, err := c.SystemModel(t.Context(), "interplay-pam", "pam-9", false, ""); !IsNotFound(err) {
			t.Errorf("%d for a system the registry does not list: %v", status, err)
		}
		_ = c.Close(context.Background())
	}
}
