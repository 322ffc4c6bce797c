package provider

// Helpers shared by the tests of the model data sources: the emulator's fixtures
// decoded on their own (not through the client, so that the tests check the
// conversion instead of repeating it) and turned into knownvalue checks of every
// value, plus unit tests of the shared conversion helpers.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"
)

// Fixture shapes. Pointers keep "missing" apart from zero values.
type (
	fxAttribute struct {
		ID          string            `json:"id"`
		AppliesTo   []string          `json:"appliesTo"`
		Description *string           `json:"description"`
		Flags       []string          `json:"flags"`
		Labels      map[string]string `json:"labels"`
		Tooltips    map[string]string `json:"tooltips"`
		Type        struct {
			BaseType   string  `json:"baseType"`
			MaxLength  *int64  `json:"maxLength"`
			MultiValue *bool   `json:"multiValue"`
			ListType   *string `json:"listType"`
		} `json:"type"`
		Subattributes []fxAttribute `json:"subattributes"`
		Options       *struct {
			Mandatory bool `json:"mandatory"`
			Readonly  bool `json:"readonly"`
		} `json:"options"`
	}
	fxAttributeSet struct {
		Common []fxAttribute `json:"common"`
		Custom []fxAttribute `json:"custom"`
	}
	fxLayer struct {
		ID          string            `json:"id"`
		Description *string           `json:"description"`
		Labels      map[string]string `json:"labels"`
		Tooltips    map[string]string `json:"tooltips"`
		Ranged      bool              `json:"ranged"`
		Gaps        bool              `json:"gaps"`
		Overlap     bool              `json:"overlap"`
		Flags       []string          `json:"flags"`
		Attributes  []fxAttribute     `json:"attributes"`
	}
	fxSystemModel struct {
		Base struct {
			SystemType string `json:"systemType"`
			SystemID   string `json:"systemID"`
		} `json:"base"`
		Attributes fxAttributeSet `json:"attributes"`
		AssetTypes []struct {
			ID     string            `json:"id"`
			Labels map[string]string `json:"labels"`
		} `json:"asset-types"`
		TimeBased []fxLayer `json:"time-based"`
	}
	fxItem struct {
		ID       string                     `json:"id"`
		Common   *bool                      `json:"common"`
		Flags    []string                   `json:"flags"`
		Options  map[string]json.RawMessage `json:"options"`
		Subitems []fxItem                   `json:"subitems"`
	}
	fxAssetModel struct {
		Attributes fxAttributeSet `json:"attributes"`
		TimeBased  []fxLayer      `json:"time-based"`
		Layout     struct {
			AttributeGroupLayout []struct {
				ID       string            `json:"id"`
				Labels   map[string]string `json:"labels"`
				Tooltips map[string]string `json:"tooltips"`
				Items    []fxItem          `json:"items"`
			} `json:"attributeGroupLayout"`
			SimpleTimeBasedLayout []struct {
				ID    string   `json:"id"`
				Items []fxItem `json:"items"`
			} `json:"simpleTimeBasedLayout"`
			VirtualLayersLayout []struct {
				ID       string   `json:"id"`
				LayerIDs []string `json:"layerids"`
			} `json:"virtualLayersLayout"`
		} `json:"layout"`
	}
)

// mustFixture decodes a fixture accessor's result, failing the test when there is none.
func mustFixture[T any](t *testing.T, raw []byte, ok bool) (T, []byte) {
	t.Helper()
	var v T
	if !ok {
		t.Fatal("the emulator has no such fixture")
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("decoding the fixture: %v", err)
	}
	return v, raw
}

func systemModelFixture(t *testing.T, systemType, systemID string) (fxSystemModel, []byte) {
	t.Helper()
	raw, ok := emulator.SystemModelFixture(systemType, systemID)
	return mustFixture[fxSystemModel](t, raw, ok)
}

// Knownvalue builders.

