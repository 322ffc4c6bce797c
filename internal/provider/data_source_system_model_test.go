package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

const pamSystemModel = "data.mediaplatform_system_model.pam"

// kvSystemModel checks every modelled value of a system model against its fixture.
func kvSystemModel(t *testing.T, address string, fx fxSystemModel, raw []byte, timeBased bool) []statecheck.StateCheck {
	t.Helper()
	assetTypes := make([]knownvalue.Check, 0, len(fx.AssetTypes))
	for _, at := range fx.AssetTypes {
		assetTypes = append(assetTypes, knownvalue.ObjectExact(map[string]knownvalue.Check{
			"id":     knownvalue.StringExact(at.ID),
			"labels": kvStringMap(at.Labels),
		}))
	}
	layers := kvLayers(fx.TimeBased, systemLayerAttribute)
	var drop []string
	if !timeBased {
		layers, drop = knownvalue.Null(), []string{"time-based"}
	}
	return []statecheck.StateCheck{
		statecheck.ExpectKnownValue(address, tfjsonpath.New("base"), knownvalue.ObjectExact(map[string]knownvalue.Check{
			"system_type": knownvalue.StringExact(fx.Base.SystemType),
			"system_id":   knownvalue.StringExact(fx.Base.SystemID),
		})),
		statecheck.ExpectKnownValue(address, tfjsonpath.New("attributes"), kvAttributeSet(fx.Attributes, systemAttribute)),
		statecheck.ExpectKnownValue(address, tfjsonpath.New("asset_types"), knownvalue.ListExact(assetTypes)),
		statecheck.ExpectKnownValue(address, tfjsonpath.New("time_based"), layers),
		statecheck.ExpectKnownValue(address, tfjsonpath.New("json"), kvModelJSON(raw, drop...)),
	}
}

func TestDataSourceSystemModel_pamWithTimeBased(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	fx, raw := systemModelFixture(t, "interplay-pam", "pam-1")
	layerIDs := []string{"A1", "A2", "D1", "V1", "V2", "restrictions"}

	checks := append(kvSystemModel(t, pamSystemModel, fx, raw, true),
		statecheck.ExpectKnownValue(pamSystemModel, tfjsonpath.New("include_time_based"), knownvalue.Bool(true)),
		statecheck.ExpectKnownValue(pamSystemModel, tfjsonpath.New("lang"), knownvalue.StringExact("fr-CA")),
		statecheck.ExpectKnownValue(pamSystemModel, tfjsonpath.New("asset_types"), knownvalue.ListSizeExact(10)),
		statecheck.ExpectKnownValue(pamSystemModel, tfjsonpath.New("time_based"), knownvalue.ListSizeExact(len(layerIDs))),
		// The restrictions layer adds a readonly datetime "modified" to comment and color.
		statecheck.ExpectKnownValue(pamSystemModel, tfjsonpath.New("time_based").AtSliceIndex(5).AtMapKey("attributes").AtSliceIndex(2),
			knownvalue.ObjectExact(map[string]knownvalue.Check{
				"id":          knownvalue.StringExact("modified"),
				"description": knownvalue.StringExact("When the restriction was last changed"),
				"flags":       knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("readonly")}),
				"labels": knownvalue.MapExact(map[string]knownvalue.Check{
					"en": knownvalue.StringExact("Modified"), "fr": knownvalue.StringExact("Modifié"), "de": knownvalue.StringExact("Geändert"),
				}),
				"tooltips": knownvalue.MapExact(map[string]knownvalue.Check{}),
				"type": knownvalue.ObjectExact(map[string]knownvalue.Check{
					"base_type": knownvalue.StringExact("datetime"), "max_length": knownvalue.Null(),
					"multi_value": knownvalue.Bool(false), "list_type": knownvalue.Null(),
				}),
			})),
		// tapeName is labelled in French and Canadian French only.
		statecheck.ExpectKnownValue(pamSystemModel, tfjsonpath.New("attributes").AtMapKey("custom").AtSliceIndex(0).AtMapKey("labels"),
			knownvalue.MapExact(map[string]knownvalue.Check{
				"fr": knownvalue.StringExact("Nom de la bande"), "fr-CA": knownvalue.StringExact("Nom du ruban"),
			})),
		// An unknown flag passes through untouched, in order.
		statecheck.ExpectKnownValue(pamSystemModel, tfjsonpath.New("attributes").AtMapKey("custom").AtSliceIndex(8),
			knownvalue.ObjectPartial(map[string]knownvalue.Check{
				"id":    knownvalue.StringExact("status"),
				"flags": kvStrings([]string{"mandatory", "indexed", "experimental"}),
			})),
		// A string without maxLength is unlimited (null); multiValue true is kept.
		statecheck.ExpectKnownValue(pamSystemModel, tfjsonpath.New("attributes").AtMapKey("custom").AtSliceIndex(10).AtMapKey("type"),
			knownvalue.ObjectExact(map[string]knownvalue.Check{
				"base_type": knownvalue.StringExact("string"), "max_length": knownvalue.Null(),
				"multi_value": knownvalue.Bool(false), "list_type": knownvalue.Null(),
			})),
		statecheck.ExpectKnownValue(pamSystemModel, tfjsonpath.New("attributes").AtMapKey("custom").AtSliceIndex(5).AtMapKey("type"),
			knownvalue.ObjectExact(map[string]knownvalue.Check{
				"base_type": knownvalue.StringExact("thesaurus"), "max_length": knownvalue.Null(),
				"multi_value": knownvalue.Bool(true), "list_type": knownvalue.Null(),
			})),
		statecheck.ExpectKnownValue(pamSystemModel, tfjsonpath.New("attributes").AtMapKey("common").AtSliceIndex(2).AtMapKey("applies_to"),
			kvStrings([]string{"aa:asset", "loc:item"})),
	)
	for i, id := range layerIDs {
		checks = append(checks, statecheck.ExpectKnownValue(pamSystemModel, tfjsonpath.New("time_based").AtSliceIndex(i),
			knownvalue.ObjectPartial(map[string]knownvalue.Check{
				"id":      knownvalue.StringExact(id),
				"ranged":  knownvalue.Bool(true),
				"gaps":    knownvalue.Bool(true),
				"overlap": knownvalue.Bool(true),
			})))
	}

	expectRead(t, emu.providerConfig()+`
data "mediaplatform_system_model" "pam" {
  system_type        = "interplay-pam"
  system_id          = "pam-1"
  include_time_based = true
  lang               = "fr-CA"
}
`,
		checks...)
}

