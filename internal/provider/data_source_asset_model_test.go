package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// kvAssetModel checks every modelled value of an asset model against its fixture.
func kvAssetModel(t *testing.T, address string, raw []byte, ok bool) []statecheck.StateCheck {
	t.Helper()
	fx, raw := mustFixture[fxAssetModel](t, raw, ok)
	return []statecheck.StateCheck{
		statecheck.ExpectKnownValue(address, tfjsonpath.New("attributes"), kvAttributeSet(fx.Attributes, assetAttribute)),
		statecheck.ExpectKnownValue(address, tfjsonpath.New("time_based"), kvLayers(fx.TimeBased, assetSubattribute)),
		statecheck.ExpectKnownValue(address, tfjsonpath.New("layout"), kvLayout(t, fx)),
		statecheck.ExpectKnownValue(address, tfjsonpath.New("json"), kvModelJSON(raw)),
	}
}

// assetModelConfig is a mediaplatform_asset_model block named name; selector is the
// asset_id or asset_type line.
func assetModelConfig(name, systemType, systemID, selector string) string {
	return fmt.Sprintf(`
data "mediaplatform_asset_model" %q {
  system_type = %q
  system_id   = %q
  %s
}
`, name, systemType, systemID, selector)
}

// Paths into the pam-1 asset models (the fixture's order).
var (
	groupItem = func(group, item int) tfjsonpath.Path {
		return tfjsonpath.New("layout").AtMapKey("attribute_groups").AtSliceIndex(group).AtMapKey("items").AtSliceIndex(item)
	}
	customAttribute = func(i int) tfjsonpath.Path {
		return tfjsonpath.New("attributes").AtMapKey("custom").AtSliceIndex(i)
	}
	commonAttribute = func(i int) tfjsonpath.Path {
		return tfjsonpath.New("attributes").AtMapKey("common").AtSliceIndex(i)
	}
)

func kvOptions(mandatory, readonly bool) knownvalue.Check {
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"mandatory": knownvalue.Bool(mandatory),
		"readonly":  knownvalue.Bool(readonly),
	})
}

