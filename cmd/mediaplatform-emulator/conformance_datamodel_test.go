package main

// Conformance, the registry and sections E/F of the contract: the data models.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/yosida95/uritemplate/v3"
)

// ---------------------------------------------------------------------------
// §R Registry, §E/F Data models

func TestConformanceRegistry(t *testing.T) {
	t.Parallel()
	e := startEmulator(t)
	tok := e.token(t, "viewer")
	u := e.PlatformURL + "/apis/registry;version=0/serviceroots"
	root := e.do(t, http.MethodGet, u, nil, cookie(tok)...).want(t, http.StatusOK).obj(t)
	res := objOf(root["resources"])
	wantVars := map[string][]string{
		"datamodel:system-model":        {"systemType", "systemID", "insist", "lang"},
		"datamodel:asset-model-by-id":   {"systemType", "systemID", "assetId", "lang"},
		"datamodel:asset-model-by-type": {"systemType", "systemID", "assetType", "lang"},
		"command:command-by-id":         {"id"},
	}
	for rel, vars := range wantVars {
		entries := arr(res[rel])
		if len(entries) == 0 {
			t.Errorf("resources[%q] = %v, want an array", rel, res[rel])
			continue
		}
		entry := objOf(entries[0])
		href := str(entry["href"])
		if entry["templated"] != true {
			t.Errorf("%s: templated = %v", rel, entry["templated"])
		}
		tmpl, err := uritemplate.New(href)
		if err != nil {
			t.Errorf("%s: href %q is not an RFC 6570 template: %v", rel, href, err)
			continue
		}
		got := tmpl.Varnames()
		slices.Sort(got)
		slices.Sort(vars)
		if !slices.Equal(got, vars) {
			t.Errorf("%s: template variables %v, want %v", rel, got, vars)
		}
		expanded, _ := tmpl.Expand(uritemplate.Values{})
		e.absoluteOn(t, expanded)
		if strings.HasPrefix(rel, "datamodel:") {
			var systems []string
			for _, s := range arr(entry["systems"]) {
				systems = append(systems, str(at(s, "systemType"))+"/"+str(at(s, "systemID")))
			}
			slices.Sort(systems)
			if !slices.Equal(systems, []string{"interplay-mam/mam-1", "interplay-pam/pam-1"}) {
				t.Errorf("%s: systems %v, want both systems", rel, entry["systems"])
			}
		}
	}
	// Templates expand to followable addresses.
	e.do(t, http.MethodGet, e.template(t, "datamodel:system-model", map[string]string{"systemType": "interplay-pam", "systemID": "pam-1"}), nil, bearer(tok)...).want(t, http.StatusOK)
	e.do(t, http.MethodGet, u, nil).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
}

var pamCommon = []string{"creator", "durationTC", "created", "modifier", "endTC", "description", "assetTypeLabel",
	"assetType", "duration", "path", "editRate", "name", "modified", "startTC"}

var assetTypes = []string{"masterclip", "sequence", "subclip", "group", "motioneffect", "effect", "renderedeffect",
	"stereomasterclip", "stereosubclip", "archivedfile"}

var pamLayers = []string{"A1", "A2", "D1", "V1", "V2", "restrictions"}

// checkLocalized checks a map culture code → string.
func checkLocalized(t *testing.T, what string, v any, required bool) {
	t.Helper()
	if v == nil && !required {
		return
	}
	m := objOf(v)
	if m == nil || (required && len(m) == 0) {
		t.Errorf("%s = %#v, want a map culture code → string", what, v)
	}
	for k, s := range m {
		if _, ok := s.(string); !ok || k == "" {
			t.Errorf("%s[%q] = %#v", what, k, s)
		}
	}
}