func kvStrings(s []string) knownvalue.Check {
	checks := make([]knownvalue.Check, 0, len(s))
	for _, v := range s {
		checks = append(checks, knownvalue.StringExact(v))
	}
	return knownvalue.ListExact(checks)
}

func kvStringMap(m map[string]string) knownvalue.Check {
	checks := make(map[string]knownvalue.Check, len(m))
	for k, v := range m {
		checks[k] = knownvalue.StringExact(v)
	}
	return knownvalue.MapExact(checks)
}

func kvOptionalString(p *string) knownvalue.Check {
	if p == nil {
		return knownvalue.Null()
	}
	return knownvalue.StringExact(*p)
}

func kvList[T any](items []T, check func(T) knownvalue.Check) knownvalue.Check {
	checks := make([]knownvalue.Check, 0, len(items))
	for _, it := range items {
		checks = append(checks, check(it))
	}
	return knownvalue.ListExact(checks)
}

// kvAttribute checks every field of an attribute description of the given kind.
func kvAttribute(kind attributeKind) func(fxAttribute) knownvalue.Check {
	return func(a fxAttribute) knownvalue.Check {
		var maxLength knownvalue.Check = knownvalue.Null()
		multiValue := false
		if a.Type.MaxLength != nil {
			maxLength = knownvalue.Int64Exact(*a.Type.MaxLength)
		}
		if a.Type.MultiValue != nil {
			multiValue = *a.Type.MultiValue
		}
		fields := map[string]knownvalue.Check{
			"id":          knownvalue.StringExact(a.ID),
			"description": kvOptionalString(a.Description),
			"flags":       kvStrings(a.Flags),
			"labels":      kvStringMap(a.Labels),
			"tooltips":    kvStringMap(a.Tooltips),
			"type": knownvalue.ObjectExact(map[string]knownvalue.Check{
				"base_type":   knownvalue.StringExact(a.Type.BaseType),
				"max_length":  maxLength,
				"multi_value": knownvalue.Bool(multiValue),
				"list_type":   kvOptionalString(a.Type.ListType),
			}),
		}
		switch kind {
		case systemAttribute:
			fields["applies_to"] = kvStrings(a.AppliesTo)
		case assetSubattribute, assetAttribute:
			fields["options"] = knownvalue.Null()
			if a.Options != nil {
				fields["options"] = knownvalue.ObjectExact(map[string]knownvalue.Check{
					"mandatory": knownvalue.Bool(a.Options.Mandatory),
					"readonly":  knownvalue.Bool(a.Options.Readonly),
				})
			}
		}
		if kind == assetAttribute {
			fields["subattributes"] = kvList(a.Subattributes, kvAttribute(assetSubattribute))
		}
		return knownvalue.ObjectExact(fields)
	}
}

func kvAttributeSet(s fxAttributeSet, kind attributeKind) knownvalue.Check {
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"common": kvList(s.Common, kvAttribute(kind)),
		"custom": kvList(s.Custom, kvAttribute(kind)),
	})
}

func kvLayers(layers []fxLayer, kind attributeKind) knownvalue.Check {
	return kvList(layers, func(l fxLayer) knownvalue.Check {
		return knownvalue.ObjectExact(map[string]knownvalue.Check{
			"id":          knownvalue.StringExact(l.ID),
			"description": kvOptionalString(l.Description),
			"labels":      kvStringMap(l.Labels),
			"tooltips":    kvStringMap(l.Tooltips),
			"ranged":      knownvalue.Bool(l.Ranged),
			"gaps":        knownvalue.Bool(l.Gaps),
			"overlap":     knownvalue.Bool(l.Overlap),
			"flags":       kvStrings(l.Flags),
			"attributes":  kvList(l.Attributes, kvAttribute(kind)),
		})
	})
}

// kvJSONText is the normalized JSON text of raw (nil: null), computed in the way
// the tests expect: keys sorted, compact, no HTML escaping.
func kvJSONText(t *testing.T, raw json.RawMessage) knownvalue.Check {
	t.Helper()
	if len(raw) == 0 || string(raw) == "null" {
		return knownvalue.Null()
	}
	return knownvalue.StringExact(testNormalizedJSON(t, raw))
}