func TestDataSourceAssetModel_byID(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	const address = "data.mediaplatform_asset_model.clip"
	raw, ok := emulator.AssetModelFixture("interplay-pam", "pam-1", "clip-1", true)

	checks := append(kvAssetModel(t, address, raw, ok),
		statecheck.ExpectKnownValue(address, tfjsonpath.New("time_based"), knownvalue.ListSizeExact(6)),
		// Only attributes that apply to assets: storageLocation (loc:item only) is left out.
		statecheck.ExpectKnownValue(address, tfjsonpath.New("attributes").AtMapKey("custom"), knownvalue.ListSizeExact(12)),
		// A masterclip's tapeName is editable for an administrator.
		statecheck.ExpectKnownValue(address, customAttribute(0), knownvalue.ObjectPartial(map[string]knownvalue.Check{
			"id":      knownvalue.StringExact("tapeName"),
			"flags":   kvStrings([]string{"indexed"}),
			"options": kvOptions(false, false),
		})),
		// credits is compound: its parts are one level of subattributes.
		statecheck.ExpectKnownValue(address, customAttribute(6), knownvalue.ObjectPartial(map[string]knownvalue.Check{
			"id": knownvalue.StringExact("credits"),
			"subattributes": knownvalue.ListExact([]knownvalue.Check{
				knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"id": knownvalue.StringExact("role"), "flags": kvStrings([]string{"mandatory"}),
					"options": kvOptions(true, false),
					"type": knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"base_type": knownvalue.StringExact("list"), "list_type": knownvalue.StringExact("creditRoles"),
					}),
				}),
				knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"id": knownvalue.StringExact("person"), "flags": knownvalue.ListSizeExact(0),
					"options": kvOptions(false, false),
					"type": knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"base_type": knownvalue.StringExact("string"), "max_length": knownvalue.Int64Exact(128),
					}),
				}),
			}),
		})),
		statecheck.ExpectKnownValue(address, customAttribute(0).AtMapKey("subattributes"), knownvalue.ListSizeExact(0)),
		// Items: a default, an explicit false common, a null common, flags.
		statecheck.ExpectKnownValue(address, groupItem(0, 0), knownvalue.ObjectPartial(map[string]knownvalue.Check{
			"id": knownvalue.StringExact("name"), "common": knownvalue.Bool(true),
			"options": knownvalue.ObjectExact(map[string]knownvalue.Check{
				"default":                    knownvalue.StringExact(`{"value":"Untitled"}`),
				"default_value":              knownvalue.Null(),
				"restrictions":               knownvalue.Null(),
				"read_only_expression_rule":  knownvalue.Null(),
				"visibility_expression_rule": knownvalue.Null(),
			}),
			"options_json": knownvalue.StringExact(`{"default":{"value":"Untitled"}}`),
			"subitems":     knownvalue.ListSizeExact(0),
		})),
		statecheck.ExpectKnownValue(address, groupItem(0, 1).AtMapKey("flags"), kvStrings([]string{"multiline"})),
		statecheck.ExpectKnownValue(address, groupItem(0, 3).AtMapKey("common"), knownvalue.Bool(false)),
		statecheck.ExpectKnownValue(address, groupItem(0, 4), knownvalue.ObjectPartial(map[string]knownvalue.Check{
			"id": knownvalue.StringExact("category"), "common": knownvalue.Bool(false),
			"options":      knownvalue.ObjectPartial(map[string]knownvalue.Check{"default_value": knownvalue.StringExact("news")}),
			"options_json": knownvalue.StringExact(`{"defaultValue":"news"}`),
		})),
		statecheck.ExpectKnownValue(address, groupItem(0, 5).AtMapKey("options_json"), knownvalue.StringExact("{}")),
		// Expressions as normalized JSON text: keys sorted, no white space, null kept.
		statecheck.ExpectKnownValue(address, groupItem(1, 1).AtMapKey("options").AtMapKey("visibility_expression_rule"),
			knownvalue.StringExact(`{"attribute":"status","op":"in","values":["scheduled","aired"]}`)),
		statecheck.ExpectKnownValue(address, groupItem(1, 2).AtMapKey("options").AtMapKey("read_only_expression_rule"),
			knownvalue.StringExact(`{"and":[{"attribute":"status","op":"equals","value":"aired"},{"attribute":"airDate","op":"isSet"}]}`)),
		statecheck.ExpectKnownValue(address, groupItem(1, 4).AtMapKey("options").AtMapKey("visibility_expression_rule"),
			knownvalue.StringExact(`{"or":[{"attribute":"category","op":"equals","value":null},{"attribute":"category","op":"in","values":["news","documentary"]}]}`)),
		// Subitems of the compound credits item.
		statecheck.ExpectKnownValue(address, groupItem(2, 0).AtMapKey("subitems"), knownvalue.ListExact([]knownvalue.Check{
			knownvalue.ObjectPartial(map[string]knownvalue.Check{
				"id":           knownvalue.StringExact("role"),
				"options_json": knownvalue.StringExact(`{"defaultValue":"editor"}`),
			}),
			knownvalue.ObjectPartial(map[string]knownvalue.Check{
				"id": knownvalue.StringExact("person"),
				"options": knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"visibility_expression_rule": knownvalue.StringExact(`{"attribute":"role","op":"isSet"}`),
				}),
			}),
		})),
		// The simple time-based layout and the virtual layers.
		statecheck.ExpectKnownValue(address, tfjsonpath.New("layout").AtMapKey("simple_time_based").AtSliceIndex(0),
			knownvalue.ObjectExact(map[string]knownvalue.Check{
				"id": knownvalue.StringExact("V1"),
				"items": knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectExact(map[string]knownvalue.Check{
						"id": knownvalue.StringExact("comment"), "flags": kvStrings([]string{"multiline"}),
						"options_json": knownvalue.StringExact("{}"),
					}),
					knownvalue.ObjectExact(map[string]knownvalue.Check{
						"id": knownvalue.StringExact("color"), "flags": knownvalue.ListSizeExact(0),
						"options_json": knownvalue.StringExact(`{"defaultValue":"red"}`),
					}),
				}),
			})),
		statecheck.ExpectKnownValue(address, tfjsonpath.New("layout").AtMapKey("simple_time_based").AtSliceIndex(5).
			AtMapKey("items").AtSliceIndex(1).AtMapKey("options_json"), knownvalue.StringExact(`{"default":{"value":"yellow"}}`)),
		statecheck.ExpectKnownValue(address, tfjsonpath.New("layout").AtMapKey("virtual_layers"), knownvalue.ListExact([]knownvalue.Check{
			knownvalue.ObjectExact(map[string]knownvalue.Check{
				"id": knownvalue.StringExact("markers"), "layer_ids": kvStrings([]string{"V1", "V2", "A1", "A2", "D1"}),
			}),
			knownvalue.ObjectExact(map[string]knownvalue.Check{
				"id": knownvalue.StringExact("restrictions"), "layer_ids": kvStrings([]string{"restrictions"}),
			}),
		})),
	)

	expectRead(t, emu.providerConfig()+assetModelConfig("clip", "interplay-pam", "pam-1", `asset_id = "clip-1"`),
		checks...)
}

