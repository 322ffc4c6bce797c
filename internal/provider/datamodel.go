package provider

// The data models, shared by the mediaplatform_system_model and
// mediaplatform_asset_model data sources: the nested schemas of attribute
// descriptions and time-based layers, the models that mirror them, and their
// conversion from the client's types (attributes, layers, the asset model's layouts).
//
// Conventions (the specification leaves them open):
//   - Collections are never null: a missing `flags`, `labels`, `tooltips` or
//     `applies_to` is empty, so `contains()`, `length()` and localized_label work
//     without null checks.
//   - Scalars the platform may leave out are null when missing: `description`,
//     `type.list_type`, and `type.max_length` (null means unlimited).
//     `type.multi_value` is false when missing (single-value), as the spec says.

import (
	"encoding/json"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

// attributeKind selects the shape of an attribute description: the system model
// reports appliesTo, the asset model options and sub-attributes, and layers neither
// appliesTo nor sub-attributes.
type attributeKind int

const (
	// systemAttribute: core fields plus applies_to (system model attributes).
	systemAttribute attributeKind = iota
	// systemLayerAttribute: core fields only (layer attributes in the system model).
	systemLayerAttribute
	// assetSubattribute: core fields plus options (sub-attributes and layer
	// attributes in the asset model).
	assetSubattribute
	// assetAttribute: core fields plus options and subattributes.
	assetAttribute
)

// attributeTypeModel is an attribute's type description.
type attributeTypeModel struct {
	BaseType   types.String `tfsdk:"base_type"`
	MaxLength  types.Int64  `tfsdk:"max_length"`
	MultiValue types.Bool   `tfsdk:"multi_value"`
	ListType   types.String `tfsdk:"list_type"`
}

// attributeCoreModel holds the fields every attribute description has.
type attributeCoreModel struct {
	ID          types.String       `tfsdk:"id"`
	Description types.String       `tfsdk:"description"`
	Flags       []string           `tfsdk:"flags"`
	Labels      map[string]string  `tfsdk:"labels"`
	Tooltips    map[string]string  `tfsdk:"tooltips"`
	Type        attributeTypeModel `tfsdk:"type"`
}

// systemAttributeModel is an attribute description of the system model.
type systemAttributeModel struct {
	attributeCoreModel
	AppliesTo []string `tfsdk:"applies_to"`
}

// attributeOptionsModel is the options object of an asset-model attribute.
type attributeOptionsModel struct {
	Mandatory types.Bool `tfsdk:"mandatory"`
	Readonly  types.Bool `tfsdk:"readonly"`
}

// assetSubattributeModel is an asset-model attribute description without
// sub-attributes: a sub-attribute, or an attribute of a layer.
type assetSubattributeModel struct {
	attributeCoreModel
	Options *attributeOptionsModel `tfsdk:"options"`
}

// assetAttributeModel is an attribute description of the asset model.
type assetAttributeModel struct {
	assetSubattributeModel
	Subattributes []assetSubattributeModel `tfsdk:"subattributes"`
}

// attributeSetModel holds the common and custom attributes of a model.
type attributeSetModel[A any] struct {
	Common []A `tfsdk:"common"`
	Custom []A `tfsdk:"custom"`
}

// layerModel is a time-based layer definition; A is the shape of its attributes.
type layerModel[A any] struct {
	ID          types.String      `tfsdk:"id"`
	Description types.String      `tfsdk:"description"`
	Labels      map[string]string `tfsdk:"labels"`
	Tooltips    map[string]string `tfsdk:"tooltips"`
	Ranged      types.Bool        `tfsdk:"ranged"`
	Gaps        types.Bool        `tfsdk:"gaps"`
	Overlap     types.Bool        `tfsdk:"overlap"`
	Flags       []string          `tfsdk:"flags"`
	Attributes  []A               `tfsdk:"attributes"`
}

// Conversions from the client's types.

func newAttributeCore(a client.Attribute) attributeCoreModel {
	t := attributeTypeModel{
		BaseType:   types.StringValue(a.Type.BaseType),
		MaxLength:  types.Int64Null(),
		MultiValue: types.BoolValue(a.Type.MultiValue),
		ListType:   optionalString(a.Type.ListType),
	}
	if a.Type.MaxLength != nil {
		t.MaxLength = types.Int64Value(int64(*a.Type.MaxLength))
	}
	return attributeCoreModel{
		ID:          types.StringValue(a.ID),
		Description: optionalString(a.Description),
		Flags:       stringList(a.Flags),
		Labels:      stringMap(a.Labels),
		Tooltips:    stringMap(a.Tooltips),
		Type:        t,
	}
}

func newSystemAttribute(a client.Attribute) systemAttributeModel {
	return systemAttributeModel{attributeCoreModel: newAttributeCore(a), AppliesTo: stringList(a.AppliesTo)}
}

func newAssetSubattribute(a client.Attribute) assetSubattributeModel {
	m := assetSubattributeModel{attributeCoreModel: newAttributeCore(a)}
	if a.Options != nil {
		m.Options = &attributeOptionsModel{
			Mandatory: types.BoolValue(a.Options.Mandatory),
			Readonly:  types.BoolValue(a.Options.Readonly),
		}
	}
	return m
}

func newAssetAttribute(a client.Attribute) assetAttributeModel {
	// Only one level of sub-attributes is modelled; deeper levels are in `json`.
	return assetAttributeModel{
		assetSubattributeModel: newAssetSubattribute(a),
		Subattributes:          convertAll(a.Subattributes, newAssetSubattribute),
	}
}

func newAttributeSet[A any](s client.AttributeSet, conv func(client.Attribute) A) *attributeSetModel[A] {
	return &attributeSetModel[A]{Common: convertAll(s.Common, conv), Custom: convertAll(s.Custom, conv)}
}

func newLayer[A any](conv func(client.Attribute) A) func(client.Layer) layerModel[A] {
	return func(l client.Layer) layerModel[A] {
		return layerModel[A]{
			ID:          types.StringValue(l.ID),
			Description: optionalString(l.Description),
			Labels:      stringMap(l.Labels),
			Tooltips:    stringMap(l.Tooltips),
			Ranged:      types.BoolValue(l.Ranged),
			Gaps:        types.BoolValue(l.Gaps),
			Overlap:     types.BoolValue(l.Overlap),
			Flags:       stringList(l.Flags),
			Attributes:  convertAll(l.Attributes, conv),
		}
	}
}

// The asset model's layouts.

// newLayout converts the three layout kinds; a kind the platform leaves out is an
// empty list.
func newLayout(l client.Layout) (*layoutModel, error) {
	m := &layoutModel{
		AttributeGroups: make([]attributeGroupModel, 0, len(l.AttributeGroupLayout)),
		SimpleTimeBased: make([]layerLayoutModel, 0, len(l.SimpleTimeBasedLayout)),
		VirtualLayers: convertAll(l.VirtualLayersLayout, func(v client.VirtualLayer) virtualLayerModel {
			return virtualLayerModel{ID: types.StringValue(v.ID), LayerIDs: stringList(v.LayerIDs)}
		}),
	}
	for _, g := range l.AttributeGroupLayout {
		group := attributeGroupModel{
			ID:       types.StringValue(g.ID),
			Labels:   stringMap(g.Labels),
			Tooltips: stringMap(g.Tooltips),
			Items:    make([]groupItemModel, 0, len(g.Items)),
		}
		for _, it := range g.Items {
			item, err := newLayoutItem(it)
			if err != nil {
				return nil, fmt.Errorf("attribute group %q, item %q: %w", g.ID, it.ID, err)
			}
			gi := groupItemModel{layoutItemModel: item, Subitems: make([]layoutItemModel, 0, len(it.Subitems))}
			for _, sub := range it.Subitems {
				s, err := newLayoutItem(sub)
				if err != nil {
					return nil, fmt.Errorf("attribute group %q, item %q, subitem %q: %w", g.ID, it.ID, sub.ID, err)
				}
				gi.Subitems = append(gi.Subitems, s)
			}
			group.Items = append(group.Items, gi)
		}
		m.AttributeGroups = append(m.AttributeGroups, group)
	}
	for _, ll := range l.SimpleTimeBasedLayout {
		layer := layerLayoutModel{ID: types.StringValue(ll.ID), Items: make([]layerLayoutItemModel, 0, len(ll.Items))}
		for _, it := range ll.Items {
			options, err := normalizeOptions(it.Options)
			if err != nil {
				return nil, fmt.Errorf("simple time-based layout of layer %q, item %q: %w", ll.ID, it.ID, err)
			}
			layer.Items = append(layer.Items, layerLayoutItemModel{
				ID: types.StringValue(it.ID), Flags: stringList(it.Flags), OptionsJSON: types.StringValue(options),
			})
		}
		m.SimpleTimeBased = append(m.SimpleTimeBased, layer)
	}
	return m, nil
}

// newLayoutItem converts an attribute group item without its subitems.
func newLayoutItem(it client.LayoutItem) (layoutItemModel, error) {
	all, err := normalizeOptions(it.Options)
	if err != nil {
		return layoutItemModel{}, err
	}
	var opts layoutOptionsModel
	if opts.Default, err = optionJSON(it.Options, "default"); err != nil {
		return layoutItemModel{}, err
	}
	if opts.DefaultValue, err = optionText(it.Options, "defaultValue"); err != nil {
		return layoutItemModel{}, err
	}
	if opts.ReadOnlyExpressionRule, err = optionJSON(it.Options, "readOnlyExpressionRule"); err != nil {
		return layoutItemModel{}, err
	}
	if opts.VisibilityExpressionRule, err = optionJSON(it.Options, "visibilityExpressionRule"); err != nil {
		return layoutItemModel{}, err
	}
	if opts.Restrictions, err = newRowRestrictions(it.Options["restrictions"]); err != nil {
		return layoutItemModel{}, err
	}
	return layoutItemModel{
		ID:          types.StringValue(it.ID),
		Common:      types.BoolValue(it.Common),
		Flags:       stringList(it.Flags),
		Options:     opts,
		OptionsJSON: types.StringValue(all),
	}, nil
}

// newRowRestrictions converts the restrictions option; nil when it is absent or null.
func newRowRestrictions(raw json.RawMessage) (*rowRestrictionsModel, error) {
	if isAbsent(raw) {
		return nil, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, fmt.Errorf("option restrictions: %w", err)
	}
	var r rowRestrictionsModel
	var err error
	for _, f := range []struct {
		flag       *types.Bool
		expression *types.String
		name       string
	}{
		{&r.NoCreateRows, &r.NoCreateRowsExpression, "noCreateRows"},
		{&r.NoDeleteRows, &r.NoDeleteRowsExpression, "noDeleteRows"},
		{&r.NoMoveRows, &r.NoMoveRowsExpression, "noMoveRows"},
	} {
		var b bool
		if !isAbsent(fields[f.name]) {
			if err := json.Unmarshal(fields[f.name], &b); err != nil {
				return nil, fmt.Errorf("restriction %s: %w", f.name, err)
			}
		}
		*f.flag = types.BoolValue(b)
		if *f.expression, err = optionJSON(fields, f.name+"Expression"); err != nil {
			return nil, fmt.Errorf("restriction %sExpression: %w", f.name, err)
		}
	}
	return &r, nil
}

// normalizeOptions returns all options as normalized JSON text, "{}" for none.
func normalizeOptions(options map[string]json.RawMessage) (string, error) {
	if len(options) == 0 {
		return "{}", nil
	}
	raw, err := json.Marshal(options)
	if err != nil {
		return "", fmt.Errorf("options: %w", err)
	}
	s, err := normalizeJSON(raw)
	return s.ValueString(), err
}

// optionJSON returns an option as normalized JSON text; null when absent or null.
func optionJSON(options map[string]json.RawMessage, name string) (types.String, error) {
	raw := options[name]
	if isAbsent(raw) {
		return types.StringNull(), nil
	}
	s, err := normalizeJSON(raw)
	if err != nil {
		return types.StringNull(), fmt.Errorf("option %s: %w", name, err)
	}
	return s, nil
}

// optionText returns a string option as is and any other value as its JSON text;
// null when absent or null.
func optionText(options map[string]json.RawMessage, name string) (types.String, error) {
	var s string
	if raw := options[name]; !isAbsent(raw) && json.Unmarshal(raw, &s) == nil {
		return types.StringValue(s), nil
	}
	return optionJSON(options, name)
}

// isAbsent reports whether a JSON value is missing or null.
func isAbsent(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

// Schemas.

// attributeDescriptionObject returns the nested schema of an attribute description
// of the given kind.
func attributeDescriptionObject(kind attributeKind) schema.NestedAttributeObject {
	attrs := map[string]schema.Attribute{
		"id": schema.StringAttribute{
			MarkdownDescription: "Attribute id. For a common attribute it is the property name in the asset's common " +
				"representation, e.g. `name`, `startTC`.",
			Computed: true,
		},
		"description": schema.StringAttribute{
			MarkdownDescription: "Description for human users; `null` when the platform gives none.",
			Computed:            true,
		},
		"flags": schema.ListAttribute{
			MarkdownDescription: "Flags of the attribute, in the platform's order: `readonly`, `indexed`, `mandatory` and " +
				"`editor` occur. The platform may add flags at any time; flags this provider does not know are passed " +
				"through unchanged. In `mediaplatform_asset_model` the flags hold for that asset (or asset type) and the " +
				"calling user, so an attribute editable in the system model can be `readonly` there. Empty when none.",
			ElementType: types.StringType,
			Computed:    true,
		},
		"labels": schema.MapAttribute{
			MarkdownDescription: "Localized display labels: culture code (`en`, `fr`, `fr-CA`) to text. Empty when none. " +
				"Pick one with `provider::mediaplatform::localized_label(labels, culture, id)`, which applies the " +
				"platform's fallback rule (full culture, then language, then `en`, then the fallback).",
			ElementType: types.StringType,
			Computed:    true,
		},
		"tooltips": schema.MapAttribute{
			MarkdownDescription: "Localized tooltips, with the same structure as `labels`. Empty when none.",
			ElementType:         types.StringType,
			Computed:            true,
		},
		"type": schema.SingleNestedAttribute{
			MarkdownDescription: "Type description. Type properties not listed here (thesaurus and taxonomy ids, " +
				"digit counts) are in the data source's `json`.",
			Computed: true,
			Attributes: map[string]schema.Attribute{
				"base_type": schema.StringAttribute{
					MarkdownDescription: "Base type: `string`, `int`, `float`, `datetime`, `list`, `thesaurus`, `compound`, " +
						"`taxonomy`, or a type added later, passed through as given.",
					Computed: true,
				},
				"max_length": schema.Int64Attribute{
					MarkdownDescription: "Maximum number of characters of a `string` attribute; `null` means unlimited.",
					Computed:            true,
				},
				"multi_value": schema.BoolAttribute{
					MarkdownDescription: "Whether the attribute holds several values (rows). `false` when the platform " +
						"leaves it out.",
					Computed: true,
				},
				"list_type": schema.StringAttribute{
					MarkdownDescription: "Id of the value list of a `list` attribute (deprecated by the platform); `null` " +
						"when not given.",
					Computed: true,
				},
			},
		},
	}
	switch kind {
	case systemAttribute:
		attrs["applies_to"] = schema.ListAttribute{
			MarkdownDescription: "Link relations of the resources that use the attribute, e.g. `aa:asset` (assets) and " +
				"`loc:item` (physical items). Only attributes that apply to `aa:asset` appear in asset models.",
			ElementType: types.StringType,
			Computed:    true,
		}
	case assetSubattribute, assetAttribute:
		attrs["options"] = schema.SingleNestedAttribute{
			MarkdownDescription: "Options of the attribute for this asset and the calling user; `null` when the platform " +
				"gives none.",
			Computed: true,
			Attributes: map[string]schema.Attribute{
				"mandatory": schema.BoolAttribute{
					MarkdownDescription: "Whether a value is required.",
					Computed:            true,
				},
				"readonly": schema.BoolAttribute{
					MarkdownDescription: "Whether the calling user cannot edit the value.",
					Computed:            true,
				},
			},
		}
	}
	if kind == assetAttribute {
		sub := attributeDescriptionObject(assetSubattribute)
		attrs["subattributes"] = schema.ListNestedAttribute{
			MarkdownDescription: "Descriptions of the parts of a multi-value compound attribute (one row holds one value " +
				"of each), with the same fields except `subattributes`; deeper levels are only in `json`. Empty for " +
				"other attributes.",
			Computed:     true,
			NestedObject: sub,
		}
	}
	return schema.NestedAttributeObject{Attributes: attrs}
}

// attributeSetAttribute is the `attributes` attribute: common and custom lists.
func attributeSetAttribute(kind attributeKind, description string) schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		MarkdownDescription: description,
		Computed:            true,
		Attributes: map[string]schema.Attribute{
			"common": schema.ListNestedAttribute{
				MarkdownDescription: "Common attributes, whose values are in the asset's common representation " +
					"(e.g. `name`, `modified`), in the platform's order.",
				Computed:     true,
				NestedObject: attributeDescriptionObject(kind),
			},
			"custom": schema.ListNestedAttribute{
				MarkdownDescription: "Custom attributes, whose values are in the asset's attributes sub resource, in the " +
					"platform's order.",
				Computed:     true,
				NestedObject: attributeDescriptionObject(kind),
			},
		},
	}
}