func testNormalizedJSON(t *testing.T, raw []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(buf.String())
}

// kvLayoutItem checks every field of an attribute group item (withSubitems) or of
// a subitem.
func kvLayoutItem(t *testing.T, withSubitems bool) func(fxItem) knownvalue.Check {
	return func(it fxItem) knownvalue.Check {
		t.Helper()
		var defaultValue knownvalue.Check = knownvalue.Null()
		if raw := it.Options["defaultValue"]; len(raw) > 0 {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				t.Fatalf("the tests expect string defaultValues, got %s", raw)
			}
			defaultValue = knownvalue.StringExact(s)
		}
		var restrictions knownvalue.Check = knownvalue.Null()
		if raw := it.Options["restrictions"]; len(raw) > 0 {
			var r map[string]json.RawMessage
			if err := json.Unmarshal(raw, &r); err != nil {
				t.Fatal(err)
			}
			flag := func(name string) knownvalue.Check {
				return knownvalue.Bool(string(r[name]) == "true")
			}
			restrictions = knownvalue.ObjectExact(map[string]knownvalue.Check{
				"no_create_rows":            flag("noCreateRows"),
				"no_create_rows_expression": kvJSONText(t, r["noCreateRowsExpression"]),
				"no_delete_rows":            flag("noDeleteRows"),
				"no_delete_rows_expression": kvJSONText(t, r["noDeleteRowsExpression"]),
				"no_move_rows":              flag("noMoveRows"),
				"no_move_rows_expression":   kvJSONText(t, r["noMoveRowsExpression"]),
			})
		}
		var optionsJSON knownvalue.Check = knownvalue.StringExact("{}")
		if it.Options != nil {
			raw, _ := json.Marshal(it.Options)
			optionsJSON = knownvalue.StringExact(testNormalizedJSON(t, raw))
		}
		fields := map[string]knownvalue.Check{
			"id":     knownvalue.StringExact(it.ID),
			"common": knownvalue.Bool(it.Common != nil && *it.Common),
			"flags":  kvStrings(it.Flags),
			"options": knownvalue.ObjectExact(map[string]knownvalue.Check{
				"default":                    kvJSONText(t, it.Options["default"]),
				"default_value":              defaultValue,
				"restrictions":               restrictions,
				"read_only_expression_rule":  kvJSONText(t, it.Options["readOnlyExpressionRule"]),
				"visibility_expression_rule": kvJSONText(t, it.Options["visibilityExpressionRule"]),
			}),
			"options_json": optionsJSON,
		}
		if withSubitems {
			fields["subitems"] = kvList(it.Subitems, kvLayoutItem(t, false))
		}
		return knownvalue.ObjectExact(fields)
	}
}

