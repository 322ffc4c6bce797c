package emulator

// Tests of the contract's sections E/F (data models) and R (service registry). They
// find every data-model address through the registry and expand its templates, as
// clients must.

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/yosida95/uritemplate/v3"
)

const (
	dmPAM = "interplay-pam"
	dmMAM = "interplay-mam"
)

// dmHarness is one emulator behind a test server, with tokens of the two platform
// users of the contract's section G.
type dmHarness struct {
	*emuTester
	alice  string
	viewer string

	once      sync.Once
	templates map[string]*uritemplate.Template
}

func newDMHarness(t *testing.T) *dmHarness {
	t.Helper()
	h := &dmHarness{emuTester: newEmuTester(t, Options{RenderDelay: -1})}
	h.alice = h.platformLogin(DefaultUserName, DefaultUserPassword)
	h.viewer = h.platformLogin(DefaultViewerName, DefaultViewerPassword)
	return h
}

// get sends GET target with the token as Bearer (none when token is empty).
func (h *dmHarness) get(target, token string) *emuResponse {
	h.t.Helper()
	return h.bearer(http.MethodGet, target, token)
}

func (h *dmHarness) registryURL() string { return h.srv.URL + "/apis/registry;version=0/serviceroots" }

// expand expands the registry template of rel with vars (a value of type
// []string is a list).
func (h *dmHarness) expand(rel string, vars map[string]any) string {
	h.t.Helper()
	h.once.Do(func() {
		doc := dmOK(h.t, h.get(h.registryURL(), h.alice))
		h.templates = map[string]*uritemplate.Template{}
		for name, entries := range emuObject(h.t, doc["resources"]) {
			href := emuString(h.t, emuObject(h.t, emuArray(h.t, entries)[0])["href"])
			tmpl, err := uritemplate.New(href)
			if err != nil {
				h.t.Errorf("registry %s: %q is not a URI template: %v", name, href, err)
				continue
			}
			h.templates[name] = tmpl
		}
	})
	tmpl, ok := h.templates[rel]
	if !ok {
		h.t.Fatalf("registry has no %s", rel)
	}
	values := uritemplate.Values{}
	for k, v := range vars {
		switch v := v.(type) {
		case string:
			values.Set(k, uritemplate.String(v))
		case []string:
			values.Set(k, uritemplate.List(v...))
		default:
			h.t.Fatalf("bad template value %T", v)
		}
	}
	s, err := tmpl.Expand(values)
	if err != nil {
		h.t.Fatalf("expand %s: %v", rel, err)
	}
	return s
}

func (h *dmHarness) systemModelURL(systemType, systemID string, query map[string]any) string {
	vars := map[string]any{"systemType": systemType, "systemID": systemID}
	maps.Copy(vars, query)
	return h.expand("datamodel:system-model", vars)
}

func (h *dmHarness) assetModelURL(systemType, systemID, assetID string) string {
	return h.expand("datamodel:asset-model-by-id", map[string]any{"systemType": systemType, "systemID": systemID, "assetId": assetID})
}

func (h *dmHarness) assetTypeModelURL(systemType, systemID, assetType string) string {
	return h.expand("datamodel:asset-model-by-type", map[string]any{"systemType": systemType, "systemID": systemID, "assetType": assetType})
}

// dmOK checks a 200 JSON or HAL response and decodes it.
func dmOK(t *testing.T, r *emuResponse) map[string]any {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("status %d, want 200: %s", r.status, r.body)
	}
	mt, _, err := mime.ParseMediaType(r.header.Get("Content-Type"))
	if err != nil || (mt != "application/json" && mt != "application/hal+json") {
		t.Fatalf("Content-Type %q, want application/json or application/hal+json", r.header.Get("Content-Type"))
	}
	return dmDecode(t, r.body)
}

func dmDecode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("body is not a JSON object: %v: %s", err, b)
	}
	return doc
}

// dmProblem checks a problem+json error and returns its params.
func dmProblem(t *testing.T, r *emuResponse, status int, code string) map[string]any {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
	if mt, _, _ := mime.ParseMediaType(r.header.Get("Content-Type")); mt != "application/problem+json" {
		t.Errorf("Content-Type %q, want application/problem+json", r.header.Get("Content-Type"))
	}
	doc := dmDecode(t, r.body)
	if doc["code"] != code || doc["status"] != float64(status) || emuString(t, doc["message"]) == "" {
		t.Errorf("problem %v, want code %s and status %d with a message", doc, code, status)
	}
	return emuObject(t, doc["params"])
}

func dmStrings(t *testing.T, v any) []string {
	t.Helper()
	var out []string
	for _, e := range emuArray(t, v) {
		out = append(out, emuString(t, e))
	}
	return out
}

// dmCultureMap checks a labels or tooltips map and returns its cultures.
func dmCultureMap(t *testing.T, where string, v any) []string {
	t.Helper()
	m := emuObject(t, v)
	if len(m) == 0 {
		t.Errorf("%s: empty culture map", where)
	}
	var cultures []string
	for c, s := range m {
		if c == "" || emuString(t, s) == "" {
			t.Errorf("%s: bad entry %q: %v", where, c, s)
		}
		cultures = append(cultures, c)
	}
	sort.Strings(cultures)
	return cultures
}

// dmByID indexes an array of objects by their id, keeping their order in ids.
func dmByID(t *testing.T, v any) (byID map[string]map[string]any, ids []string) {
	t.Helper()
	byID = map[string]map[string]any{}
	for _, e := range emuArray(t, v) {
		o := emuObject(t, e)
		id := emuString(t, o["id"])
		if _, dup := byID[id]; dup {
			t.Errorf("duplicate id %s", id)
		}
		byID[id] = o
		ids = append(ids, id)
	}
	return byID, ids
}

func dmFlags(t *testing.T, attr map[string]any) []string {
	t.Helper()
	if attr["flags"] == nil {
		return nil
	}
	return dmStrings(t, attr["flags"])
}

// attrSeen collects what the attribute descriptions of a model exercise.
type attrSeen struct {
	baseTypes, flags, cultures map[string]bool
	maxLength, multiValue      bool
	enOnly, frWithoutEn        bool
}

