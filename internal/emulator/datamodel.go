package emulator

// Sections E and F of the contract: the data models. The emulator serves the two
// systems of the contract from embedded fixtures (fixtures/*.json): the system model
// (F) as stored, and asset models (E) derived from it per asset type, per asset and
// per caller.
//
// Decisions the contract leaves to the emulator:
//   - lang is validated as a BCP 47 tag with known subtags, as settings.lang of the
//     score API (400 datamodel/BAD_ARGUMENT with params.field "lang" otherwise), and
//     does not change the body: labels and tooltips are always complete culture maps,
//     and the client picks the culture (spec F, labels).
//   - insist is a comma-separated list (the parameter may also repeat); the value
//     time-based adds the time-based property where the system supports it, other
//     values are ignored.
//   - The asset model carries _links with self only ("no link relations").
//   - Layer attributes are attribute descriptions as in section E, without appliesTo,
//     in the system model too ("entries are layer definitions as in section E").
//   - In asset models every attribute description (subattributes and layer attributes
//     included) has options {mandatory, readonly}, matching its flags; a caller without
//     the administrator role sees every attribute readonly.

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"golang.org/x/text/language"
)

// datamodelPath is the prefix of the data-model resources on platform_url.
const datamodelPath = "/apis/datamodel;version=1;realm=global"

// Attribute flags with a meaning for the emulator.
const (
	flagReadonly  = "readonly"
	flagMandatory = "mandatory"
)

// relAsset is the appliesTo value of attributes that appear in asset models.
const relAsset = "aa:asset"

//go:embed fixtures/*.json
var modelFixtures embed.FS

// modelFixtureFiles lists the systems in the order the registry reports them.
var modelFixtureFiles = []string{
	"fixtures/interplay-pam.pam-1.json",
	"fixtures/interplay-mam.mam-1.json",
}

// attributeType is the type description of an attribute (spec F). Pointers keep
// "missing" apart from a zero value.
type attributeType struct {
	BaseType   string `json:"baseType"`
	MaxLength  *int   `json:"maxLength,omitempty"`
	MultiValue *bool  `json:"multiValue,omitempty"`
	ListType   string `json:"listType,omitempty"`
}

// attributeOptions are the per-attribute options of asset models (spec E).
type attributeOptions struct {
	Mandatory bool `json:"mandatory"`
	Readonly  bool `json:"readonly"`
}

// attributeDesc is an attribute description. AppliesTo appears in the system model
// only; Subattributes and Options in asset models only.
type attributeDesc struct {
	ID            string            `json:"id"`
	AppliesTo     []string          `json:"appliesTo,omitempty"`
	Description   string            `json:"description,omitempty"`
	Flags         []string          `json:"flags,omitempty"`
	Labels        map[string]string `json:"labels,omitempty"`
	Tooltips      map[string]string `json:"tooltips,omitempty"`
	Type          attributeType     `json:"type"`
	Subattributes []attributeDesc   `json:"subattributes,omitempty"`
	Options       *attributeOptions `json:"options,omitempty"`
}

type attributeSet struct {
	Common []attributeDesc `json:"common"`
	Custom []attributeDesc `json:"custom"`
}

