package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
)

// SystemModel is the data model of one system (datamodel:system-model).
type SystemModel struct {
	// Base identifies the system.
	Base SystemBase `json:"base"`
	// Attributes are the system's common and custom attributes.
	Attributes AttributeSet `json:"attributes"`
	// AssetTypes are the asset types (platform release 2020.4 and later).
	AssetTypes []AssetType `json:"asset-types,omitempty"`
	// TimeBased are the annotation layers, present only when requested and
	// supported by the system.
	TimeBased []Layer `json:"time-based,omitempty"`
	// Links are the resource's links (self, curies).
	Links Links `json:"_links,omitempty"`
	// Raw is the whole resource as the API returned it.
	Raw json.RawMessage `json:"-"`
}

// SystemBase identifies the system a model describes.
type SystemBase struct {
	SystemType string `json:"systemType"`
	SystemID   string `json:"systemID"`
}

// AttributeSet holds common attributes (returned in the asset's common
// representation) and custom attributes (returned in its attributes sub
// resource).
type AttributeSet struct {
	Common []Attribute `json:"common"`
	Custom []Attribute `json:"custom"`
}

// Attribute is an attribute description.
type Attribute struct {
	// ID is the attribute id (for common attributes, the property name).
	ID string `json:"id"`
	// AppliesTo lists the link relations using the attribute (system model
	// only).
	AppliesTo []string `json:"appliesTo,omitempty"`
	// Description is for human users only.
	Description string `json:"description,omitempty"`
	// Flags, e.g. readonly, indexed, mandatory, editor; unknown flags are
	// kept as given.
	Flags []string `json:"flags,omitempty"`
	// Labels and Tooltips map culture codes to text.
	Labels   map[string]string `json:"labels,omitempty"`
	Tooltips map[string]string `json:"tooltips,omitempty"`
	// Type describes the value type.
	Type AttributeType `json:"type"`
	// Subattributes describe the parts of a multi-value compound attribute.
	Subattributes []Attribute `json:"subattributes,omitempty"`
	// Options are the attribute options (asset model), nil when absent.
	Options *AttributeOptions `json:"options,omitempty"`
	// Raw is the description as returned.
	Raw json.RawMessage `json:"-"`
}

// AttributeType is an attribute's type description.
type AttributeType struct {
	// BaseType: string, int, float, datetime, list, thesaurus, compound, taxonomy, ….
	BaseType string `json:"baseType"`
	// MaxLength is the maximum number of characters (nil: unlimited).
	MaxLength *int `json:"maxLength,omitempty"`
	// MultiValue is true for multi-value attributes.
	MultiValue bool `json:"multiValue,omitempty"`
	// ListType is the id of the list (deprecated).
	ListType string `json:"listType,omitempty"`
	// Raw is the type as returned, with the properties not modelled here.
	Raw json.RawMessage `json:"-"`
}

// AttributeOptions are an attribute's options in an asset model.
type AttributeOptions struct {
	Mandatory bool `json:"mandatory"`
	Readonly  bool `json:"readonly"`
	// Raw is the options object as returned.
	Raw json.RawMessage `json:"-"`
}

// AssetType is an asset type of a system.
type AssetType struct {
	ID     string            `json:"id"`
	Labels map[string]string `json:"labels,omitempty"`
}