func newAttrSeen() *attrSeen {
	return &attrSeen{baseTypes: map[string]bool{}, flags: map[string]bool{}, cultures: map[string]bool{}}
}

// dmCheckAttribute checks an attribute description (spec F) and records what it
// exercises. systemModel selects the system-model form (appliesTo required, no
// options or subattributes) over the asset-model form.
func dmCheckAttribute(t *testing.T, where string, attr map[string]any, systemModel bool, seen *attrSeen) {
	t.Helper()
	where += "/" + emuString(t, attr["id"])
	known := map[string]bool{"id": true, "appliesTo": true, "description": true, "flags": true,
		"labels": true, "tooltips": true, "type": true, "subattributes": true, "options": true}
	for k := range attr {
		if !known[k] {
			t.Errorf("%s: unexpected property %s", where, k)
		}
	}
	if _, ok := attr["appliesTo"]; ok && !systemModel {
		t.Errorf("%s: appliesTo in an asset model", where)
	}
	if systemModel {
		for _, k := range []string{"options", "subattributes"} {
			if _, ok := attr[k]; ok {
				t.Errorf("%s: %s in the system model", where, k)
			}
		}
	}
	if attr["description"] != nil {
		emuString(t, attr["description"])
	}
	for _, f := range dmFlags(t, attr) {
		seen.flags[f] = true
	}
	if attr["labels"] != nil {
		cultures := dmCultureMap(t, where+" labels", attr["labels"])
		for _, c := range cultures {
			seen.cultures[c] = true
		}
		seen.enOnly = seen.enOnly || slices.Equal(cultures, []string{"en"})
		seen.frWithoutEn = seen.frWithoutEn || slices.Equal(cultures, []string{"fr", "fr-CA"})
	}
	if attr["tooltips"] != nil {
		dmCultureMap(t, where+" tooltips", attr["tooltips"])
	}
	typ := emuObject(t, attr["type"])
	base := emuString(t, typ["baseType"])
	seen.baseTypes[base] = true
	switch base {
	case "string", "int", "float", "datetime", "list", "thesaurus", "compound", "taxonomy":
	default:
		t.Errorf("%s: baseType %q", where, base)
	}
	if ml, ok := typ["maxLength"]; ok {
		seen.maxLength = true
		if n, isNum := ml.(float64); base != "string" || !isNum || n <= 0 {
			t.Errorf("%s: maxLength %v on %s", where, ml, base)
		}
	}
	if mv, ok := typ["multiValue"]; ok {
		if _, isBool := mv.(bool); !isBool {
			t.Errorf("%s: multiValue %v", where, mv)
		}
		seen.multiValue = seen.multiValue || mv == true
	}
	if lt, ok := typ["listType"]; ok && (base != "list" || emuString(t, lt) == "") {
		t.Errorf("%s: listType %v on %s", where, lt, base)
	}
	if base == "list" && typ["listType"] == nil {
		t.Errorf("%s: list without listType", where)
	}
}

func dmCheckLayer(t *testing.T, where string, layer map[string]any, systemModel bool) map[string]map[string]any {
	t.Helper()
	id := emuString(t, layer["id"])
	where += "/" + id
	emuString(t, layer["description"])
	dmCultureMap(t, where+" labels", layer["labels"])
	dmCultureMap(t, where+" tooltips", layer["tooltips"])
	for _, k := range []string{"ranged", "gaps", "overlap"} {
		if layer[k] != true {
			t.Errorf("%s: %s = %v, want true", where, k, layer[k])
		}
	}
	for _, f := range dmStrings(t, layer["flags"]) {
		if f != "indexed" && f != "readonly" {
			t.Errorf("%s: layer flag %s", where, f)
		}
	}
	attrs, ids := dmByID(t, layer["attributes"])
	want := []string{"comment", "color"}
	if id == "restrictions" {
		want = append(want, "modified")
	}
	if !slices.Equal(ids, want) {
		t.Errorf("%s: attributes %v, want %v", where, ids, want)
	}
	for _, a := range attrs {
		dmCheckAttribute(t, where, a, false, newAttrSeen())
		if _, ok := a["appliesTo"]; ok {
			t.Errorf("%s: layer attribute with appliesTo", where)
		}
		if systemModel && a["options"] != nil {
			t.Errorf("%s: layer attribute with options in the system model", where)
		}
	}
	for _, a := range []string{"comment", "color"} {
		if bt := emuObject(t, attrs[a]["type"])["baseType"]; bt != "string" {
			t.Errorf("%s/%s: baseType %v, want string", where, a, bt)
		}
	}
	if id == "restrictions" {
		m := attrs["modified"]
		if emuObject(t, m["type"])["baseType"] != "datetime" || !slices.Contains(dmFlags(t, m), "readonly") {
			t.Errorf("%s/modified: %v, want datetime and readonly", where, m)
		}
	}
	return attrs
}

var (
	dmPAMCommon = []string{"creator", "durationTC", "created", "modifier", "endTC", "description",
		"assetTypeLabel", "assetType", "duration", "path", "editRate", "name", "modified", "startTC"}
	dmAllAssetTypes = []string{"masterclip", "sequence", "subclip", "group", "motioneffect", "effect",
		"renderedeffect", "stereomasterclip", "stereosubclip", "archivedfile"}
	dmLayers = []string{"A1", "A2", "D1", "V1", "V2", "restrictions"}
)