// layerDef is a time-based layer definition (spec E).
type layerDef struct {
	ID          string            `json:"id"`
	Description string            `json:"description,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Tooltips    map[string]string `json:"tooltips,omitempty"`
	Ranged      bool              `json:"ranged"`
	Gaps        bool              `json:"gaps"`
	Overlap     bool              `json:"overlap"`
	Flags       []string          `json:"flags,omitempty"`
	Attributes  []attributeDesc   `json:"attributes"`
}

type systemBase struct {
	SystemType string `json:"systemType"`
	SystemID   string `json:"systemID"`
}

type assetTypeEntry struct {
	ID     string            `json:"id"`
	Labels map[string]string `json:"labels"`
}

// systemModelBody is the datamodel:system-model resource.
type systemModelBody struct {
	Links      map[string]any   `json:"_links,omitempty"`
	Base       systemBase       `json:"base"`
	Attributes attributeSet     `json:"attributes"`
	AssetTypes []assetTypeEntry `json:"asset-types"`
	TimeBased  []layerDef       `json:"time-based,omitempty"`
}

// assetModelBody is the datamodel:asset-model resource.
type assetModelBody struct {
	Links      map[string]any  `json:"_links,omitempty"`
	Attributes attributeSet    `json:"attributes"`
	TimeBased  []layerDef      `json:"time-based"`
	Layout     json.RawMessage `json:"layout"`
}

// systemFixture is one fixture file: the system model as served (with every layer
// of a system that supports time-based metadata) plus what asset models add.
type systemFixture struct {
	SystemModel systemModelBody `json:"systemModel"`
	// Assets maps an asset id to its type and the attributes that are readonly for
	// this asset beyond those of its type.
	Assets map[string]assetFixture `json:"assets"`
	// AssetTypeReadonly lists, per asset type, the attributes that are readonly for
	// assets of that type although the system model lets them be edited.
	AssetTypeReadonly map[string][]string `json:"assetTypeReadonly"`
	// Subattributes holds the sub-attribute descriptions of compound attributes.
	Subattributes map[string][]attributeDesc `json:"subattributes"`
	// Layout is the layout map of asset models, served as stored.
	Layout json.RawMessage `json:"layout"`
}

type assetFixture struct {
	AssetType string   `json:"assetType"`
	Readonly  []string `json:"readonly"`
}

// dataSystem is one parsed, immutable system. Nothing reachable from it is ever
// modified after loading, so handlers share it without locks.
type dataSystem struct {
	systemFixture
	assetTypes map[string]bool
}

// modelState holds the data-model systems, in registry order.
type modelState struct {
	systems []*dataSystem
}

// parsedModels parses the fixtures once per process: they are embedded and
// read-only, so all emulators share them.
var parsedModels = sync.OnceValue(func() []*dataSystem {
	systems := make([]*dataSystem, 0, len(modelFixtureFiles))
	for _, name := range modelFixtureFiles {
		s, err := parseSystemFixture(name)
		if err != nil {
			panic(fmt.Sprintf("emulator: broken data-model fixture %s: %v", name, err))
		}
		systems = append(systems, s)
	}
	return systems
})

func loadModels() modelState { return modelState{systems: parsedModels()} }

func parseSystemFixture(name string) (*dataSystem, error) {
	raw, err := modelFixtures.ReadFile(name)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	s := &dataSystem{}
	if err := dec.Decode(&s.systemFixture); err != nil {
		return nil, err
	}
	if s.SystemModel.Base.SystemType == "" || s.SystemModel.Base.SystemID == "" {
		return nil, errors.New("base.systemType and base.systemID are required")
	}
	var layout map[string]json.RawMessage
	if err := json.Unmarshal(s.Layout, &layout); err != nil {
		return nil, fmt.Errorf("layout: %w", err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, s.Layout); err != nil {
		return nil, fmt.Errorf("layout: %w", err)
	}
	s.Layout = compact.Bytes()

	s.assetTypes = map[string]bool{}
	for _, t := range s.SystemModel.AssetTypes {
		s.assetTypes[t.ID] = true
	}
	assetAttrs := map[string]attributeDesc{}
	for _, a := range s.allAttributes() {
		if len(a.AppliesTo) == 0 {
			return nil, fmt.Errorf("attribute %s: appliesTo is required", a.ID)
		}
		if slices.Contains(a.AppliesTo, relAsset) {
			assetAttrs[a.ID] = a
		}
	}
	checkIDs := func(where string, ids []string) error {
		for _, id := range ids {
			if _, ok := assetAttrs[id]; !ok {
				return fmt.Errorf("%s: %s is not an asset attribute", where, id)
			}
		}
		return nil
	}
	for id, a := range s.Assets {
		if !s.assetTypes[a.AssetType] {
			return nil, fmt.Errorf("asset %s: unknown asset type %s", id, a.AssetType)
		}
		if err := checkIDs("asset "+id, a.Readonly); err != nil {
			return nil, err
		}
	}
	for t, ids := range s.AssetTypeReadonly {
		if !s.assetTypes[t] {
			return nil, fmt.Errorf("assetTypeReadonly: unknown asset type %s", t)
		}
		if err := checkIDs("assetTypeReadonly "+t, ids); err != nil {
			return nil, err
		}
	}
	for id := range s.Subattributes {
		if a, ok := assetAttrs[id]; !ok || a.Type.BaseType != "compound" {
			return nil, fmt.Errorf("subattributes: %s is not a compound asset attribute", id)
		}
	}
	return s, nil
}

func (s *dataSystem) allAttributes() []attributeDesc {
	return slices.Concat(s.SystemModel.Attributes.Common, s.SystemModel.Attributes.Custom)
}

// system finds a system; nil when there is none.
func (m modelState) system(systemType, systemID string) *dataSystem {
	for _, s := range m.systems {
		if s.SystemModel.Base.SystemType == systemType && s.SystemModel.Base.SystemID == systemID {
			return s
		}
	}
	return nil
}

// systemModel returns the system model without _links. The result shares the
// fixture's slices and maps, which must only be read.
func (s *dataSystem) systemModel(timeBased bool) systemModelBody {
	body := s.SystemModel
	if !timeBased {
		body.TimeBased = nil
	}
	return body
}

// assetModel builds the asset model of an asset type, without _links. extraReadonly
// names the attributes readonly for the particular asset; admin tells whether the
// caller has the administrator role. Everything it returns that could differ from
// the fixture is freshly allocated.
func (s *dataSystem) assetModel(assetType string, extraReadonly []string, admin bool) assetModelBody {
	readonly := map[string]bool{}
	for _, id := range slices.Concat(s.AssetTypeReadonly[assetType], extraReadonly) {
		readonly[id] = true
	}
	convert := func(attrs []attributeDesc) []attributeDesc {
		out := make([]attributeDesc, 0, len(attrs))
		for _, a := range attrs {
			if !slices.Contains(a.AppliesTo, relAsset) {
				continue
			}
			ro := !admin || readonly[a.ID]
			d := assetAttribute(a, ro)
			for _, sub := range s.Subattributes[a.ID] {
				d.Subattributes = append(d.Subattributes, assetAttribute(sub, ro))
			}
			out = append(out, d)
		}
		return out
	}
	layers := make([]layerDef, 0, len(s.SystemModel.TimeBased))
	for _, l := range s.SystemModel.TimeBased {
		l.Flags = slices.Clone(l.Flags)
		attrs := make([]attributeDesc, 0, len(l.Attributes))
		for _, a := range l.Attributes {
			attrs = append(attrs, assetAttribute(a, !admin))
		}
		l.Attributes = attrs
		layers = append(layers, l)
	}
	return assetModelBody{
		Attributes: attributeSet{
			Common: convert(s.SystemModel.Attributes.Common),
			Custom: convert(s.SystemModel.Attributes.Custom),
		},
		TimeBased: layers,
		Layout:    s.Layout,
	}
}

// assetAttribute turns an attribute description into its asset-model form: no
// appliesTo, readonly added when forced, options derived from the flags.
func assetAttribute(a attributeDesc, readonly bool) attributeDesc {
	flags := slices.Clone(a.Flags)
	if readonly && !slices.Contains(flags, flagReadonly) {
		flags = append(flags, flagReadonly)
	}
	return attributeDesc{
		ID:          a.ID,
		Description: a.Description,
		Flags:       flags,
		Labels:      a.Labels,
		Tooltips:    a.Tooltips,
		Type:        a.Type,
		Options: &attributeOptions{
			Mandatory: slices.Contains(flags, flagMandatory),
			Readonly:  slices.Contains(flags, flagReadonly),
		},
	}
}

// SystemModelFixture returns the system model the emulator serves for a system
// (with the time-based layers when the system supports them, without _links), for
// tests that compare what a client reports with the fixtures.
func SystemModelFixture(systemType, systemID string) ([]byte, bool) {
	s := loadModels().system(systemType, systemID)
	if s == nil {
		return nil, false
	}
	return mustMarshal(s.systemModel(true)), true
}

// AssetModelFixture returns the asset model the emulator serves for an asset to a
// caller with (platformAdmin) or without the administrator role, without _links.
func AssetModelFixture(systemType, systemID, assetID string, platformAdmin bool) ([]byte, bool) {
	s := loadModels().system(systemType, systemID)
	if s == nil {
		return nil, false
	}
	a, ok := s.Assets[assetID]
	if !ok {
		return nil, false
	}
	return mustMarshal(s.assetModel(a.AssetType, a.Readonly, platformAdmin)), true
}

// AssetTypeModelFixture returns the asset model the emulator serves for an asset
// type to a caller with (platformAdmin) or without the administrator role, without
// _links.
func AssetTypeModelFixture(systemType, systemID, assetType string, platformAdmin bool) ([]byte, bool) {
	s := loadModels().system(systemType, systemID)
	if s == nil || !s.assetTypes[assetType] {
		return nil, false
	}
	return mustMarshal(s.assetModel(assetType, nil, platformAdmin)), true
}

func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func (e *Emulator) routeDataModel() {
	systemPath := datamodelPath + "/systems/{systemType}/{systemID}"
	e.handle("GET "+systemPath+"/model", e.withUser(e.handleSystemModel))
	e.handle("GET "+systemPath+"/assets/{assetId}/model", e.withUser(e.handleAssetModelByID))
	e.handle("GET "+systemPath+"/asset-types/{assetType}/model", e.withUser(e.handleAssetModelByType))
}

// modelRequest validates what every data-model request shares: lang and the system.
// On failure it writes the error and returns nil.
func (e *Emulator) modelRequest(w http.ResponseWriter, r *http.Request) *dataSystem {
	if lang := r.URL.Query().Get("lang"); !validModelLang(lang) {
		badArgument(w, "datamodel", "lang", fmt.Sprintf("lang %q is not a BCP 47 language tag", lang))
		return nil
	}
	systemType, systemID := r.PathValue("systemType"), r.PathValue("systemID")
	s := e.models.system(systemType, systemID)
	if s == nil {
		writeProblem(w, http.StatusNotFound, "datamodel", "NOT_FOUND",
			fmt.Sprintf("system %s/%s does not exist", systemType, systemID),
			map[string]any{"systemType": systemType, "systemID": systemID})
	}
	return s
}

// validModelLang accepts an empty value (the default, en) and a well-formed BCP 47
// tag with known subtags, as the score API does for settings.lang. The parser also
// takes '_' as a separator, which BCP 47 does not.
func validModelLang(tag string) bool {
	if tag == "" {
		return true
	}
	if strings.ContainsAny(tag, "_ ") {
		return false
	}
	_, err := language.Parse(tag)
	return err == nil
}

// insists reports whether the insist parameter (repeated or comma-separated)
// carries value.
func insists(r *http.Request, value string) bool {
	for _, v := range r.URL.Query()["insist"] {
		for _, part := range strings.Split(v, ",") {
			if strings.TrimSpace(part) == value {
				return true
			}
		}
	}
	return false
}

func (e *Emulator) handleSystemModel(w http.ResponseWriter, r *http.Request, _ *User) {
	s := e.modelRequest(w, r)
	if s == nil {
		return
	}
	base := baseURL(r)
	body := s.systemModel(insists(r, "time-based"))
	body.Links = map[string]any{
		"self": link{Href: base + r.URL.RequestURI()},
		"curies": []link{
			{Name: "datamodel", Href: base + "/docs/rels/{rel}", Templated: true},
			{Name: "aa", Href: base + "/docs/rels/aa/{rel}", Templated: true},
			{Name: "loc", Href: base + "/docs/rels/loc/{rel}", Templated: true},
		},
	}
	writeHAL(w, http.StatusOK, body)
}

func (e *Emulator) handleAssetModelByID(w http.ResponseWriter, r *http.Request, u *User) {
	s := e.modelRequest(w, r)
	if s == nil {
		return
	}
	id := r.PathValue("assetId")
	a, ok := s.Assets[id]
	if !ok {
		writeProblem(w, http.StatusNotFound, "datamodel", "NOT_FOUND",
			fmt.Sprintf("asset %q does not exist in system %s", id, s.SystemModel.Base.SystemID),
			map[string]any{"systemType": s.SystemModel.Base.SystemType, "systemID": s.SystemModel.Base.SystemID, "assetId": id})
		return
	}
	writeAssetModel(w, r, s.assetModel(a.AssetType, a.Readonly, u.PlatformAdmin))
}

func (e *Emulator) handleAssetModelByType(w http.ResponseWriter, r *http.Request, u *User) {
	s := e.modelRequest(w, r)
	if s == nil {
		return
	}
	t := r.PathValue("assetType")
	if !s.assetTypes[t] {
		writeProblem(w, http.StatusNotFound, "datamodel", "NOT_FOUND",
			fmt.Sprintf("asset type %q does not exist in system %s", t, s.SystemModel.Base.SystemID),
			map[string]any{"systemType": s.SystemModel.Base.SystemType, "systemID": s.SystemModel.Base.SystemID, "assetType": t})
		return
	}
	writeAssetModel(w, r, s.assetModel(t, nil, u.PlatformAdmin))
}

func writeAssetModel(w http.ResponseWriter, r *http.Request, body assetModelBody) {
	body.Links = map[string]any{"self": link{Href: baseURL(r) + r.URL.RequestURI()}}
	writeHAL(w, http.StatusOK, body)
}