func stringList(v any) ([]string, bool) {
	a, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(a))
	for _, x := range a {
		s, ok := x.(string)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// checkAttribute checks one attribute description; system says whether appliesTo is
// required (system model) or absent (asset model).
func checkAttribute(t *testing.T, where string, a any, system bool) {
	t.Helper()
	m := objOf(a)
	id := str(m["id"])
	if id == "" {
		t.Errorf("%s: attribute without id: %v", where, a)
		return
	}
	where += "." + id
	applies, ok := stringList(m["appliesTo"])
	if system && (!ok || len(applies) == 0) {
		t.Errorf("%s: appliesTo = %v, want a non-empty array of strings", where, m["appliesTo"])
	}
	if !system && has(m, "appliesTo") {
		t.Errorf("%s: asset-model attribute carries appliesTo", where)
	}
	if has(m, "flags") {
		if _, ok := stringList(m["flags"]); !ok {
			t.Errorf("%s: flags = %v, want an array of strings", where, m["flags"])
		}
	}
	if has(m, "description") {
		if _, ok := m["description"].(string); !ok {
			t.Errorf("%s: description = %v", where, m["description"])
		}
	}
	checkLocalized(t, where+".labels", m["labels"], false)
	checkLocalized(t, where+".tooltips", m["tooltips"], false)
	typ := objOf(m["type"])
	if !slices.Contains([]string{"string", "int", "float", "datetime", "list", "thesaurus", "compound", "taxonomy"}, str(typ["baseType"])) {
		t.Errorf("%s: type = %v, want a known baseType", where, m["type"])
	}
	if has(typ, "multiValue") {
		if _, ok := typ["multiValue"].(bool); !ok {
			t.Errorf("%s: multiValue = %v", where, typ["multiValue"])
		}
	}
	if has(typ, "maxLength") {
		if n, ok := num(typ["maxLength"]); !ok || n < 1 {
			t.Errorf("%s: maxLength = %v", where, typ["maxLength"])
		}
	}
	for _, sub := range arr(m["subattributes"]) {
		checkAttribute(t, where, sub, system)
	}
}

func attrIDs(v any) []string {
	var out []string
	for _, a := range arr(v) {
		out = append(out, str(at(a, "id")))
	}
	return out
}

func flagsOf(a any) []string {
	f, _ := stringList(at(a, "flags"))
	return f
}

// checkLayers checks the production system's layer definitions. Layer attributes
// are section E attribute descriptions (no appliesTo) in both models: the system
// model's time-based entries are "layer definitions as in section E".
func checkLayers(t *testing.T, where string, v any) {
	t.Helper()
	layers := arr(v)
	var ids []string
	for _, l := range layers {
		m := objOf(l)
		id := str(m["id"])
		ids = append(ids, id)
		if _, ok := m["description"].(string); !ok {
			t.Errorf("%s layer %s: description = %v", where, id, m["description"])
		}
		checkLocalized(t, where+" layer "+id+" labels", m["labels"], true)
		checkLocalized(t, where+" layer "+id+" tooltips", m["tooltips"], false)
		if m["ranged"] != true || m["gaps"] != true || m["overlap"] != true {
			t.Errorf("%s layer %s: ranged/gaps/overlap = %v/%v/%v, want true", where, id, m["ranged"], m["gaps"], m["overlap"])
		}
		if _, ok := stringList(m["flags"]); !ok {
			t.Errorf("%s layer %s: flags = %v, want an array of strings", where, id, m["flags"])
		}
		attrs := map[string]map[string]any{}
		for _, a := range arr(m["attributes"]) {
			checkAttribute(t, where+" layer "+id, a, false)
			attrs[str(at(a, "id"))] = objOf(a)
		}
		for _, name := range []string{"comment", "color"} {
			if at(attrs[name], "type", "baseType") != "string" {
				t.Errorf("%s layer %s: attribute %s = %v, want a string attribute", where, id, name, attrs[name])
			}
		}
		if id == "restrictions" {
			mod := attrs["modified"]
			if at(mod, "type", "baseType") != "datetime" || !slices.Contains(flagsOf(mod), "readonly") {
				t.Errorf("%s layer restrictions: modified = %v, want datetime, readonly", where, mod)
			}
		}
	}
	got, want := slices.Sorted(slices.Values(ids)), slices.Sorted(slices.Values(pamLayers))
	if !slices.Equal(got, want) {
		t.Errorf("%s: layers %v, want %v", where, ids, pamLayers)
	}
}

// exprStats collects what expressions use.
type exprStats struct {
	ops, clauses map[string]bool
}

// checkExpr checks an expression (spec section E) recursively.
func (s *exprStats) checkExpr(t *testing.T, where string, v any) {
	t.Helper()
	m := objOf(v)
	switch {
	case m == nil:
		t.Errorf("%s: expression %#v is not an object", where, v)
	case has(m, "and") || has(m, "or"):
		for _, k := range []string{"and", "or"} {
			if has(m, k) {
				s.clauses[k] = true
				subs, ok := m[k].([]any)
				if !ok || len(subs) == 0 || len(m) != 1 {
					t.Errorf("%s: %s clause %v", where, k, m)
				}
				for _, sub := range subs {
					s.checkExpr(t, where, sub)
				}
			}
		}
	default:
		op := str(m["op"])
		if str(m["attribute"]) == "" || op == "" {
			t.Errorf("%s: term %v without attribute or op", where, m)
		}
		s.ops[op] = true
		switch op {
		case "isSet":
		case "equals":
			if _, ok := m["value"].(string); !ok && m["value"] != nil {
				t.Errorf("%s: equals term %v: value is not a string", where, m)
			}
		case "in":
			if _, ok := stringList(m["values"]); !ok {
				t.Errorf("%s: in term %v: values is not an array of strings", where, m)
			}
		}
	}
}

// checkLayout checks an asset model's layout map and collects expression use.
func (s *exprStats) checkLayout(t *testing.T, where string, model map[string]any, pam bool) {
	t.Helper()
	layout := objOf(model["layout"])
	if layout == nil {
		t.Errorf("%s: layout = %v, want a map", where, model["layout"])
		return
	}
	for k := range layout {
		if !slices.Contains([]string{"attributeGroupLayout", "simpleTimeBasedLayout", "virtualLayersLayout"}, k) {
			t.Errorf("%s: unknown layout type %q", where, k)
		}
	}
	common := map[string]map[string]any{}
	custom := map[string]map[string]any{}
	for _, a := range arr(at(model, "attributes", "common")) {
		common[str(at(a, "id"))] = objOf(a)
	}
	for _, a := range arr(at(model, "attributes", "custom")) {
		custom[str(at(a, "id"))] = objOf(a)
	}
	var checkItem func(where string, item any, attrs map[string]map[string]any)
	checkItem = func(where string, item any, attrs map[string]map[string]any) {
		m := objOf(item)
		id := str(m["id"])
		if id == "" {
			t.Errorf("%s: item without id: %v", where, item)
			return
		}
		isCommon := m["common"] == true
		if attrs != nil {
			pool := custom
			if isCommon {
				pool = common
			}
			if pool[id] == nil {
				t.Errorf("%s: item %q (common %v) names no attribute of the model", where, id, isCommon)
			}
		}
		if has(m, "flags") {
			if _, ok := stringList(m["flags"]); !ok {
				t.Errorf("%s: item %s flags = %v", where, id, m["flags"])
			}
		}
		opts := objOf(m["options"])
		for _, k := range []string{"readOnlyExpressionRule", "visibilityExpressionRule"} {
			if has(opts, k) {
				s.checkExpr(t, where+" item "+id+" "+k, opts[k])
			}
		}
		if r, ok := opts["restrictions"]; ok {
			s.clauses["restrictions"] = true
			attr := common[id]
			if attr == nil {
				attr = custom[id]
			}
			if at(attr, "type", "multiValue") != true {
				t.Errorf("%s: restrictions on %q, which is not a multi-value attribute", where, id)
			}
			if pam {
				t.Errorf("%s: row restrictions in the production management system", where)
			}
			rm := objOf(r)
			for _, k := range []string{"noCreateRows", "noDeleteRows", "noMoveRows"} {
				if has(rm, k) {
					if _, ok := rm[k].(bool); !ok {
						t.Errorf("%s: restrictions.%s = %v", where, k, rm[k])
					}
				}
				if has(rm, k+"Expression") {
					if rm[k] == true {
						t.Errorf("%s: restrictions carry both %s true and %sExpression", where, k, k)
					}
					s.checkExpr(t, where+" restrictions "+k+"Expression", rm[k+"Expression"])
				}
			}
		}
		for _, sub := range arr(m["subitems"]) {
			checkItem(where+" item "+id, sub, nil)
		}
	}
	for _, g := range arr(layout["attributeGroupLayout"]) {
		gid := str(at(g, "id"))
		if gid == "" {
			t.Errorf("%s: group without id: %v", where, g)
		}
		checkLocalized(t, where+" group "+gid+" labels", at(g, "labels"), false)
		for _, item := range arr(at(g, "items")) {
			checkItem(where+" group "+gid, item, common)
		}
	}
	if pam {
		var ids []string
		for _, l := range arr(layout["simpleTimeBasedLayout"]) {
			ids = append(ids, str(at(l, "id")))
			if _, ok := at(l, "items").([]any); !ok {
				t.Errorf("%s: simpleTimeBasedLayout entry %v without items", where, l)
			}
			for _, item := range arr(at(l, "items")) {
				checkItem(where+" layer "+str(at(l, "id")), item, nil)
			}
		}
		slices.Sort(ids)
		if want := slices.Sorted(slices.Values(pamLayers)); !slices.Equal(ids, want) {
			t.Errorf("%s: simpleTimeBasedLayout layers %v, want %v", where, ids, want)
		}
		var virt []string
		for _, v := range arr(layout["virtualLayersLayout"]) {
			virt = append(virt, str(at(v, "id")))
			lids, ok := stringList(at(v, "layerids"))
			if !ok || len(lids) == 0 {
				t.Errorf("%s: virtual layer %v without layerids", where, v)
			}
			for _, id := range lids {
				if !slices.Contains(pamLayers, id) {
					t.Errorf("%s: virtual layer %v names unknown layer %q", where, at(v, "id"), id)
				}
			}
		}
		slices.Sort(virt)
		if !slices.Equal(virt, []string{"markers", "restrictions"}) {
			t.Errorf("%s: virtual layers %v, want markers and restrictions", where, virt)
		}
	}
}

func TestConformanceDataModel(t *testing.T) {
	t.Parallel()
	e := startEmulator(t)
	alice, viewer := e.token(t, "alice"), e.token(t, "viewer")
	systemModel := func(t *testing.T, tok, typ, id string, extra map[string]string) *reply {
		t.Helper()
		vars := map[string]string{"systemType": typ, "systemID": id}
		for k, v := range extra {
			vars[k] = v
		}
		return e.do(t, http.MethodGet, e.template(t, "datamodel:system-model", vars), nil, bearer(tok)...)
	}
	assetModel := func(t *testing.T, tok, rel string, vars map[string]string) *reply {
		t.Helper()
		return e.do(t, http.MethodGet, e.template(t, rel, vars), nil, bearer(tok)...)
	}

	t.Run("system model pam", func(t *testing.T) {
		t.Parallel()
		r := systemModel(t, alice, "interplay-pam", "pam-1", nil).want(t, http.StatusOK)
		m := r.obj(t)
		if at(m, "base", "systemType") != "interplay-pam" || at(m, "base", "systemID") != "pam-1" {
			t.Errorf("base = %v", m["base"])
		}
		selfLink(t, m["_links"])
		for _, c := range linkArray(t, m["_links"], "curies") {
			if str(c["name"]) == "" || c["templated"] != true {
				t.Errorf("curie %v, want name, href, templated", c)
			}
		}
		for _, a := range arr(at(m, "attributes", "common")) {
			checkAttribute(t, "pam common", a, true)
		}
		for _, a := range arr(at(m, "attributes", "custom")) {
			checkAttribute(t, "pam custom", a, true)
		}
		common := attrIDs(at(m, "attributes", "common"))
		for _, id := range pamCommon {
			if !slices.Contains(common, id) {
				t.Errorf("pam common attributes %v lack %s", common, id)
			}
		}
		if len(arr(at(m, "attributes", "custom"))) == 0 {
			t.Error("pam has no custom attributes")
		}
		var types []string
		for _, typ := range arr(m["asset-types"]) {
			types = append(types, str(at(typ, "id")))
			checkLocalized(t, "asset type "+str(at(typ, "id"))+" labels", at(typ, "labels"), true)
		}
		if !slices.Equal(slices.Sorted(slices.Values(types)), slices.Sorted(slices.Values(assetTypes))) {
			t.Errorf("asset-types %v, want %v", types, assetTypes)
		}
		if has(m, "time-based") {
			t.Errorf("time-based present without insist")
		}
		tb := systemModel(t, alice, "interplay-pam", "pam-1", map[string]string{"insist": "time-based"}).want(t, http.StatusOK).obj(t)
		checkLayers(t, "pam system model", tb["time-based"])
		for _, lang := range []string{"en", "fr", "de-DE"} {
			systemModel(t, alice, "interplay-pam", "pam-1", map[string]string{"lang": lang}).want(t, http.StatusOK)
		}
		systemModel(t, alice, "interplay-pam", "pam-1", map[string]string{"lang": "not a language"}).problem(t, http.StatusBadRequest, "datamodel/BAD_ARGUMENT", "lang")
		// The aggregated model is the same for every user.
		if v := systemModel(t, viewer, "interplay-pam", "pam-1", map[string]string{"insist": "time-based"}).want(t, http.StatusOK); !jsonEqual(v.obj(t), tb) {
			t.Errorf("the viewer's system model differs from alice's")
		}
	})

	t.Run("system model mam", func(t *testing.T) {
		t.Parallel()
		m := systemModel(t, alice, "interplay-mam", "mam-1", nil).want(t, http.StatusOK).obj(t)
		if at(m, "base", "systemType") != "interplay-mam" || at(m, "base", "systemID") != "mam-1" {
			t.Errorf("base = %v", m["base"])
		}
		selfLink(t, m["_links"])
		linkArray(t, m["_links"], "curies")
		for _, a := range arr(at(m, "attributes", "common")) {
			checkAttribute(t, "mam common", a, true)
		}
		common := attrIDs(at(m, "attributes", "common"))
		if !slices.Contains(common, "name") || !slices.Contains(common, "modified") {
			t.Errorf("mam common attributes %v, want name and modified", common)
		}
		lists := 0
		for _, a := range arr(at(m, "attributes", "custom")) {
			checkAttribute(t, "mam custom", a, true)
			if at(a, "type", "baseType") == "list" {
				lists++
			}
		}
		if lists == 0 {
			t.Errorf("mam custom attributes have no list types: %v", at(m, "attributes", "custom"))
		}
		// Time-based metadata is not supported: insist is ignored.
		tb := systemModel(t, alice, "interplay-mam", "mam-1", map[string]string{"insist": "time-based"}).want(t, http.StatusOK).obj(t)
		if has(tb, "time-based") {
			t.Errorf("mam returned time-based %v", tb["time-based"])
		}
	})

	t.Run("system model not found", func(t *testing.T) {
		t.Parallel()
		for _, s := range [][2]string{{"interplay-pam", "pam-2"}, {"interplay-xyz", "pam-1"}, {"interplay-mam", "pam-1"}, {"interplay-pam", "mam-1"}} {
			systemModel(t, alice, s[0], s[1], nil).problem(t, http.StatusNotFound, "datamodel/NOT_FOUND", "")
		}
	})

	t.Run("asset models", func(t *testing.T) {
		t.Parallel()
		stats := &exprStats{ops: map[string]bool{}, clauses: map[string]bool{}}
		type model struct {
			rel  string
			vars map[string]string
			pam  bool
		}
		var models []model
		for _, id := range []string{"clip-1", "seq-1"} {
			models = append(models, model{"datamodel:asset-model-by-id", map[string]string{"systemType": "interplay-pam", "systemID": "pam-1", "assetId": id}, true})
		}
		models = append(models, model{"datamodel:asset-model-by-id", map[string]string{"systemType": "interplay-mam", "systemID": "mam-1", "assetId": "asset-1"}, false})
		for _, typ := range assetTypes {
			models = append(models, model{"datamodel:asset-model-by-type", map[string]string{"systemType": "interplay-pam", "systemID": "pam-1", "assetType": typ}, true})
		}
		for _, md := range models {
			where := fmt.Sprint(md.vars)
			m := assetModel(t, alice, md.rel, md.vars).want(t, http.StatusOK).obj(t)
			// "No link relations": as in the system model, only self and curies.
			if has(m, "_links") {
				selfLink(t, m["_links"])
			}
			for rel := range objOf(m["_links"]) {
				if rel != "self" && rel != "curies" {
					t.Errorf("%s: asset model has link relation %q", where, rel)
				}
			}
			for _, part := range []string{"common", "custom"} {
				if _, ok := at(m, "attributes", part).([]any); !ok {
					t.Errorf("%s: attributes.%s = %v, want an array", where, part, at(m, "attributes", part))
				}
				for _, a := range arr(at(m, "attributes", part)) {
					checkAttribute(t, where+" "+part, a, false)
				}
			}
			if md.pam {
				checkLayers(t, where, m["time-based"])
			} else if tb := arr(m["time-based"]); len(tb) > 0 {
				t.Errorf("%s: mam asset has layers %v", where, tb)
			}
			stats.checkLayout(t, where, m, md.pam)

			// Flags are those of the calling user.
			v := assetModel(t, viewer, md.rel, md.vars).want(t, http.StatusOK).obj(t)
			editable := 0
			for _, part := range []string{"common", "custom"} {
				byID := map[string]any{}
				for _, a := range arr(at(v, "attributes", part)) {
					byID[str(at(a, "id"))] = a
				}
				for _, a := range arr(at(m, "attributes", part)) {
					id := str(at(a, "id"))
					va, ok := byID[id]
					if !ok {
						t.Errorf("%s: the viewer's model lacks %s attribute %s", where, part, id)
						continue
					}
					if !slices.Contains(flagsOf(a), "readonly") {
						editable++
					}
					if !slices.Contains(flagsOf(va), "readonly") {
						t.Errorf("%s: %s attribute %s is not readonly for the viewer (flags %v)", where, part, id, flagsOf(va))
					}
					for _, f := range flagsOf(a) {
						if !slices.Contains(flagsOf(va), f) {
							t.Errorf("%s: %s attribute %s: alice's flag %s missing for the viewer", where, part, id, f)
						}
					}
				}
			}
			if editable == 0 {
				t.Errorf("%s: no attribute is editable for alice (administrator role)", where)
			}
			// Layer attributes are attribute descriptions too.
			for i, l := range arr(m["time-based"]) {
				for j, a := range arr(at(l, "attributes")) {
					va := at(v, "time-based", i, "attributes", j)
					if at(va, "id") != at(a, "id") {
						t.Errorf("%s: the viewer's layer %v attributes differ", where, at(l, "id"))
						continue
					}
					if !slices.Contains(flagsOf(va), "readonly") {
						t.Errorf("%s: layer %v attribute %v is not readonly for the viewer (alice: %v, viewer: %v)",
							where, at(l, "id"), at(a, "id"), flagsOf(a), flagsOf(va))
					}
				}
			}
		}
		for _, op := range []string{"isSet", "equals", "in"} {
			if !stats.ops[op] {
				t.Errorf("no layout expression uses op %s (seen %v)", op, stats.ops)
			}
		}
		for _, c := range []string{"and", "or", "restrictions"} {
			if !stats.clauses[c] {
				t.Errorf("no layout uses %s (seen %v)", c, stats.clauses)
			}
		}
	})

	t.Run("asset models not found", func(t *testing.T) {
		t.Parallel()
		for _, md := range []struct {
			rel  string
			vars map[string]string
		}{
			{"datamodel:asset-model-by-id", map[string]string{"systemType": "interplay-pam", "systemID": "pam-1", "assetId": "clip-9"}},
			{"datamodel:asset-model-by-id", map[string]string{"systemType": "interplay-pam", "systemID": "pam-1", "assetId": "asset-1"}},
			{"datamodel:asset-model-by-id", map[string]string{"systemType": "interplay-mam", "systemID": "mam-1", "assetId": "clip-1"}},
			{"datamodel:asset-model-by-id", map[string]string{"systemType": "interplay-pam", "systemID": "pam-9", "assetId": "clip-1"}},
			{"datamodel:asset-model-by-type", map[string]string{"systemType": "interplay-pam", "systemID": "pam-1", "assetType": "teapot"}},
			{"datamodel:asset-model-by-type", map[string]string{"systemType": "interplay-xyz", "systemID": "pam-1", "assetType": "sequence"}},
		} {
			assetModel(t, alice, md.rel, md.vars).problem(t, http.StatusNotFound, "datamodel/NOT_FOUND", "")
		}
		assetModel(t, alice, "datamodel:asset-model-by-id", map[string]string{"systemType": "interplay-pam", "systemID": "pam-1", "assetId": "clip-1", "lang": "??"}).
			problem(t, http.StatusBadRequest, "datamodel/BAD_ARGUMENT", "lang")
	})
}

func jsonEqual(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}