func TestSystemModelPAM(t *testing.T) {
	t.Parallel()
	h := newDMHarness(t)
	target := h.systemModelURL(dmPAM, "pam-1", nil)
	r := h.get(target, h.alice)
	if mt, _, _ := mime.ParseMediaType(r.header.Get("Content-Type")); mt != "application/hal+json" {
		t.Errorf("Content-Type %q, want application/hal+json", r.header.Get("Content-Type"))
	}
	doc := dmOK(t, r)
	if got := slices.Sorted(maps.Keys(doc)); !slices.Equal(got, []string{"_links", "asset-types", "attributes", "base"}) {
		t.Errorf("properties %v", got)
	}
	dmCheckSystemLinks(t, doc, target)
	if !reflect.DeepEqual(doc["base"], map[string]any{"systemType": dmPAM, "systemID": "pam-1"}) {
		t.Errorf("base %v", doc["base"])
	}

	attrs := emuObject(t, doc["attributes"])
	seen := newAttrSeen()
	common, commonIDs := dmByID(t, attrs["common"])
	if !slices.Equal(commonIDs, dmPAMCommon) {
		t.Errorf("common %v, want %v", commonIDs, dmPAMCommon)
	}
	custom, _ := dmByID(t, attrs["custom"])
	appliesTo := map[string]bool{}
	for where, set := range map[string]map[string]map[string]any{"common": common, "custom": custom} {
		for _, a := range set {
			dmCheckAttribute(t, where, a, true, seen)
			rels := dmStrings(t, a["appliesTo"])
			if len(rels) == 0 {
				t.Errorf("%s/%s: empty appliesTo", where, a["id"])
			}
			for _, rel := range rels {
				if rel != "aa:asset" && rel != "loc:item" {
					t.Errorf("%s/%s: appliesTo %s", where, a["id"], rel)
				}
				appliesTo[rel] = true
			}
		}
	}
	if len(appliesTo) != 2 {
		t.Errorf("appliesTo values %v, want aa:asset and loc:item", appliesTo)
	}
	for _, bt := range []string{"string", "int", "float", "datetime", "list", "thesaurus", "compound", "taxonomy"} {
		if !seen.baseTypes[bt] {
			t.Errorf("no custom or common attribute of baseType %s", bt)
		}
	}
	for _, f := range []string{"readonly", "indexed", "mandatory", "editor", "experimental"} {
		if !seen.flags[f] {
			t.Errorf("no attribute flagged %s", f)
		}
	}
	for _, c := range []string{"en", "fr", "fr-CA", "de"} {
		if !seen.cultures[c] {
			t.Errorf("no label in culture %s", c)
		}
	}
	if !seen.maxLength || !seen.multiValue || !seen.enOnly || !seen.frWithoutEn {
		t.Errorf("maxLength %v, multiValue %v, en-only label %v, fr/fr-CA-only label %v: want all",
			seen.maxLength, seen.multiValue, seen.enOnly, seen.frWithoutEn)
	}
	// Values the other packages' tests rely on.
	if got := emuObject(t, custom["tapeName"]["labels"]); !reflect.DeepEqual(got, map[string]any{"fr": "Nom de la bande", "fr-CA": "Nom du ruban"}) {
		t.Errorf("tapeName labels %v", got)
	}
	if got := emuObject(t, custom["reelNumber"]["labels"]); !reflect.DeepEqual(got, map[string]any{"en": "Reel number"}) {
		t.Errorf("reelNumber labels %v", got)
	}
	if got := dmFlags(t, custom["status"]); !slices.Equal(got, []string{"mandatory", "indexed", "experimental"}) {
		t.Errorf("status flags %v", got)
	}

	types, typeIDs := dmByID(t, doc["asset-types"])
	if !slices.Equal(typeIDs, dmAllAssetTypes) {
		t.Errorf("asset-types %v, want %v", typeIDs, dmAllAssetTypes)
	}
	for id, at := range types {
		dmCultureMap(t, "asset type "+id, at["labels"])
	}
	if got := emuObject(t, types["masterclip"]["labels"]); got["fr-CA"] != "Clip maître" || got["de"] != "Masterclip" {
		t.Errorf("masterclip labels %v", got)
	}
}

func dmCheckSystemLinks(t *testing.T, doc map[string]any, self string) {
	t.Helper()
	ls := emuObject(t, doc["_links"])
	if got := slices.Sorted(maps.Keys(ls)); !slices.Equal(got, []string{"curies", "self"}) {
		t.Errorf("_links %v, want self and curies only", got)
	}
	if href := emuObject(t, ls["self"])["href"]; href != self {
		t.Errorf("self %v, want %s", href, self)
	}
	curies := emuArray(t, ls["curies"])
	if len(curies) == 0 {
		t.Fatal("no curies")
	}
	for _, c := range curies {
		c := emuObject(t, c)
		if emuString(t, c["name"]) == "" || !strings.Contains(emuString(t, c["href"]), "{rel}") || c["templated"] != true {
			t.Errorf("curie %v", c)
		}
	}
}

func TestSystemModelMAM(t *testing.T) {
	t.Parallel()
	h := newDMHarness(t)
	target := h.systemModelURL(dmMAM, "mam-1", nil)
	doc := dmOK(t, h.get(target, h.viewer))
	dmCheckSystemLinks(t, doc, target)
	if !reflect.DeepEqual(doc["base"], map[string]any{"systemType": dmMAM, "systemID": "mam-1"}) {
		t.Errorf("base %v", doc["base"])
	}
	attrs := emuObject(t, doc["attributes"])
	seen := newAttrSeen()
	common, commonIDs := dmByID(t, attrs["common"])
	if !slices.Equal(commonIDs, []string{"name", "modified"}) {
		t.Errorf("common %v, want name, modified", commonIDs)
	}
	custom, _ := dmByID(t, attrs["custom"])
	for _, a := range common {
		dmCheckAttribute(t, "common", a, true, seen)
	}
	for id, a := range custom {
		dmCheckAttribute(t, "custom", a, true, seen)
		if bt := emuObject(t, a["type"])["baseType"]; bt != "list" && bt != "compound" {
			t.Errorf("custom %s: baseType %v, want list (or the compound)", id, bt)
		}
	}
	if !seen.baseTypes["compound"] || !seen.multiValue || !seen.flags["experimental"] {
		t.Errorf("want a multi-value compound attribute and an unknown flag: %+v", seen)
	}
	_, typeIDs := dmByID(t, doc["asset-types"])
	if len(typeIDs) == 0 || !slices.Contains(typeIDs, "masterclip") {
		t.Errorf("asset-types %v", typeIDs)
	}
	if _, ok := doc["time-based"]; ok {
		t.Error("time-based without insist")
	}
}