// Layer is a time-based annotation layer definition.
type Layer struct {
	ID          string            `json:"id"`
	Description string            `json:"description,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Tooltips    map[string]string `json:"tooltips,omitempty"`
	// Ranged: segments can span several frames (else a segment is a marker).
	Ranged bool `json:"ranged"`
	// Gaps: time ranges without a segment are allowed.
	Gaps bool `json:"gaps"`
	// Overlap: segments may overlap.
	Overlap bool `json:"overlap"`
	// Flags, e.g. indexed, readonly.
	Flags []string `json:"flags,omitempty"`
	// Attributes available on the layer.
	Attributes []Attribute `json:"attributes,omitempty"`
}

// AssetModel is the data model of an asset or asset type
// (datamodel:asset-model).
type AssetModel struct {
	// Attributes; their flags are those for this asset and the calling user.
	Attributes AttributeSet `json:"attributes"`
	// TimeBased are the annotation layers.
	TimeBased []Layer `json:"time-based,omitempty"`
	// Layout holds the three known layout kinds.
	Layout Layout `json:"layout"`
	// Raw is the whole resource as the API returned it.
	Raw json.RawMessage `json:"-"`
}

// Layout maps layout types to layouts.
type Layout struct {
	AttributeGroupLayout  []AttributeGroup `json:"attributeGroupLayout,omitempty"`
	SimpleTimeBasedLayout []LayerLayout    `json:"simpleTimeBasedLayout,omitempty"`
	VirtualLayersLayout   []VirtualLayer   `json:"virtualLayersLayout,omitempty"`
	// Raw is the layout map as returned, including other layout types.
	Raw json.RawMessage `json:"-"`
}

// AttributeGroup is a group of the attribute group layout.
type AttributeGroup struct {
	ID       string            `json:"id"`
	Labels   map[string]string `json:"labels,omitempty"`
	Tooltips map[string]string `json:"tooltips,omitempty"`
	Items    []LayoutItem      `json:"items,omitempty"`
}

// LayoutItem is a layout entry referring to an attribute.
type LayoutItem struct {
	// ID is the attribute id.
	ID string `json:"id"`
	// Common is true for a common attribute (false, null or missing: custom).
	Common bool `json:"-"`
	// Flags, e.g. multiline.
	Flags []string `json:"flags,omitempty"`
	// Options maps option names (default, value, defaultValue, restrictions,
	// readOnlyExpressionRule, visibilityExpressionRule, …) to their JSON,
	// kept as returned since expressions are recursive.
	Options map[string]json.RawMessage `json:"options,omitempty"`
	// Subitems are nested items.
	Subitems []LayoutItem `json:"subitems,omitempty"`
}

// LayerLayout is the simple time-based layout of one layer.
type LayerLayout struct {
	ID    string       `json:"id"`
	Items []LayoutItem `json:"items,omitempty"`
}

// VirtualLayer is a virtual layer defined by a combination of layers.
type VirtualLayer struct {
	ID       string   `json:"id"`
	LayerIDs []string `json:"layerids"`
}

// maxModelDepth is how deep a data model's JSON may nest: attributes nest through
// subattributes, and each level decodes its whole subtree once more (Attribute keeps
// its bytes), so the time grows with the depth times the size (4,990 levels in 145 KB
// took 6 s). The emulator's models nest 13 levels deep; at 32, the largest answer the
// client reads (8 MiB) nested to the limit decodes in under a second (0.87 s measured).
const maxModelDepth = 32

// errModelTooDeep refuses a data model that nests deeper than maxModelDepth.
var errModelTooDeep = fmt.Errorf("the data model nests deeper than %d levels", maxModelDepth)

// jsonDeeperThan reports whether the JSON text b nests objects and arrays deeper than
// limit, in one pass.
func jsonDeeperThan(b []byte, limit int) bool {
	depth, inString, escaped := 0, false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > limit {
				return true
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return false
}

// UnmarshalJSON reads the resource and keeps it in Raw.
func (m *SystemModel) UnmarshalJSON(b []byte) error {
	if jsonDeeperThan(b, maxModelDepth) {
		return errModelTooDeep
	}
	type plain SystemModel
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*m = SystemModel(p)
	m.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// UnmarshalJSON reads the resource and keeps it in Raw.
func (m *AssetModel) UnmarshalJSON(b []byte) error {
	if jsonDeeperThan(b, maxModelDepth) {
		return errModelTooDeep
	}
	type plain AssetModel
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*m = AssetModel(p)
	m.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// UnmarshalJSON reads the description and keeps it in Raw.
func (a *Attribute) UnmarshalJSON(b []byte) error {
	type plain Attribute
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*a = Attribute(p)
	a.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// UnmarshalJSON reads the type and keeps it in Raw; maxLength in any integer form
// (maybeInt).
func (t *AttributeType) UnmarshalJSON(b []byte) error {
	type plain AttributeType
	var w struct {
		plain
		MaxLength maybeInt `json:"maxLength"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*t = AttributeType(w.plain)
	t.MaxLength = w.MaxLength.ptr()
	t.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// UnmarshalJSON reads the options and keeps them in Raw.
func (o *AttributeOptions) UnmarshalJSON(b []byte) error {
	type plain AttributeOptions
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*o = AttributeOptions(p)
	o.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// UnmarshalJSON reads the layout and keeps it in Raw.
func (l *Layout) UnmarshalJSON(b []byte) error {
	type plain Layout
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*l = Layout(p)
	l.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// UnmarshalJSON reads an item; "common" may be true, false, null or missing.
func (i *LayoutItem) UnmarshalJSON(b []byte) error {
	type plain LayoutItem
	var w struct {
		plain
		Common *bool `json:"common"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*i = LayoutItem(w.plain)
	i.Common = w.Common != nil && *w.Common
	return nil
}

// MarshalJSON writes an item with "common" only when true.
func (i LayoutItem) MarshalJSON() ([]byte, error) {
	type plain LayoutItem
	var w struct {
		plain
		Common bool `json:"common,omitempty"`
	}
	w.plain, w.Common = plain(i), i.Common
	return json.Marshal(w)
}

// SystemModel reads the data model of a system through the registry's
// datamodel:system-model template. includeTimeBased asks for the time-based
// layers (insist=time-based; systems without them ignore it); lang is a BCP 47
// tag for labels ("" for the service default, en). An unknown system gives an
// error for which IsNotFound holds.
func (c *Client) SystemModel(ctx context.Context, systemType, systemID string, includeTimeBased bool, lang string) (*SystemModel, error) {
	if systemType == "" || systemID == "" {
		return nil, errors.New("system model: system type and system id are required")
	}
	vars := map[string]string{"systemType": systemType, "systemID": systemID, "lang": lang}
	if includeTimeBased {
		vars["insist"] = "time-based"
	}
	href, err := c.expand(ctx, relSystemModel, vars)
	if err != nil {
		return nil, err
	}
	var m SystemModel
	if _, err := c.do(ctx, &request{method: http.MethodGet, url: href, auth: authPlatform}, &m); err != nil {
		return nil, c.confirmSystemGone(ctx, System{SystemType: systemType, SystemID: systemID}, href, err)
	}
	return &m, nil
}

// confirmSystemGone checks a "gone" answer to a system model's read against the
// collection that holds the systems, the service registry's list (contract §0: a
// 404 proves nothing until the collection answers). A system the registry lists is
// there: the answer came from something that does not serve the registry's link (a
// gateway without the route, a service moved), and is an *AddressError, for which
// IsNotFound is false. Any other error, or a system the registry does not list, is
// returned as it is.
func (c *Client) confirmSystemGone(ctx context.Context, system System, href string, err error) error {
	if !IsNotFound(err) {
		return err
	}
	systems, serr := c.Systems(ctx)
	if serr != nil || !slices.Contains(systems, system) {
		return err
	}
	setting := "registry_url"
	if c.cfg.RegistryURL == "" {
		setting = "platform_url (with the registry's path)"
	}
	return &AddressError{Setting: setting, Address: href, Answered: answeredBy(err),
		Err: fmt.Errorf("%w; and the service registry lists system %s/%s at this address", err, system.SystemType, system.SystemID)}
}

// AssetModelByID reads the data model of one asset through the registry's
// datamodel:asset-model-by-id template. An unknown system or asset gives an
// error for which IsNotFound holds.
func (c *Client) AssetModelByID(ctx context.Context, systemType, systemID, assetID, lang string) (*AssetModel, error) {
	if assetID == "" {
		return nil, errors.New("asset model: asset id is required")
	}
	return c.assetModel(ctx, relAssetModelByID, map[string]string{
		"systemType": systemType, "systemID": systemID, "assetId": assetID, "lang": lang,
	})
}

// AssetModelByType reads the data model of an asset type through the
// registry's datamodel:asset-model-by-type template. An unknown system or
// type gives an error for which IsNotFound holds.
func (c *Client) AssetModelByType(ctx context.Context, systemType, systemID, assetType, lang string) (*AssetModel, error) {
	if assetType == "" {
		return nil, errors.New("asset model: asset type is required")
	}
	return c.assetModel(ctx, relAssetModelByType, map[string]string{
		"systemType": systemType, "systemID": systemID, "assetType": assetType, "lang": lang,
	})
}

func (c *Client) assetModel(ctx context.Context, rel string, vars map[string]string) (*AssetModel, error) {
	if vars["systemType"] == "" || vars["systemID"] == "" {
		return nil, errors.New("asset model: system type and system id are required")
	}
	href, err := c.expand(ctx, rel, vars)
	if err != nil {
		return nil, err
	}
	var m AssetModel
	if _, err := c.do(ctx, &request{method: http.MethodGet, url: href, auth: authPlatform}, &m); err != nil {
		return nil, err
	}
	return &m, nil
}
