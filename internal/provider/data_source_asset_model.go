package provider

import (
	"context"
	"fmt"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

var (
	_ datasource.DataSource                     = (*assetModelDataSource)(nil)
	_ datasource.DataSourceWithConfigure        = (*assetModelDataSource)(nil)
	_ datasource.DataSourceWithConfigValidators = (*assetModelDataSource)(nil)
)

// NewAssetModelDataSource returns the mediaplatform_asset_model data source.
func NewAssetModelDataSource() datasource.DataSource {
	return &assetModelDataSource{}
}

type assetModelDataSource struct {
	client *client.Client
}

type assetModelDataSourceModel struct {
	SystemType types.String                            `tfsdk:"system_type"`
	SystemID   types.String                            `tfsdk:"system_id"`
	AssetID    types.String                            `tfsdk:"asset_id"`
	AssetType  types.String                            `tfsdk:"asset_type"`
	Lang       types.String                            `tfsdk:"lang"`
	Attributes *attributeSetModel[assetAttributeModel] `tfsdk:"attributes"`
	TimeBased  []layerModel[assetSubattributeModel]    `tfsdk:"time_based"`
	Layout     *layoutModel                            `tfsdk:"layout"`
	JSON       types.String                            `tfsdk:"json"`
}

// layoutModel holds the three layout kinds of the specification.
type layoutModel struct {
	AttributeGroups []attributeGroupModel `tfsdk:"attribute_groups"`
	SimpleTimeBased []layerLayoutModel    `tfsdk:"simple_time_based"`
	VirtualLayers   []virtualLayerModel   `tfsdk:"virtual_layers"`
}

type attributeGroupModel struct {
	ID       types.String      `tfsdk:"id"`
	Labels   map[string]string `tfsdk:"labels"`
	Tooltips map[string]string `tfsdk:"tooltips"`
	Items    []groupItemModel  `tfsdk:"items"`
}

// layoutItemModel is an item of the attribute group layout, without subitems.
type layoutItemModel struct {
	ID          types.String       `tfsdk:"id"`
	Common      types.Bool         `tfsdk:"common"`
	Flags       []string           `tfsdk:"flags"`
	Options     layoutOptionsModel `tfsdk:"options"`
	OptionsJSON types.String       `tfsdk:"options_json"`
}

// groupItemModel is a top-level item of an attribute group.
type groupItemModel struct {
	layoutItemModel
	Subitems []layoutItemModel `tfsdk:"subitems"`
}

// layoutOptionsModel holds the item options the specification names.
type layoutOptionsModel struct {
	Default                  types.String          `tfsdk:"default"`
	DefaultValue             types.String          `tfsdk:"default_value"`
	Restrictions             *rowRestrictionsModel `tfsdk:"restrictions"`
	ReadOnlyExpressionRule   types.String          `tfsdk:"read_only_expression_rule"`
	VisibilityExpressionRule types.String          `tfsdk:"visibility_expression_rule"`
}

// rowRestrictionsModel is the restrictions option of a multi-value attribute.
type rowRestrictionsModel struct {
	NoCreateRows           types.Bool   `tfsdk:"no_create_rows"`
	NoCreateRowsExpression types.String `tfsdk:"no_create_rows_expression"`
	NoDeleteRows           types.Bool   `tfsdk:"no_delete_rows"`
	NoDeleteRowsExpression types.String `tfsdk:"no_delete_rows_expression"`
	NoMoveRows             types.Bool   `tfsdk:"no_move_rows"`
	NoMoveRowsExpression   types.String `tfsdk:"no_move_rows_expression"`
}

// layerLayoutModel is the simple time-based layout of one layer.
type layerLayoutModel struct {
	ID    types.String           `tfsdk:"id"`
	Items []layerLayoutItemModel `tfsdk:"items"`
}

type layerLayoutItemModel struct {
	ID          types.String `tfsdk:"id"`
	Flags       []string     `tfsdk:"flags"`
	OptionsJSON types.String `tfsdk:"options_json"`
}

type virtualLayerModel struct {
	ID       types.String `tfsdk:"id"`
	LayerIDs []string     `tfsdk:"layer_ids"`
}

func (d *assetModelDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_asset_model"
}

// expressionText is the common wording of the attributes holding an expression.
const expressionText = "as normalized JSON text (keys sorted, no white space), ready for " +
	"`provider::mediaplatform::evaluate_expression(expression, values)`; `null` when not given"

func (d *assetModelDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	itemAttributes := func() map[string]schema.Attribute {
		return map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "Id of the attribute the item shows.",
				Computed:            true,
			},
			"common": schema.BoolAttribute{
				MarkdownDescription: "`true` for a common attribute, `false` for a custom one (also when the platform " +
					"gives `null` or leaves it out).",
				Computed: true,
			},
			"flags": schema.ListAttribute{
				MarkdownDescription: "Display flags of the item, e.g. `multiline`; unknown flags are passed through " +
					"unchanged. Empty when none.",
				ElementType: types.StringType,
				Computed:    true,
			},
			"options": schema.SingleNestedAttribute{
				MarkdownDescription: "The item options the specification names, each `null` when not given. Every option, " +
					"including those not modelled here, is in `options_json`.",
				Computed: true,
				Attributes: map[string]schema.Attribute{
					"default": schema.StringAttribute{
						MarkdownDescription: "The `default` option (an object such as `{\"value\":\"Untitled\"}`) " +
							"as normalized JSON text; `null` when not given.",
						Computed: true,
					},
					"default_value": schema.StringAttribute{
						MarkdownDescription: "The `defaultValue` option: the default value of the attribute. A string " +
							"is given as is; any other JSON value as its JSON text. `null` when not given.",
						Computed: true,
					},
					"restrictions": schema.SingleNestedAttribute{
						MarkdownDescription: "Row restrictions of a multi-value attribute of an asset management " +
							"system; `null` when the attribute has none. A boolean the platform leaves out is `false`.",
						Computed: true,
						Attributes: map[string]schema.Attribute{
							"no_create_rows": schema.BoolAttribute{
								MarkdownDescription: "`true`: the user cannot create rows.",
								Computed:            true,
							},
							"no_create_rows_expression": schema.StringAttribute{
								MarkdownDescription: "When true, the user cannot create rows; " + expressionText + ".",
								Computed:            true,
							},
							"no_delete_rows": schema.BoolAttribute{
								MarkdownDescription: "`true`: the user cannot delete rows.",
								Computed:            true,
							},
							"no_delete_rows_expression": schema.StringAttribute{
								MarkdownDescription: "When true, the user cannot delete rows; " + expressionText + ".",
								Computed:            true,
							},
							"no_move_rows": schema.BoolAttribute{
								MarkdownDescription: "`true`: the user cannot move rows.",
								Computed:            true,
							},
							"no_move_rows_expression": schema.StringAttribute{
								MarkdownDescription: "When true, the user cannot move rows; " + expressionText + ".",
								Computed:            true,
							},
						},
					},
					"read_only_expression_rule": schema.StringAttribute{
						MarkdownDescription: "The `readOnlyExpressionRule`: when true, the value cannot be edited; " +
							expressionText + ".",
						Computed: true,
					},
					"visibility_expression_rule": schema.StringAttribute{
						MarkdownDescription: "The `visibilityExpressionRule`: when true, the item is shown; " +
							expressionText + ".",
						Computed: true,
					},
				},
			},
			"options_json": schema.StringAttribute{
				MarkdownDescription: "All options of the item as normalized JSON text (keys sorted, no white space); " +
					"`{}` when it has none.",
				Computed: true,
			},
		}
	}
	groupItem := itemAttributes()
	groupItem["subitems"] = schema.ListNestedAttribute{
		MarkdownDescription: "Items for the parts of a compound attribute, with the same fields except `subitems`; " +
			"deeper levels are only in `json`. Empty when none.",
		Computed:     true,
		NestedObject: schema.NestedAttributeObject{Attributes: itemAttributes()},
	}

	resp.Schema = schema.Schema{
		MarkdownDescription: "The data model of one asset or of an asset type (`datamodel:asset-model`): its " +
			"attributes with the flags that hold for that asset and for the calling user (an attribute editable in the " +
			"system model can be `readonly` here), its time-based layers and its layouts. Give exactly one of " +
			"`asset_id` and `asset_type`.",
		Attributes: map[string]schema.Attribute{
			"system_type": systemTypeAttribute(),
			"system_id":   systemIDAttribute(),
			"asset_id": schema.StringAttribute{
				MarkdownDescription: "Id of the asset whose model to read. Exactly one of `asset_id` and `asset_type` " +
					"must be set.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"asset_type": schema.StringAttribute{
				MarkdownDescription: "Id of the asset type whose model to read, one of the system's `asset_types` " +
					"(see `mediaplatform_system_model`), e.g. `sequence`. Exactly one of `asset_id` and `asset_type` " +
					"must be set.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"lang": modelLangAttribute(),
			"attributes": attributeSetAttribute(assetAttribute,
				"The attribute descriptions of the asset (or asset type): `common` and `custom`, each a list in the "+
					"platform's order. Only attributes used by assets appear."),
			"time_based": schema.ListNestedAttribute{
				MarkdownDescription: "The time-based annotation layers; empty for a system without time-based metadata.",
				Computed:            true,
				NestedObject:        layerObject(assetSubattribute),
			},
			"layout": schema.SingleNestedAttribute{
				MarkdownDescription: "The layouts, one attribute per layout kind; a kind the platform does not give is an " +
					"empty list. Layout kinds not modelled here are in `json`.",
				Computed: true,
				Attributes: map[string]schema.Attribute{
					"attribute_groups": schema.ListNestedAttribute{
						MarkdownDescription: "The attribute group layout (`attributeGroupLayout`): groups of attributes " +
							"in display order.",
						Computed: true,
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"id": schema.StringAttribute{
								MarkdownDescription: "Group id.",
								Computed:            true,
							},
							"labels": schema.MapAttribute{
								MarkdownDescription: "Localized group labels: culture code to text. Empty when none.",
								ElementType:         types.StringType,
								Computed:            true,
							},
							"tooltips": schema.MapAttribute{
								MarkdownDescription: "Localized group tooltips: culture code to text. Empty when none.",
								ElementType:         types.StringType,
								Computed:            true,
							},
							"items": schema.ListNestedAttribute{
								MarkdownDescription: "The group's items in display order, each referring to an attribute.",
								Computed:            true,
								NestedObject:        schema.NestedAttributeObject{Attributes: groupItem},
							},
						}},
					},
					"simple_time_based": schema.ListNestedAttribute{
						MarkdownDescription: "The simple time-based layout (`simpleTimeBasedLayout`): one entry per layer, " +
							"in display order.",
						Computed: true,
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"id": schema.StringAttribute{
								MarkdownDescription: "Layer id.",
								Computed:            true,
							},
							"items": schema.ListNestedAttribute{
								MarkdownDescription: "The layer's items in display order.",
								Computed:            true,
								NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
									"id": schema.StringAttribute{
										MarkdownDescription: "Id of the layer attribute the item shows.",
										Computed:            true,
									},
									"flags": schema.ListAttribute{
										MarkdownDescription: "Display flags of the item, e.g. `multiline`. Empty when none.",
										ElementType:         types.StringType,
										Computed:            true,
									},
									"options_json": schema.StringAttribute{
										MarkdownDescription: "The item's options as normalized JSON text (keys sorted, no " +
											"white space); `{}` when it has none.",
										Computed: true,
									},
								}},
							},
						}},
					},
					"virtual_layers": schema.ListNestedAttribute{
						MarkdownDescription: "The virtual layers layout (`virtualLayersLayout`): layers defined as a " +
							"combination of layers, e.g. `markers`.",
						Computed: true,
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"id": schema.StringAttribute{
								MarkdownDescription: "Virtual layer id.",
								Computed:            true,
							},
							"layer_ids": schema.ListAttribute{
								MarkdownDescription: "Ids of the layers whose combination defines the virtual layer.",
								ElementType:         types.StringType,
								Computed:            true,
							},
						}},
					},
				},
			},
			"json": jsonAttribute("asset model"),
		},
	}
}