func TestAccDataSourceAssetModel_byType(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	const address = "data.mediaplatform_asset_model.sequence"
	raw, ok := emulator.AssetTypeModelFixture("interplay-pam", "pam-1", "sequence", true)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: emu.providerConfig() + assetModelConfig("sequence", "interplay-pam", "pam-1", `asset_type = "sequence"`) + `
output "group_ids" {
  value = [for g in data.mediaplatform_asset_model.sequence.layout.attribute_groups : g.id]
}
`,
			ConfigStateChecks: append(kvAssetModel(t, address, raw, ok),
				// Sequences cannot edit tapeName, although the system model lets them.
				statecheck.ExpectKnownValue(address, customAttribute(0), knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"id":      knownvalue.StringExact("tapeName"),
					"flags":   kvStrings([]string{"indexed", "readonly"}),
					"options": kvOptions(false, true),
				})),
				statecheck.ExpectKnownValue(address, tfjsonpath.New("asset_id"), knownvalue.Null()),
				statecheck.ExpectKnownValue(address, tfjsonpath.New("time_based"), knownvalue.ListSizeExact(6)),
				statecheck.ExpectKnownOutputValue("group_ids", kvStrings([]string{"general", "production", "credits", "technical"})),
			),
		}},
	})
}

// TestDataSourceAssetModel_mamRowRestrictions reads the asset management
// system's row restrictions: booleans, expressions, and false for a boolean left out.
func TestDataSourceAssetModel_mamRowRestrictions(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	const address = "data.mediaplatform_asset_model.asset"
	raw, ok := emulator.AssetModelFixture("interplay-mam", "mam-1", "asset-1", true)
	restrictions := func(group, item int) tfjsonpath.Path {
		return groupItem(group, item).AtMapKey("options").AtMapKey("restrictions")
	}
	expectRead(t, emu.providerConfig()+assetModelConfig("asset", "interplay-mam", "mam-1", `asset_id = "asset-1"`),
		append(kvAssetModel(t, address, raw, ok),
			statecheck.ExpectKnownValue(address, groupItem(1, 3).AtMapKey("id"), knownvalue.StringExact("languages")),
			statecheck.ExpectKnownValue(address, restrictions(1, 3), knownvalue.ObjectExact(map[string]knownvalue.Check{
				"no_create_rows":            knownvalue.Bool(true),
				"no_create_rows_expression": knownvalue.Null(),
				"no_delete_rows":            knownvalue.Bool(false),
				"no_delete_rows_expression": knownvalue.StringExact(`{"attribute":"approvalStatus","op":"in","values":["approved","locked"]}`),
				"no_move_rows":              knownvalue.Bool(true),
				"no_move_rows_expression":   knownvalue.Null(),
			})),
			statecheck.ExpectKnownValue(address, groupItem(2, 0).AtMapKey("id"), knownvalue.StringExact("rights")),
			statecheck.ExpectKnownValue(address, restrictions(2, 0), knownvalue.ObjectExact(map[string]knownvalue.Check{
				"no_create_rows": knownvalue.Bool(false),
				"no_create_rows_expression": knownvalue.StringExact(`{"or":[{"attribute":"approvalStatus","op":"equals","value":"locked"},` +
					`{"and":[{"attribute":"region","op":"isSet"},{"attribute":"genre","op":"in","values":["sports","news"]}]}]}`),
				"no_delete_rows":            knownvalue.Bool(true),
				"no_delete_rows_expression": knownvalue.Null(),
				"no_move_rows":              knownvalue.Bool(false),
				"no_move_rows_expression":   knownvalue.StringExact(`{"attribute":"approvalStatus","op":"equals","value":"approved"}`),
			})),
			statecheck.ExpectKnownValue(address, groupItem(2, 0).AtMapKey("options").AtMapKey("read_only_expression_rule"),
				knownvalue.StringExact(`{"attribute":"approvalStatus","op":"equals","value":"locked"}`)),
			statecheck.ExpectKnownValue(address, restrictions(1, 0), knownvalue.Null()),
			// rights: compound with subattributes; an unknown flag passes through.
			statecheck.ExpectKnownValue(address, customAttribute(4).AtMapKey("subattributes"), knownvalue.ListSizeExact(3)),
			statecheck.ExpectKnownValue(address, customAttribute(2).AtMapKey("flags"), kvStrings([]string{"mandatory", "experimental"})),
			// No time-based metadata, and no layouts of those kinds.
			statecheck.ExpectKnownValue(address, tfjsonpath.New("time_based"), knownvalue.ListSizeExact(0)),
			statecheck.ExpectKnownValue(address, tfjsonpath.New("layout").AtMapKey("simple_time_based"), knownvalue.ListSizeExact(0)),
			statecheck.ExpectKnownValue(address, tfjsonpath.New("layout").AtMapKey("virtual_layers"), knownvalue.ListSizeExact(0)),
		)...)
}