// layerObject is the nested schema of a time-based layer definition whose
// attributes have the given kind.
func layerObject(kind attributeKind) schema.NestedAttributeObject {
	return schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
		"id": schema.StringAttribute{
			MarkdownDescription: "Layer id, the same as when the layer's segments are queried, e.g. `V1` or `restrictions`.",
			Computed:            true,
		},
		"description": schema.StringAttribute{
			MarkdownDescription: "Description for human users; `null` when the platform gives none.",
			Computed:            true,
		},
		"labels": schema.MapAttribute{
			MarkdownDescription: "Localized display labels: culture code to text. Empty when none.",
			ElementType:         types.StringType,
			Computed:            true,
		},
		"tooltips": schema.MapAttribute{
			MarkdownDescription: "Localized tooltips: culture code to text. Empty when none.",
			ElementType:         types.StringType,
			Computed:            true,
		},
		"ranged": schema.BoolAttribute{
			MarkdownDescription: "`true`: a segment can span several frames; `false`: every segment is a single frame (a marker).",
			Computed:            true,
		},
		"gaps": schema.BoolAttribute{
			MarkdownDescription: "`true`: time ranges without a segment are allowed; `false`: the segments must cover the " +
				"time line without gaps.",
			Computed: true,
		},
		"overlap": schema.BoolAttribute{
			MarkdownDescription: "`true`: segments may overlap; `false`: they may not.",
			Computed:            true,
		},
		"flags": schema.ListAttribute{
			MarkdownDescription: "Flags of the layer: `indexed` and `readonly` occur; unknown flags are passed through " +
				"unchanged. Empty when none.",
			ElementType: types.StringType,
			Computed:    true,
		},
		"attributes": schema.ListNestedAttribute{
			MarkdownDescription: "Descriptions of the attributes available on the layer's segments.",
			Computed:            true,
			NestedObject:        attributeDescriptionObject(kind),
		},
	}}
}

// jsonAttribute is the `json` attribute of both model data sources.
func jsonAttribute(what string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: "The whole " + what + " as the platform returned it, as normalized JSON text (keys " +
			"sorted, no white space), including the fields this data source does not model. Read them with " +
			"`jsondecode(...)`.",
		Computed: true,
	}
}

// systemTypeAttribute is the `system_type` argument of both model data sources.
func systemTypeAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: "Kind of system, e.g. `interplay-pam` or `interplay-mam`.",
		Required:            true,
		Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
	}
}

// systemIDAttribute is the `system_id` argument of both model data sources.
func systemIDAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: "Id of the system, e.g. `pam-1`.",
		Required:            true,
		Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
	}
}

// modelLangAttribute is the `lang` argument of both model data sources.
func modelLangAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: "Language for the platform's texts, as a BCP 47 tag such as `en` or `fr-CA`; the " +
			"platform's default is `en`. Labels and tooltips are maps of every culture either way: choose one with " +
			"`provider::mediaplatform::localized_label`.",
		Optional:   true,
		Validators: []validator.String{languageTag()},
	}
}