func TestSystemModelTimeBased(t *testing.T) {
	t.Parallel()
	h := newDMHarness(t)

	plain := dmOK(t, h.get(h.systemModelURL(dmPAM, "pam-1", nil), h.alice))
	for _, insist := range []any{"time-based", []string{"other", "time-based"}} {
		target := h.systemModelURL(dmPAM, "pam-1", map[string]any{"insist": insist})
		doc := dmOK(t, h.get(target, h.alice))
		layers, ids := dmByID(t, doc["time-based"])
		if !slices.Equal(ids, dmLayers) {
			t.Fatalf("insist %v: layers %v, want %v", insist, ids, dmLayers)
		}
		for _, l := range layers {
			dmCheckLayer(t, "time-based", l, true)
		}
		if !slices.Contains(dmStrings(t, layers["D1"]["flags"]), "readonly") || !slices.Contains(dmStrings(t, layers["V1"]["flags"]), "indexed") {
			t.Errorf("layer flags: D1 %v, V1 %v", layers["D1"]["flags"], layers["V1"]["flags"])
		}
		// Nothing else changes.
		delete(doc, "time-based")
		delete(doc, "_links")
		want := maps.Clone(plain)
		delete(want, "_links")
		if !reflect.DeepEqual(doc, want) {
			t.Errorf("insist %v changed more than time-based", insist)
		}
	}
	other := dmOK(t, h.get(h.systemModelURL(dmPAM, "pam-1", map[string]any{"insist": "something-else"}), h.alice))
	if _, ok := other["time-based"]; ok {
		t.Error("time-based for an unrelated insist value")
	}

	// A system without time-based support ignores insist.
	mamPlain := dmOK(t, h.get(h.systemModelURL(dmMAM, "mam-1", nil), h.alice))
	mam := dmOK(t, h.get(h.systemModelURL(dmMAM, "mam-1", map[string]any{"insist": "time-based"}), h.alice))
	if _, ok := mam["time-based"]; ok {
		t.Error("mam-1 reports time-based")
	}
	delete(mam, "_links")
	delete(mamPlain, "_links")
	if !reflect.DeepEqual(mam, mamPlain) {
		t.Error("insist changed the mam-1 system model")
	}
}

func TestDataModelLang(t *testing.T) {
	t.Parallel()
	h := newDMHarness(t)
	plain := dmOK(t, h.get(h.systemModelURL(dmPAM, "pam-1", nil), h.alice))
	delete(plain, "_links")
	for _, lang := range []string{"en", "fr-CA", "de-DE", "zh-Hant-TW", "es-419"} {
		doc := dmOK(t, h.get(h.systemModelURL(dmPAM, "pam-1", map[string]any{"lang": lang}), h.alice))
		delete(doc, "_links")
		if !reflect.DeepEqual(doc, plain) {
			t.Errorf("lang %s changed the body; labels stay complete maps", lang)
		}
		dmOK(t, h.get(h.assetModelURL(dmPAM, "pam-1", "clip-1")+"?lang="+lang, h.alice))
	}
	for _, target := range []string{
		h.systemModelURL(dmPAM, "pam-1", map[string]any{"lang": "not a tag!"}),
		h.expand("datamodel:asset-model-by-id", map[string]any{"systemType": dmPAM, "systemID": "pam-1", "assetId": "clip-1", "lang": "en_US"}),
		h.expand("datamodel:asset-model-by-type", map[string]any{"systemType": dmMAM, "systemID": "mam-1", "assetType": "masterclip", "lang": "123456789"}),
	} {
		params := dmProblem(t, h.get(target, h.alice), http.StatusBadRequest, "datamodel/BAD_ARGUMENT")
		if params["field"] != "lang" {
			t.Errorf("%s: params %v, want field lang", target, params)
		}
	}
}

// dmAssetModel is a decoded asset model with its parts indexed.
type dmAssetModel struct {
	doc            map[string]any
	common, custom map[string]map[string]any
	layers         map[string]map[string]any
	layerIDs       []string
	layout         map[string]any
}

func dmCheckAssetModel(t *testing.T, doc map[string]any, self string) *dmAssetModel {
	t.Helper()
	if got := slices.Sorted(maps.Keys(doc)); !slices.Equal(got, []string{"_links", "attributes", "layout", "time-based"}) {
		t.Errorf("properties %v", got)
	}
	ls := emuObject(t, doc["_links"])
	if len(ls) != 1 || emuObject(t, ls["self"])["href"] != self {
		t.Errorf("_links %v, want self %s only", ls, self)
	}
	m := &dmAssetModel{doc: doc, layout: emuObject(t, doc["layout"])}
	attrs := emuObject(t, doc["attributes"])
	m.common, _ = dmByID(t, attrs["common"])
	m.custom, _ = dmByID(t, attrs["custom"])
	for where, set := range map[string]map[string]map[string]any{"common": m.common, "custom": m.custom} {
		for id, a := range set {
			dmCheckAttribute(t, where, a, false, newAttrSeen())
			dmCheckOptions(t, where+"/"+id, a)
			compound := emuObject(t, a["type"])["baseType"] == "compound"
			if _, ok := a["subattributes"]; ok != compound {
				t.Errorf("%s/%s: subattributes present %v, compound %v", where, id, ok, compound)
			}
			if compound {
				subs, _ := dmByID(t, a["subattributes"])
				for sid, s := range subs {
					dmCheckAttribute(t, where+"/"+id, s, false, newAttrSeen())
					dmCheckOptions(t, where+"/"+id+"/"+sid, s)
				}
			}
		}
	}
	m.layers, m.layerIDs = dmByID(t, doc["time-based"])
	for _, l := range m.layers {
		for id, a := range dmCheckLayer(t, "time-based", l, false) {
			dmCheckOptions(t, "time-based/"+emuString(t, l["id"])+"/"+id, a)
		}
	}
	if got := slices.Sorted(maps.Keys(m.layout)); !slices.Equal(got, []string{"attributeGroupLayout", "simpleTimeBasedLayout", "virtualLayersLayout"}) {
		t.Errorf("layout types %v", got)
	}
	return m
}

// dmCheckOptions checks that options {mandatory, readonly} agree with the flags.
func dmCheckOptions(t *testing.T, where string, attr map[string]any) {
	t.Helper()
	opts := emuObject(t, attr["options"])
	flags := dmFlags(t, attr)
	if opts["mandatory"] != slices.Contains(flags, "mandatory") || opts["readonly"] != slices.Contains(flags, "readonly") {
		t.Errorf("%s: options %v disagree with flags %v", where, opts, flags)
	}
}