// TestAccDataSourceAssetModel_viewerReadonly reads the model as a platform user
// without the administrator role, for whom every attribute is readonly.
func TestAccDataSourceAssetModel_viewerReadonly(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	emu.control(t, "the viewer account")
	const address = "data.mediaplatform_asset_model.clip"
	raw, ok := emulator.AssetModelFixture("interplay-pam", "pam-1", "clip-1", false)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: viewerProviderConfig(emu) + assetModelConfig("clip", "interplay-pam", "pam-1", `asset_id = "clip-1"`) + `
output "editable" {
  value = [
    for a in concat(data.mediaplatform_asset_model.clip.attributes.common, data.mediaplatform_asset_model.clip.attributes.custom) :
    a.id if !contains(a.flags, "readonly")
  ]
}
`,
			ConfigStateChecks: append(kvAssetModel(t, address, raw, ok),
				statecheck.ExpectKnownOutputValue("editable", knownvalue.ListSizeExact(0)),
				statecheck.ExpectKnownValue(address, commonAttribute(11), knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"id":      knownvalue.StringExact("name"),
					"flags":   kvStrings([]string{"mandatory", "indexed", "readonly"}),
					"options": kvOptions(true, true),
				})),
				statecheck.ExpectKnownValue(address, customAttribute(0), knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"id":      knownvalue.StringExact("tapeName"),
					"flags":   kvStrings([]string{"indexed", "readonly"}),
					"options": kvOptions(false, true),
				})),
				statecheck.ExpectKnownValue(address, customAttribute(6).AtMapKey("subattributes").AtSliceIndex(1).AtMapKey("options"),
					kvOptions(false, true)),
				statecheck.ExpectKnownValue(address, tfjsonpath.New("time_based").AtSliceIndex(3).AtMapKey("attributes").AtSliceIndex(0),
					knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"id":      knownvalue.StringExact("comment"),
						"flags":   kvStrings([]string{"indexed", "readonly"}),
						"options": kvOptions(false, true),
					})),
			),
		}},
	})
}

