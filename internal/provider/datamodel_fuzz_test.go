package provider

// The fuzz target of datamodel.go: a data model as the platform answers it, decoded by
// the client's types and converted into the data sources' values (layouts, options,
// row restrictions, layers, attributes).

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/fuzzlimit"
)

// FuzzModelConversion fuzzes a data model answer through the conversions of
// mediaplatform_asset_model and mediaplatform_system_model: no panic, no call over a
// second, and every JSON text shown (options, expressions) is normalized JSON.
func FuzzModelConversion(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("..", "emulator", "fixtures", "*.json"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no data model fixtures: %v", err)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		`{"layout": {"attributeGroupLayout": [{"id": "g", "items": [{"id": "a", "options": {"restrictions": {"noCreateRows": "yes"}}}]}]}}`,
		`{"layout": {"attributeGroupLayout": [{"items": [{"options": {"readOnlyExpressionRule": {"and": [` + "1e999999" + `]}}}]}]}}`,
		`{"layout": {"attributeGroupLayout": [{"items": [{"options": {"restrictions": null, "x": "\ud800"}}]}]}}`,
		`{"attributes": {"common": [null, {"id": "a", "labels": {"": ""}}]}, "time-based": [{"attributes": null}]}`,
		`{"layout": null}`, `[]`, `{"layout": {"attributeGroupLayout": {"id": "g"}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var asset client.AssetModel
		var sys client.SystemModel
		assetErr, sysErr := json.Unmarshal(body, &asset), json.Unmarshal(body, &sys)
		start := time.Now()
		if assetErr == nil {
			if layout, err := newLayout(asset.Layout); err == nil && layout != nil {
				_ = layout
			}
			_ = newAttributeSet(asset.Attributes, newAssetAttribute)
			_ = convertAll(asset.TimeBased, newLayer(newAssetSubattribute))
		}
		if sysErr == nil {
			_ = newAttributeSet(sys.Attributes, newSystemAttribute)
			_ = convertAll(sys.TimeBased, newLayer(newAttributeCore))
		}
		if d := time.Since(start); d > fuzzlimit.Limit() {
			t.Fatalf("converting the model took %v", d)
		}
	})
}