func dmReadonly(t *testing.T, attr map[string]any) bool {
	t.Helper()
	return slices.Contains(dmFlags(t, attr), "readonly")
}

// layoutSeen collects what the layouts of a model exercise.
type layoutSeen struct {
	ops, kinds, options, itemFlags, restrictions map[string]bool
	common                                       map[string]bool // "true", "false", "null", "missing"
}

func newLayoutSeen() *layoutSeen {
	return &layoutSeen{ops: map[string]bool{}, kinds: map[string]bool{}, options: map[string]bool{},
		itemFlags: map[string]bool{}, restrictions: map[string]bool{}, common: map[string]bool{}}
}

// dmCheckExpression checks an expression (spec E) whose terms name attributes of
// known.
func dmCheckExpression(t *testing.T, where string, v any, known map[string]bool, depth int, seen *layoutSeen) {
	t.Helper()
	e := emuObject(t, v)
	for _, clause := range []string{"and", "or"} {
		if sub, ok := e[clause]; ok {
			if len(e) != 1 {
				t.Errorf("%s: %s clause with other properties: %v", where, clause, e)
			}
			seen.kinds[clause] = true
			if depth > 0 {
				seen.kinds["nested"] = true
			}
			subs := emuArray(t, sub)
			if len(subs) == 0 {
				t.Errorf("%s: empty %s", where, clause)
			}
			for _, s := range subs {
				dmCheckExpression(t, where, s, known, depth+1, seen)
			}
			return
		}
	}
	attr, op := emuString(t, e["attribute"]), emuString(t, e["op"])
	if !known[attr] {
		t.Errorf("%s: term on unknown attribute %s", where, attr)
	}
	seen.ops[op] = true
	value, hasValue := e["value"]
	values, hasValues := e["values"]
	switch {
	case hasValue && hasValues:
		t.Errorf("%s: term with value and values", where)
	case hasValues:
		seen.kinds["list"] = true
		dmStrings(t, values)
	case hasValue:
		seen.kinds["value"] = true
		if value == nil {
			seen.kinds["null"] = true
		} else {
			emuString(t, value)
		}
	default:
		seen.kinds["noargument"] = true
	}
	for k := range e {
		if k != "attribute" && k != "op" && k != "value" && k != "values" {
			t.Errorf("%s: unexpected term property %s", where, k)
		}
	}
}

var dmRestrictionBools = []string{"noCreateRows", "noDeleteRows", "noMoveRows"}

// dmCheckItems checks layout items against the attributes they refer to.
func dmCheckItems(t *testing.T, where string, items any, common, custom map[string]map[string]any, known map[string]bool, mam bool, seen *layoutSeen) {
	t.Helper()
	for _, it := range emuArray(t, items) {
		item := emuObject(t, it)
		id := emuString(t, item["id"])
		w := where + "/" + id
		isCommon := false
		switch c, ok := item["common"]; {
		case !ok:
			seen.common["missing"] = true
		case c == nil:
			seen.common["null"] = true
		case c == true:
			seen.common["true"] = true
			isCommon = true
		case c == false:
			seen.common["false"] = true
		default:
			t.Errorf("%s: common %v", w, c)
		}
		attr := custom[id]
		if isCommon {
			attr = common[id]
		}
		if attr == nil {
			t.Errorf("%s: no such attribute (common %v)", w, isCommon)
			continue
		}
		if item["flags"] != nil {
			for _, f := range dmStrings(t, item["flags"]) {
				seen.itemFlags[f] = true
			}
		}
		if item["options"] != nil {
			for k, v := range emuObject(t, item["options"]) {
				seen.options[k] = true
				switch k {
				case "default":
					if _, ok := emuObject(t, v)["value"]; !ok {
						t.Errorf("%s: default without value", w)
					}
				case "defaultValue":
					emuString(t, v)
				case "readOnlyExpressionRule", "visibilityExpressionRule":
					dmCheckExpression(t, w+" "+k, v, known, 0, seen)
				case "restrictions":
					if !mam || emuObject(t, attr["type"])["multiValue"] != true {
						t.Errorf("%s: restrictions on a single-value or non-asset-management attribute", w)
					}
					r := emuObject(t, v)
					for rk, rv := range r {
						seen.restrictions[rk] = true
						switch {
						case slices.Contains(dmRestrictionBools, rk):
							if _, ok := rv.(bool); !ok {
								t.Errorf("%s: %s = %v", w, rk, rv)
							}
						case slices.Contains(dmRestrictionBools, strings.TrimSuffix(rk, "Expression")):
							if r[strings.TrimSuffix(rk, "Expression")] == true {
								t.Errorf("%s: %s given while %s is true", w, rk, strings.TrimSuffix(rk, "Expression"))
							}
							dmCheckExpression(t, w+" "+rk, rv, known, 0, seen)
						default:
							t.Errorf("%s: unknown restriction %s", w, rk)
						}
					}
				default:
					t.Errorf("%s: unexpected option %s", w, k)
				}
			}
		}
		if subitems, ok := item["subitems"]; ok {
			subs, _ := dmByID(t, attr["subattributes"])
			subKnown := maps.Clone(known)
			for sid := range subs {
				subKnown[sid] = true
			}
			seen.options["subitems"] = true
			dmCheckItems(t, w, subitems, nil, subs, subKnown, mam, seen)
		}
	}
}

func dmCheckAttributeGroupLayout(t *testing.T, m *dmAssetModel, mam bool) (*layoutSeen, []string) {
	t.Helper()
	known := map[string]bool{}
	for id := range m.common {
		known[id] = true
	}
	for id := range m.custom {
		known[id] = true
	}
	seen := newLayoutSeen()
	groups, groupIDs := dmByID(t, m.layout["attributeGroupLayout"])
	for id, g := range groups {
		dmCultureMap(t, "group "+id+" labels", g["labels"])
		if g["tooltips"] != nil {
			dmCultureMap(t, "group "+id+" tooltips", g["tooltips"])
		}
		dmCheckItems(t, "group "+id, g["items"], m.common, m.custom, known, mam, seen)
	}
	return seen, groupIDs
}