func TestDataSourceAssetModel_notFound(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	expectPlanError(t, emu.providerConfig()+assetModelConfig("m", "interplay-pam", "pam-9", `asset_id = "clip-1"`),
		errorPattern("Unable to read asset model",
			`The platform has no system of type "interplay-pam" with id "pam-9"`, "mediaplatform_systems", "NOT_FOUND"))
	expectPlanError(t, emu.providerConfig()+assetModelConfig("m", "interplay-pam", "pam-1", `asset_id = "clip-9"`),
		errorPattern("Unable to read asset model",
			`System interplay-pam/pam-1 has no asset "clip-9"`, "Check asset_id", "NOT_FOUND"))
	expectPlanError(t, emu.providerConfig()+assetModelConfig("m", "interplay-mam", "mam-1", `asset_type = "subclip"`),
		errorPattern("Unable to read asset model",
			`System interplay-mam/mam-1 has no asset type "subclip"`, "asset_types", "NOT_FOUND"))
}

func TestDataSourceAssetModel_validation(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	config := func(selector string) string {
		return emu.providerConfig() + assetModelConfig("m", "interplay-pam", "pam-1", selector)
	}
	testRejectedBeforeRequests(t, emu, config, []rejectedConfig{
		{"asset_id = \"clip-1\"\n  asset_type = \"sequence\"", []string{"Exactly one of these attributes must be configured", "asset_id", "asset_type"}},
		{"", []string{"Exactly one of these attributes must be configured", "asset_id", "asset_type"}},
		{"asset_id = \"clip-1\"\n  lang = \"not a language\"", []string{"lang", "BCP 47 language tag"}},
	})
}

// TestAccDataSourceAssetModel_functions feeds the data sources' values to the
// provider functions: a layout expression to evaluate_expression and a labels map
// to localized_label.
func TestAccDataSourceAssetModel_functions(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		Steps: []resource.TestStep{{
			Config: emu.providerConfig() +
				assetModelConfig("clip", "interplay-pam", "pam-1", `asset_id = "clip-1"`) +
				assetModelConfig("asset", "interplay-mam", "mam-1", `asset_id = "asset-1"`) + `
data "mediaplatform_system_model" "pam" {
  system_type = "interplay-pam"
  system_id   = "pam-1"
}

locals {
  items         = flatten(data.mediaplatform_asset_model.clip.layout.attribute_groups[*].items)
  rating_rule   = one([for i in local.items : i.options.read_only_expression_rule if i.id == "rating"])
  mam_items     = flatten(data.mediaplatform_asset_model.asset.layout.attribute_groups[*].items)
  no_delete     = one([for i in local.mam_items : i.options.restrictions.no_delete_rows_expression if i.id == "languages"])
  tape          = one([for a in data.mediaplatform_system_model.pam.attributes.custom : a if a.id == "tapeName"])
}

output "rating_readonly_when_aired" {
  value = provider::mediaplatform::evaluate_expression(local.rating_rule, { status = "aired", airDate = "2026-05-01" })
}
output "rating_readonly_when_draft" {
  value = provider::mediaplatform::evaluate_expression(local.rating_rule, { status = "draft" })
}
output "languages_no_delete_when_locked" {
  value = provider::mediaplatform::evaluate_expression(local.no_delete, { approvalStatus = "locked" })
}
output "languages_no_delete_when_pending" {
  value = provider::mediaplatform::evaluate_expression(local.no_delete, null)
}
output "tape_label_fr_ca" {
  value = provider::mediaplatform::localized_label(local.tape.labels, "fr-CA", local.tape.id)
}
output "tape_label_fr_be" {
  value = provider::mediaplatform::localized_label(local.tape.labels, "fr-BE", local.tape.id)
}
output "tape_label_de" {
  value = provider::mediaplatform::localized_label(local.tape.labels, "de", local.tape.id)
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("rating_readonly_when_aired", knownvalue.Bool(true)),
				statecheck.ExpectKnownOutputValue("rating_readonly_when_draft", knownvalue.Bool(false)),
				statecheck.ExpectKnownOutputValue("languages_no_delete_when_locked", knownvalue.Bool(true)),
				statecheck.ExpectKnownOutputValue("languages_no_delete_when_pending", knownvalue.Bool(false)),
				statecheck.ExpectKnownOutputValue("tape_label_fr_ca", knownvalue.StringExact("Nom du ruban")),
				statecheck.ExpectKnownOutputValue("tape_label_fr_be", knownvalue.StringExact("Nom de la bande")),
				statecheck.ExpectKnownOutputValue("tape_label_de", knownvalue.StringExact("tapeName")),
			},
		}},
	})
}