func (d *assetModelDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{
		datasourcevalidator.ExactlyOneOf(path.MatchRoot("asset_id"), path.MatchRoot("asset_type")),
	}
}

func (d *assetModelDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.client = clientFromProviderData(req.ProviderData, &resp.Diagnostics)
}

func (d *assetModelDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var data assetModelDataSourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &data)...)
	if resp.Diagnostics.HasError() {
		return
	}
	systemType, systemID, lang := data.SystemType.ValueString(), data.SystemID.ValueString(), data.Lang.ValueString()

	var (
		m      *client.AssetModel
		err    error
		object string // what was asked for, for messages
		hint   string // where to find valid values
	)
	if !data.AssetID.IsNull() {
		object, hint = fmt.Sprintf("asset %q", data.AssetID.ValueString()), "Check asset_id."
		m, err = d.client.AssetModelByID(ctx, systemType, systemID, data.AssetID.ValueString(), lang)
	} else {
		object = fmt.Sprintf("asset type %q", data.AssetType.ValueString())
		hint = "Check asset_type; the asset_types of the mediaplatform_system_model data source list the system's asset types."
		m, err = d.client.AssetModelByType(ctx, systemType, systemID, data.AssetType.ValueString(), lang)
	}
	if client.IsNotFound(err) {
		resp.Diagnostics.AddError("Unable to read asset model",
			d.notFoundDetail(ctx, systemType, systemID, object, hint)+"\n\nCause: "+err.Error())
		return
	}
	if err != nil {
		addClientError(&resp.Diagnostics, "Unable to read asset model",
			fmt.Sprintf("Reading the data model of %s in system %s/%s failed. Check the arguments and the provider "+
				"settings, and try again.", object, systemType, systemID), err)
		return
	}

	layout, err := newLayout(m.Layout)
	var normalized types.String
	if err == nil {
		normalized, err = normalizeJSON(m.Raw)
	}
	if err != nil {
		resp.Diagnostics.AddError("Unable to read asset model",
			fmt.Sprintf("The data model of %s in system %s/%s could not be read: %s. This is a problem of the "+
				"platform; please report it.", object, systemType, systemID, err))
		return
	}
	data.Attributes = newAttributeSet(m.Attributes, newAssetAttribute)
	data.TimeBased = convertAll(m.TimeBased, newLayer(newAssetSubattribute))
	data.Layout = layout
	data.JSON = normalized
	resp.Diagnostics.Append(resp.State.Set(ctx, &data)...)
}

// notFoundDetail says which part of a request for an asset model does not exist:
// the system, or the asset (type) in it. The platform answers both with the same
// 404, so the registry's system list decides.
func (d *assetModelDataSource) notFoundDetail(ctx context.Context, systemType, systemID, object, hint string) string {
	systems, err := d.client.Systems(ctx)
	switch {
	case err != nil:
		return fmt.Sprintf("Either the platform has no system of type %q with id %q, or that system has no %s. "+
			"Check system_type and system_id (the mediaplatform_systems data source lists the systems). %s",
			systemType, systemID, object, hint)
	case !slices.Contains(systems, client.System{SystemType: systemType, SystemID: systemID}):
		return fmt.Sprintf("The platform has no system of type %q with id %q. Check system_type and system_id; the "+
			"mediaplatform_systems data source lists the systems the platform serves.", systemType, systemID)
	default:
		return fmt.Sprintf("System %s/%s has no %s. %s", systemType, systemID, object, hint)
	}
}