func TestAssetModelPAM(t *testing.T) {
	t.Parallel()
	h := newDMHarness(t)
	target := h.assetModelURL(dmPAM, "pam-1", "clip-1")
	r := h.get(target, h.alice)
	m := dmCheckAssetModel(t, dmOK(t, r), target)

	// Attributes: those of the system model that apply to aa:asset.
	commonIDs := slices.Sorted(maps.Keys(m.common))
	if !slices.Equal(commonIDs, slices.Sorted(slices.Values(dmPAMCommon))) {
		t.Errorf("common %v", commonIDs)
	}
	if _, ok := m.custom["storageLocation"]; ok {
		t.Error("storageLocation applies to loc:item only but is in the asset model")
	}
	for _, id := range []string{"tapeName", "reelNumber", "audioLevel", "airDate", "category", "keywords", "credits", "subject", "status", "rating", "notes", "archiveId"} {
		if m.custom[id] == nil {
			t.Errorf("custom attribute %s missing", id)
		}
	}
	if _, ids := dmByID(t, m.custom["credits"]["subattributes"]); !slices.Equal(ids, []string{"role", "person"}) {
		t.Errorf("credits subattributes %v", ids)
	}
	if !slices.Equal(m.layerIDs, dmLayers) {
		t.Errorf("time-based %v, want %v", m.layerIDs, dmLayers)
	}

	seen, groups := dmCheckAttributeGroupLayout(t, m, false)
	if !slices.Equal(groups, []string{"general", "production", "credits", "technical"}) {
		t.Errorf("groups %v", groups)
	}
	for _, op := range []string{"isSet", "equals", "in"} {
		if !seen.ops[op] {
			t.Errorf("no expression uses %s", op)
		}
	}
	for _, k := range []string{"and", "or", "nested", "list", "value", "null", "noargument"} {
		if !seen.kinds[k] {
			t.Errorf("no expression of kind %s", k)
		}
	}
	for _, o := range []string{"default", "defaultValue", "readOnlyExpressionRule", "visibilityExpressionRule", "subitems"} {
		if !seen.options[o] {
			t.Errorf("no item with %s", o)
		}
	}
	if !seen.itemFlags["multiline"] || len(seen.common) != 4 {
		t.Errorf("item flags %v, common forms %v: want multiline and all four forms", seen.itemFlags, seen.common)
	}

	// One simple time-based layout entry per layer, in display order.
	var order []string
	for _, e := range emuArray(t, m.layout["simpleTimeBasedLayout"]) {
		e := emuObject(t, e)
		id := emuString(t, e["id"])
		order = append(order, id)
		layer := m.layers[id]
		if layer == nil {
			t.Errorf("simpleTimeBasedLayout: unknown layer %s", id)
			continue
		}
		attrs, _ := dmByID(t, layer["attributes"])
		known := map[string]bool{}
		for a := range attrs {
			known[a] = true
		}
		dmCheckItems(t, "simpleTimeBasedLayout/"+id, e["items"], nil, attrs, known, false, newLayoutSeen())
	}
	if !slices.Equal(order, []string{"V1", "V2", "A1", "A2", "D1", "restrictions"}) {
		t.Errorf("simpleTimeBasedLayout order %v", order)
	}

	virtual := map[string][]string{}
	for _, e := range emuArray(t, m.layout["virtualLayersLayout"]) {
		e := emuObject(t, e)
		ids := dmStrings(t, e["layerids"])
		for _, id := range ids {
			if m.layers[id] == nil {
				t.Errorf("virtual layer %v: unknown layer %s", e["id"], id)
			}
		}
		virtual[emuString(t, e["id"])] = ids
	}
	if !reflect.DeepEqual(virtual, map[string][]string{"markers": {"V1", "V2", "A1", "A2", "D1"}, "restrictions": {"restrictions"}}) {
		t.Errorf("virtualLayersLayout %v", virtual)
	}

	// The model of an asset is that of its type, unless the asset adds readonly flags.
	byType := dmOK(t, h.get(h.assetTypeModelURL(dmPAM, "pam-1", "masterclip"), h.alice))
	delete(byType, "_links")
	delete(m.doc, "_links")
	if !reflect.DeepEqual(byType, m.doc) {
		t.Error("clip-1 and masterclip differ")
	}
	for _, at := range dmAllAssetTypes {
		target := h.assetTypeModelURL(dmPAM, "pam-1", at)
		dmCheckAssetModel(t, dmOK(t, h.get(target, h.alice)), target)
	}
}

func TestAssetModelMAM(t *testing.T) {
	t.Parallel()
	h := newDMHarness(t)
	target := h.assetModelURL(dmMAM, "mam-1", "asset-1")
	m := dmCheckAssetModel(t, dmOK(t, h.get(target, h.alice)), target)
	if got := slices.Sorted(maps.Keys(m.common)); !slices.Equal(got, []string{"modified", "name"}) {
		t.Errorf("common %v", got)
	}
	if m.custom["shelf"] != nil {
		t.Error("shelf applies to loc:item only but is in the asset model")
	}
	if _, ids := dmByID(t, m.custom["rights"]["subattributes"]); !slices.Equal(ids, []string{"territory", "validFrom", "validUntil"}) {
		t.Errorf("rights subattributes %v", ids)
	}
	if len(m.layerIDs) != 0 || m.doc["time-based"] == nil {
		t.Errorf("time-based %v, want an empty array", m.doc["time-based"])
	}
	for _, k := range []string{"simpleTimeBasedLayout", "virtualLayersLayout"} {
		if len(emuArray(t, m.layout[k])) != 0 {
			t.Errorf("%s not empty", k)
		}
	}
	seen, groups := dmCheckAttributeGroupLayout(t, m, true)
	if !slices.Equal(groups, []string{"general", "classification", "rights"}) {
		t.Errorf("groups %v", groups)
	}
	for _, r := range []string{"noCreateRows", "noCreateRowsExpression", "noDeleteRows", "noDeleteRowsExpression", "noMoveRows", "noMoveRowsExpression"} {
		if !seen.restrictions[r] {
			t.Errorf("no item with restriction %s", r)
		}
	}
	if !seen.kinds["nested"] || !seen.ops["in"] || !seen.options["subitems"] {
		t.Errorf("kinds %v, ops %v, options %v", seen.kinds, seen.ops, seen.options)
	}
	for _, at := range []string{"masterclip", "sequence", "group", "archivedfile"} {
		target := h.assetTypeModelURL(dmMAM, "mam-1", at)
		dmCheckAssetModel(t, dmOK(t, h.get(target, h.alice)), target)
	}
}