func TestDataSourceSystemModel_pamWithoutTimeBased(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	fx, raw := systemModelFixture(t, "interplay-pam", "pam-1")
	if len(fx.TimeBased) == 0 {
		t.Fatal("the pam-1 fixture has no layers, so leaving them out proves nothing")
	}
	expectRead(t, emu.providerConfig()+`
data "mediaplatform_system_model" "pam" {
  system_type = "interplay-pam"
  system_id   = "pam-1"
}
`,
		append(kvSystemModel(t, pamSystemModel, fx, raw, false),
			statecheck.ExpectKnownValue(pamSystemModel, tfjsonpath.New("include_time_based"), knownvalue.Bool(false)),
			statecheck.ExpectKnownValue(pamSystemModel, tfjsonpath.New("lang"), knownvalue.Null()),
			statecheck.ExpectKnownValue(pamSystemModel, tfjsonpath.New("time_based"), knownvalue.Null()),
		)...)
}

func TestDataSourceSystemModel_mamIgnoresTimeBased(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	fx, raw := systemModelFixture(t, "interplay-mam", "mam-1")
	const address = "data.mediaplatform_system_model.mam"
	// mam-1 does not support time-based metadata: asked for, the layers are an empty list.
	fx.TimeBased = []fxLayer{}
	expectRead(t, emu.providerConfig()+`
data "mediaplatform_system_model" "mam" {
  system_type        = "interplay-mam"
  system_id          = "mam-1"
  include_time_based = true
}
`,
		append(kvSystemModel(t, address, fx, raw, true),
			statecheck.ExpectKnownValue(address, tfjsonpath.New("time_based"), knownvalue.ListSizeExact(0)),
			statecheck.ExpectKnownValue(address, tfjsonpath.New("asset_types"), knownvalue.ListSizeExact(4)),
			statecheck.ExpectKnownValue(address, tfjsonpath.New("attributes").AtMapKey("custom").AtSliceIndex(2),
				knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"id":    knownvalue.StringExact("approvalStatus"),
					"flags": kvStrings([]string{"mandatory", "experimental"}),
				})),
			statecheck.ExpectKnownValue(address, tfjsonpath.New("attributes").AtMapKey("custom").AtSliceIndex(5),
				knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"id":         knownvalue.StringExact("shelf"),
					"applies_to": kvStrings([]string{"loc:item"}),
					"flags":      knownvalue.ListSizeExact(0),
				})),
		)...)
}

func TestDataSourceSystemModel_unknownSystem(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	expectPlanError(t, emu.providerConfig()+`
data "mediaplatform_system_model" "missing" {
  system_type = "interplay-pam"
  system_id   = "pam-9"
}
`, errorPattern("Unable to read system model",
		`The platform has no system of type "interplay-pam" with id "pam-9"`, "mediaplatform_systems", "datamodel/NOT_FOUND"))
}

func TestDataSourceSystemModel_validation(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	testRejectedBeforeRequests(t, emu, blockConfig(emu, `data "mediaplatform_system_model" "bad"`), []rejectedConfig{
		{"system_type = \"interplay-pam\"\n  system_id   = \"pam-1\"\n  lang        = \"not a language\"", []string{"lang", "BCP 47 language tag"}},
		{"system_type = \"\"\n  system_id   = \"pam-1\"", []string{"system_type", "at least 1"}},
	})
}