// kvLayout checks every value of the three layouts of an asset-model fixture.
func kvLayout(t *testing.T, m fxAssetModel) knownvalue.Check {
	t.Helper()
	l := m.Layout
	groups := make([]knownvalue.Check, 0, len(l.AttributeGroupLayout))
	for _, g := range l.AttributeGroupLayout {
		groups = append(groups, knownvalue.ObjectExact(map[string]knownvalue.Check{
			"id":       knownvalue.StringExact(g.ID),
			"labels":   kvStringMap(g.Labels),
			"tooltips": kvStringMap(g.Tooltips),
			"items":    kvList(g.Items, kvLayoutItem(t, true)),
		}))
	}
	layers := make([]knownvalue.Check, 0, len(l.SimpleTimeBasedLayout))
	for _, ll := range l.SimpleTimeBasedLayout {
		layers = append(layers, knownvalue.ObjectExact(map[string]knownvalue.Check{
			"id": knownvalue.StringExact(ll.ID),
			"items": kvList(ll.Items, func(it fxItem) knownvalue.Check {
				optionsJSON := "{}"
				if it.Options != nil {
					raw, _ := json.Marshal(it.Options)
					optionsJSON = testNormalizedJSON(t, raw)
				}
				return knownvalue.ObjectExact(map[string]knownvalue.Check{
					"id":           knownvalue.StringExact(it.ID),
					"flags":        kvStrings(it.Flags),
					"options_json": knownvalue.StringExact(optionsJSON),
				})
			}),
		}))
	}
	virtual := make([]knownvalue.Check, 0, len(l.VirtualLayersLayout))
	for _, v := range l.VirtualLayersLayout {
		virtual = append(virtual, knownvalue.ObjectExact(map[string]knownvalue.Check{
			"id":        knownvalue.StringExact(v.ID),
			"layer_ids": kvStrings(v.LayerIDs),
		}))
	}
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"attribute_groups":  knownvalue.ListExact(groups),
		"simple_time_based": knownvalue.ListExact(layers),
		"virtual_layers":    knownvalue.ListExact(virtual),
	})
}

// kvModelJSON checks that a `json` attribute is normalized JSON text holding the
// whole response: the fixture without the keys in drop, plus `_links` (which carry
// the emulator's address and are not compared).
func kvModelJSON(fixture []byte, drop ...string) knownvalue.Check {
	return knownvalue.StringFunc(func(got string) error {
		var gotValue, wantValue map[string]any
		if err := json.Unmarshal([]byte(got), &gotValue); err != nil {
			return fmt.Errorf("json is not a JSON object: %w", err)
		}
		if err := json.Unmarshal(fixture, &wantValue); err != nil {
			return err
		}
		if _, ok := gotValue["_links"]; !ok {
			return fmt.Errorf("json lacks the response's _links: %s", got)
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(gotValue)
		if normalized := strings.TrimSpace(buf.String()); normalized != got {
			return fmt.Errorf("json is not normalized:\n got %s\nwant %s", got, normalized)
		}
		delete(gotValue, "_links")
		for _, k := range drop {
			delete(wantValue, k)
		}
		if !reflect.DeepEqual(gotValue, wantValue) {
			return fmt.Errorf("json differs from the fixture:\n got %v\nwant %v", gotValue, wantValue)
		}
		return nil
	})
}

// viewerProviderConfig is a provider block for the emulator's platform user without
// the administrator role, who sees every attribute readonly. The test must have
// called control: an external platform has no such account.
func viewerProviderConfig(e *testEmulator) string {
	return fmt.Sprintf(`
provider "mediaplatform" {
  platform_url  = %q
  client_id     = %q
  client_secret = %q
  username      = %q
  password      = %q
}
`, e.platformURL(), emulatortest.ClientID, emulatortest.ClientSecret, emulatortest.ViewerUsername, emulatortest.ViewerPassword)
}

func TestDataSourceAssetModel_rowRestrictionsDefaults(t *testing.T) {
	t.Parallel()
	r, err := newRowRestrictions(json.RawMessage(`{"noDeleteRowsExpression": {"op": "isSet", "attribute": "x"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.NoCreateRows.ValueBool() || r.NoDeleteRows.ValueBool() || r.NoMoveRows.ValueBool() ||
		r.NoCreateRows.IsNull() || !r.NoCreateRowsExpression.IsNull() ||
		r.NoDeleteRowsExpression.ValueString() != `{"attribute":"x","op":"isSet"}` {
		t.Errorf("restrictions: %+v", r)
	}
	if r, err := newRowRestrictions(json.RawMessage(`null`)); r != nil || err != nil {
		t.Errorf("null restrictions: %+v, %v", r, err)
	}
	if _, err := newRowRestrictions(json.RawMessage(`{"noCreateRows": "yes"}`)); err == nil ||
		!strings.Contains(err.Error(), "noCreateRows") {
		t.Errorf("a non-boolean noCreateRows: error %v", err)
	}
}