// dmAllAttributes returns every attribute description of an asset model, nested
// ones included, keyed by a path.
func dmAllAttributes(t *testing.T, m *dmAssetModel) map[string]map[string]any {
	t.Helper()
	all := map[string]map[string]any{}
	for where, set := range map[string]map[string]map[string]any{"common": m.common, "custom": m.custom} {
		for id, a := range set {
			all[where+"/"+id] = a
			if a["subattributes"] != nil {
				subs, _ := dmByID(t, a["subattributes"])
				for sid, s := range subs {
					all[where+"/"+id+"/"+sid] = s
				}
			}
		}
	}
	for lid, l := range m.layers {
		attrs, _ := dmByID(t, l["attributes"])
		for id, a := range attrs {
			all["time-based/"+lid+"/"+id] = a
		}
	}
	return all
}

func TestAssetModelFlagsPerCaller(t *testing.T) {
	t.Parallel()
	h := newDMHarness(t)
	for _, tc := range []struct {
		target     string
		editable   []string // editable for an administrator
		readonly   []string // readonly for everybody
		mustRemain map[string][]string
	}{
		{
			target: h.assetModelURL(dmPAM, "pam-1", "clip-1"),
			editable: []string{"common/name", "common/description", "common/startTC", "custom/status", "custom/credits",
				"custom/credits/role", "custom/credits/person", "time-based/V1/comment", "time-based/restrictions/color"},
			readonly:   []string{"common/created", "common/path", "custom/archiveId", "time-based/restrictions/modified", "time-based/D1/comment"},
			mustRemain: map[string][]string{"common/name": {"mandatory", "indexed"}, "custom/status": {"mandatory", "indexed", "experimental"}},
		},
		{
			target:     h.assetTypeModelURL(dmMAM, "mam-1", "masterclip"),
			editable:   []string{"common/name", "custom/genre", "custom/rights", "custom/rights/territory", "custom/languages"},
			readonly:   []string{"common/modified", "custom/region"},
			mustRemain: map[string][]string{"custom/approvalStatus": {"mandatory", "experimental"}},
		},
	} {
		alice := dmAllAttributes(t, dmCheckAssetModel(t, dmOK(t, h.get(tc.target, h.alice)), tc.target))
		viewer := dmAllAttributes(t, dmCheckAssetModel(t, dmOK(t, h.get(tc.target, h.viewer)), tc.target))
		if !reflect.DeepEqual(slices.Sorted(maps.Keys(alice)), slices.Sorted(maps.Keys(viewer))) {
			t.Errorf("%s: alice and viewer see different attributes", tc.target)
		}
		for _, p := range tc.editable {
			if alice[p] == nil || dmReadonly(t, alice[p]) {
				t.Errorf("%s %s: want editable for alice: %v", tc.target, p, alice[p])
			}
		}
		for _, p := range tc.readonly {
			if alice[p] == nil || !dmReadonly(t, alice[p]) {
				t.Errorf("%s %s: want readonly for alice: %v", tc.target, p, alice[p])
			}
		}
		for p, a := range viewer {
			if !dmReadonly(t, a) || emuObject(t, a["options"])["readonly"] != true {
				t.Errorf("%s %s: want readonly for viewer: %v", tc.target, p, a)
			}
			// Only readonly is added; every other flag stays.
			want := dmFlags(t, alice[p])
			if !slices.Contains(want, "readonly") {
				want = append(want, "readonly")
			}
			if got := dmFlags(t, a); !slices.Equal(got, want) {
				t.Errorf("%s %s: viewer flags %v, want %v", tc.target, p, got, want)
			}
		}
		for p, flags := range tc.mustRemain {
			for _, f := range flags {
				if !slices.Contains(dmFlags(t, viewer[p]), f) {
					t.Errorf("%s %s: viewer lost flag %s", tc.target, p, f)
				}
			}
		}
	}

	// The system model is the aggregated model: the same for every caller.
	target := h.systemModelURL(dmPAM, "pam-1", map[string]any{"insist": "time-based"})
	if a, v := h.get(target, h.alice), h.get(target, h.viewer); string(a.body) != string(v.body) {
		t.Error("the system model depends on the caller")
	}
}

func TestAssetModelFlagsPerAsset(t *testing.T) {
	t.Parallel()
	h := newDMHarness(t)
	model := func(target string) map[string]map[string]any {
		return dmAllAttributes(t, dmCheckAssetModel(t, dmOK(t, h.get(target, h.alice)), target))
	}
	for _, tc := range []struct {
		target             string
		readonly, editable []string
	}{
		{h.assetTypeModelURL(dmPAM, "pam-1", "masterclip"), nil, []string{"common/startTC", "custom/tapeName", "custom/status"}},
		{h.assetTypeModelURL(dmPAM, "pam-1", "sequence"), []string{"custom/tapeName"}, []string{"common/startTC", "custom/status"}},
		{h.assetModelURL(dmPAM, "pam-1", "seq-1"), []string{"custom/tapeName", "custom/status"}, []string{"common/startTC", "common/name"}},
		{h.assetTypeModelURL(dmPAM, "pam-1", "subclip"), []string{"common/startTC", "custom/tapeName"}, []string{"custom/status"}},
		{h.assetTypeModelURL(dmMAM, "mam-1", "archivedfile"), []string{"common/name", "custom/rights", "custom/rights/territory", "custom/rights/validFrom"}, []string{"custom/approvalStatus"}},
	} {
		attrs := model(tc.target)
		for _, p := range tc.readonly {
			if attrs[p] == nil || !dmReadonly(t, attrs[p]) {
				t.Errorf("%s %s: want readonly: %v", tc.target, p, attrs[p])
			}
		}
		for _, p := range tc.editable {
			if attrs[p] == nil || dmReadonly(t, attrs[p]) {
				t.Errorf("%s %s: want editable: %v", tc.target, p, attrs[p])
			}
		}
	}
}

func TestDataModelNotFound(t *testing.T) {
	t.Parallel()
	h := newDMHarness(t)
	for _, tc := range []struct {
		target string
		params map[string]any
	}{
		{h.systemModelURL("interplay-xyz", "pam-1", nil), map[string]any{"systemType": "interplay-xyz", "systemID": "pam-1"}},
		{h.systemModelURL(dmPAM, "mam-1", map[string]any{"insist": "time-based"}), map[string]any{"systemType": dmPAM, "systemID": "mam-1"}},
		{h.assetModelURL(dmMAM, "pam-9", "asset-1"), map[string]any{"systemType": dmMAM, "systemID": "pam-9"}},
		{h.assetModelURL(dmPAM, "pam-1", "asset-1"), map[string]any{"systemType": dmPAM, "systemID": "pam-1", "assetId": "asset-1"}},
		{h.assetModelURL(dmMAM, "mam-1", "clip-1"), map[string]any{"systemType": dmMAM, "systemID": "mam-1", "assetId": "clip-1"}},
		{h.assetTypeModelURL(dmPAM, "pam-1", "clip"), map[string]any{"systemType": dmPAM, "systemID": "pam-1", "assetType": "clip"}},
		{h.assetTypeModelURL(dmMAM, "mam-1", "subclip"), map[string]any{"systemType": dmMAM, "systemID": "mam-1", "assetType": "subclip"}},
		{h.assetTypeModelURL("interplay-pam", "pam-2", "masterclip"), map[string]any{"systemType": dmPAM, "systemID": "pam-2"}},
	} {
		params := dmProblem(t, h.get(tc.target, h.alice), http.StatusNotFound, "datamodel/NOT_FOUND")
		if !reflect.DeepEqual(params, tc.params) {
			t.Errorf("%s: params %v, want %v", tc.target, params, tc.params)
		}
	}
	// Paths under the data-model service that are no resource.
	dmProblem(t, h.get(h.srv.URL+"/apis/datamodel;version=1;realm=global/systems/interplay-pam/pam-1", h.alice),
		http.StatusNotFound, "datamodel/NOT_FOUND")
}

func TestDataModelUnauthorized(t *testing.T) {
	t.Parallel()
	h := newDMHarness(t)
	targets := []string{
		h.registryURL(),
		h.systemModelURL(dmPAM, "pam-1", nil),
		h.systemModelURL("interplay-xyz", "nope", nil),
		h.assetModelURL(dmPAM, "pam-1", "clip-1"),
		h.assetTypeModelURL(dmMAM, "mam-1", "masterclip"),
	}
	for _, target := range targets {
		for _, token := range []string{"", "at-not-a-token"} {
			dmProblem(t, h.get(target, token), http.StatusUnauthorized, "auth/UNAUTHORIZED")
		}
	}
	// The cookie works as well as the header (contract B4).
	req := h.request(http.MethodGet, targets[1], nil)
	req.AddCookie(&http.Cookie{Name: "serviceAccessToken", Value: h.viewer})
	dmOK(t, h.send(req))
}

func TestDataModelFixtureAccessors(t *testing.T) {
	t.Parallel()
	h := newDMHarness(t)
	strip := func(doc map[string]any) map[string]any { delete(doc, "_links"); return doc }
	check := func(name string, fixture []byte, ok bool, served map[string]any) {
		t.Helper()
		if !ok {
			t.Fatalf("%s: no fixture", name)
		}
		if got := dmDecode(t, fixture); !reflect.DeepEqual(got, strip(served)) {
			t.Errorf("%s: fixture differs from what is served", name)
		}
	}
	for _, sys := range [][2]string{{dmPAM, "pam-1"}, {dmMAM, "mam-1"}} {
		b, ok := SystemModelFixture(sys[0], sys[1])
		check(sys[1], b, ok, dmOK(t, h.get(h.systemModelURL(sys[0], sys[1], map[string]any{"insist": "time-based"}), h.viewer)))
	}
	for _, admin := range []bool{true, false} {
		token := h.viewer
		if admin {
			token = h.alice
		}
		b, ok := AssetModelFixture(dmPAM, "pam-1", "seq-1", admin)
		check("seq-1", b, ok, dmOK(t, h.get(h.assetModelURL(dmPAM, "pam-1", "seq-1"), token)))
		b, ok = AssetTypeModelFixture(dmMAM, "mam-1", "group", admin)
		check("group", b, ok, dmOK(t, h.get(h.assetTypeModelURL(dmMAM, "mam-1", "group"), token)))
	}
	if _, ok := SystemModelFixture(dmPAM, "mam-1"); ok {
		t.Error("fixture for an unknown system")
	}
	if _, ok := AssetModelFixture(dmPAM, "pam-1", "asset-1", true); ok {
		t.Error("fixture for an unknown asset")
	}
	if _, ok := AssetTypeModelFixture(dmMAM, "mam-1", "subclip", true); ok {
		t.Error("fixture for an unknown asset type")
	}
}

// TestDataModelConcurrent interleaves administrator and viewer requests: the
// per-caller flags must never leak into the shared fixtures (run with -race).
func TestDataModelConcurrent(t *testing.T) {
	t.Parallel()
	h := newDMHarness(t)
	targets := []string{
		h.assetModelURL(dmPAM, "pam-1", "clip-1"),
		h.assetTypeModelURL(dmMAM, "mam-1", "masterclip"),
		h.systemModelURL(dmPAM, "pam-1", map[string]any{"insist": "time-based"}),
	}
	want := map[string]string{}
	for _, target := range targets {
		want[target] = string(h.get(target, h.alice).body)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 32 {
		wg.Go(func() {
			target := targets[i%len(targets)]
			token := h.alice
			if i%2 == 1 {
				token = h.viewer
			}
			req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, target, nil)
			if err != nil {
				errs <- err
				return
			}
			req.Header.Set("Authorization", "Bearer "+token)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				errs <- err
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				errs <- fmt.Errorf("%s: status %d", target, resp.StatusCode)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, target := range targets {
		if got := string(h.get(target, h.alice).body); got != want[target] {
			t.Errorf("%s: the administrator's model changed after concurrent requests", target)
		}
	}
}
