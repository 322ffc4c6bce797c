package provider

// The protocol harness's reading of HCL: a configuration as the acceptance tests write
// it, decoded against the provider's schemas as Terraform decodes it, into the values
// the plugin protocol carries.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// parseBody parses HCL source as the acceptance tests write it.
func parseBody(t *testing.T, src string) *hclsyntax.Body {
	t.Helper()
	file, diags := hclsyntax.ParseConfig([]byte(src), "main.tf", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("parsing the configuration: %s\n%s", diags.Error(), src)
	}
	body, ok := file.Body.(*hclsyntax.Body)
	if !ok {
		t.Fatalf("parsing the configuration: a body of type %T", file.Body)
	}
	return body
}

// bodyValue is body, an HCL body as the acceptance tests write a block's arguments
// (`score_url = "x"`, lists, objects, null, nested blocks such as timeouts), as a
// value of schema's type: every argument the body leaves out is null. The
// diagnostics are Terraform's checks of the body.
func bodyValue(t *testing.T, schema *tfprotov6.Schema, body string) (*tfprotov6.DynamicValue, []*tfprotov6.Diagnostic) {
	t.Helper()
	v, diags := decodeBody(t, schema.Block, parseBody(t, body), nil)
	return dynamicValue(t, schema, v), diags
}

// dynamicValue encodes v, a value of schema's type, for the protocol.
func dynamicValue(t *testing.T, schema *tfprotov6.Schema, v tftypes.Value) *tfprotov6.DynamicValue {
	t.Helper()
	dv, err := tfprotov6.NewDynamicValue(schema.ValueType(), v)
	if err != nil {
		t.Fatal(err)
	}
	return &dv
}

// decodeBody decodes body against block as Terraform does: each argument evaluated
// without variables or functions, each nested block decoded in turn, and every
// attribute the body leaves out null. Its diagnostics are Terraform's: an argument or
// block the schema lacks, a computed attribute set, a required argument missing, a
// value of the wrong type, too few or too many blocks.
func decodeBody(t *testing.T, block *tfprotov6.SchemaBlock, body *hclsyntax.Body, path *tftypes.AttributePath) (tftypes.Value, []*tfprotov6.Diagnostic) {
	t.Helper()
	var diags []*tfprotov6.Diagnostic
	fail := func(at *tftypes.AttributePath, summary, detail string, args ...any) {
		diags = append(diags, &tfprotov6.Diagnostic{
			Severity: tfprotov6.DiagnosticSeverityError, Summary: summary, Detail: fmt.Sprintf(detail, args...), Attribute: at,
		})
	}
	values := map[string]tftypes.Value{}
	for _, a := range block.Attributes {
		at := path.WithAttributeName(a.Name)
		expr, set := body.Attributes[a.Name]
		if !set {
			if a.Required {
				fail(at, "Missing required argument", "The argument %q is required, but no definition was found.", a.Name)
			}
			values[a.Name] = tftypes.NewValue(a.ValueType(), nil)
			continue
		}
		if a.Computed && !a.Optional && !a.Required {
			fail(at, "Value for unconfigurable attribute",
				"Can't configure a value for %q: its value will be decided automatically based on the result of applying this configuration.", a.Name)
		}
		v, err := attributeValue(a, evaluate(t, expr.Expr))
		if err != nil {
			fail(at, "Incorrect attribute value type", "Inappropriate value for attribute %q: %s.", a.Name, err)
			v = tftypes.NewValue(a.ValueType(), nil)
		}
		values[a.Name] = v
	}
	for name := range body.Attributes {
		if !slices.ContainsFunc(block.Attributes, func(a *tfprotov6.SchemaAttribute) bool { return a.Name == name }) {
			fail(path.WithAttributeName(name), "Unsupported argument", "An argument named %q is not expected here.", name)
		}
	}
	for _, nb := range body.Blocks {
		if !slices.ContainsFunc(block.BlockTypes, func(s *tfprotov6.SchemaNestedBlock) bool { return s.TypeName == nb.Type }) {
			fail(path.WithAttributeName(nb.Type), "Unsupported block type", "Blocks of type %q are not expected here.", nb.Type)
		}
	}
	for _, s := range block.BlockTypes {
		at := path.WithAttributeName(s.TypeName)
		var elems []tftypes.Value
		for _, nb := range body.Blocks {
			if nb.Type != s.TypeName {
				continue
			}
			if len(nb.Labels) > 0 {
				t.Fatalf("this case needs Terraform: a labelled %s block", nb.Type)
			}
			elemPath := at
			if s.Nesting == tfprotov6.SchemaNestedBlockNestingModeList {
				elemPath = at.WithElementKeyInt(len(elems))
			}
			v, d := decodeBody(t, s.Block, nb.Body, elemPath)
			diags = append(diags, d...)
			elems = append(elems, v)
		}
		if s.MinItems > 0 && int64(len(elems)) < s.MinItems {
			fail(at, "Insufficient "+s.TypeName+" blocks", "At least %d %q blocks are required.", s.MinItems, s.TypeName)
		}
		if s.MaxItems > 0 && int64(len(elems)) > s.MaxItems {
			fail(at, "Too many "+s.TypeName+" blocks", "No more than %d %q blocks are allowed.", s.MaxItems, s.TypeName)
		}
		objType := s.Block.ValueType()
		switch s.Nesting {
		case tfprotov6.SchemaNestedBlockNestingModeSingle, tfprotov6.SchemaNestedBlockNestingModeGroup:
			switch {
			case len(elems) > 1:
				fail(at, "Duplicate "+s.TypeName+" block", "Only one %q block is allowed.", s.TypeName)
				values[s.TypeName] = elems[0]
			case len(elems) == 1:
				values[s.TypeName] = elems[0]
			case s.Nesting == tfprotov6.SchemaNestedBlockNestingModeGroup:
				values[s.TypeName], _ = decodeBody(t, s.Block, &hclsyntax.Body{}, at)
			default:
				values[s.TypeName] = tftypes.NewValue(objType, nil)
			}
		case tfprotov6.SchemaNestedBlockNestingModeList:
			values[s.TypeName] = tftypes.NewValue(tftypes.List{ElementType: objType}, elems)
		case tfprotov6.SchemaNestedBlockNestingModeSet:
			values[s.TypeName] = tftypes.NewValue(tftypes.Set{ElementType: objType}, elems)
		default:
			t.Fatalf("this case needs Terraform: %s blocks of nesting %s", s.TypeName, s.Nesting)
		}
	}
	return tftypes.NewValue(block.ValueType(), values), diags
}

// evaluate is the value of an argument's expression evaluated with no variables and
// no functions, decoded from its JSON form (numbers as json.Number). An expression
// that needs either fails the test: the case needs Terraform.
func evaluate(t *testing.T, expr hclsyntax.Expression) any {
	t.Helper()
	v, diags := expr.Value(nil)
	if diags.HasErrors() {
		t.Fatalf("this case needs Terraform: %s", diags.Error())
	}
	if !v.IsWhollyKnown() {
		t.Fatalf("this case needs Terraform: the value at %s is not known", expr.Range())
	}
	src, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		t.Fatalf("this case needs Terraform: %s: %v", expr.Range(), err)
	}
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		t.Fatal(err)
	}
	return x
}

// attributeValue converts x, a decoded JSON value, to a's type as Terraform converts
// an argument: nested attributes by their own attributes (missing optional ones null,
// missing required ones an error), the rest by type (jsonValue).
func attributeValue(a *tfprotov6.SchemaAttribute, x any) (tftypes.Value, error) {
	if a.NestedType == nil || x == nil {
		return jsonValue(a.ValueType(), x)
	}
	obj := a.NestedType
	objType := nestedObjectType(obj)
	switch obj.Nesting {
	case tfprotov6.SchemaObjectNestingModeSingle:
		return nestedObjectValue(obj, x)
	case tfprotov6.SchemaObjectNestingModeList, tfprotov6.SchemaObjectNestingModeSet:
		items, ok := x.([]any)
		if !ok {
			return tftypes.Value{}, errors.New("a list is required")
		}
		elems := make([]tftypes.Value, len(items))
		for i, item := range items {
			v, err := nestedObjectValue(obj, item)
			if err != nil {
				return tftypes.Value{}, fmt.Errorf("element %d: %w", i, err)
			}
			elems[i] = v
		}
		if obj.Nesting == tfprotov6.SchemaObjectNestingModeSet {
			return tftypes.NewValue(tftypes.Set{ElementType: objType}, elems), nil
		}
		return tftypes.NewValue(tftypes.List{ElementType: objType}, elems), nil
	case tfprotov6.SchemaObjectNestingModeMap:
		items, ok := x.(map[string]any)
		if !ok {
			return tftypes.Value{}, errors.New("a map is required")
		}
		elems := make(map[string]tftypes.Value, len(items))
		for k, item := range items {
			v, err := nestedObjectValue(obj, item)
			if err != nil {
				return tftypes.Value{}, fmt.Errorf("element %q: %w", k, err)
			}
			elems[k] = v
		}
		return tftypes.NewValue(tftypes.Map{ElementType: objType}, elems), nil
	}
	return tftypes.Value{}, fmt.Errorf("nesting %s is not supported", obj.Nesting)
}

// nestedObjectValue converts x to an object of obj's attributes.
func nestedObjectValue(obj *tfprotov6.SchemaObject, x any) (tftypes.Value, error) {
	if x == nil {
		return tftypes.NewValue(nestedObjectType(obj), nil), nil
	}
	m, ok := x.(map[string]any)
	if !ok {
		return tftypes.Value{}, errors.New("object required")
	}
	values := map[string]tftypes.Value{}
	for _, a := range obj.Attributes {
		item, set := m[a.Name]
		if !set && a.Required {
			return tftypes.Value{}, fmt.Errorf("attribute %q is required", a.Name)
		}
		v, err := attributeValue(a, item)
		if err != nil {
			return tftypes.Value{}, fmt.Errorf("attribute %q: %w", a.Name, err)
		}
		values[a.Name] = v
	}
	for name := range m {
		if !slices.ContainsFunc(obj.Attributes, func(a *tfprotov6.SchemaAttribute) bool { return a.Name == name }) {
			return tftypes.Value{}, fmt.Errorf("unsupported attribute %q", name)
		}
	}
	return tftypes.NewValue(nestedObjectType(obj), values), nil
}

// nestedObjectType is the type of one object of obj (its ValueType is the type of
// the list, set or map of them).
func nestedObjectType(obj *tfprotov6.SchemaObject) tftypes.Object {
	types := make(map[string]tftypes.Type, len(obj.Attributes))
	for _, a := range obj.Attributes {
		types[a.Name] = a.ValueType()
	}
	return tftypes.Object{AttributeTypes: types}
}

// jsonValue converts x, a decoded JSON value (numbers as json.Number), to a value of
// typ, with Terraform's conversions between strings, numbers and bools; the missing
// attributes of an object are null. A dynamic type takes the type x has.
func jsonValue(typ tftypes.Type, x any) (tftypes.Value, error) {
	if x == nil {
		return tftypes.NewValue(typ, nil), nil
	}
	switch {
	case typ.Is(tftypes.DynamicPseudoType):
		return jsonValue(impliedType(x), x)
	case typ.Is(tftypes.String):
		switch x := x.(type) {
		case string:
			return tftypes.NewValue(typ, x), nil
		case json.Number:
			return tftypes.NewValue(typ, x.String()), nil
		case bool:
			return tftypes.NewValue(typ, strconv.FormatBool(x)), nil
		}
		return tftypes.Value{}, errors.New("string required")
	case typ.Is(tftypes.Number):
		var s string
		switch x := x.(type) {
		case json.Number:
			s = x.String()
		case string:
			s = x
		default:
			return tftypes.Value{}, errors.New("number required")
		}
		f, _, err := big.ParseFloat(s, 10, 512, big.ToNearestEven)
		if err != nil {
			return tftypes.Value{}, fmt.Errorf("a number is required, got %q", s)
		}
		return tftypes.NewValue(typ, f), nil
	case typ.Is(tftypes.Bool):
		switch x := x.(type) {
		case bool:
			return tftypes.NewValue(typ, x), nil
		case string:
			if b, err := strconv.ParseBool(x); err == nil && (x == "true" || x == "false") {
				return tftypes.NewValue(typ, b), nil
			}
		}
		return tftypes.Value{}, errors.New("bool required")
	}
	switch typ := typ.(type) {
	case tftypes.List, tftypes.Set, tftypes.Tuple:
		items, ok := x.([]any)
		if !ok {
			return tftypes.Value{}, errors.New("a list is required")
		}
		elems := make([]tftypes.Value, len(items))
		for i, item := range items {
			elemType := tftypes.Type(nil)
			switch typ := typ.(type) {
			case tftypes.List:
				elemType = typ.ElementType
			case tftypes.Set:
				elemType = typ.ElementType
			case tftypes.Tuple:
				if i >= len(typ.ElementTypes) {
					return tftypes.Value{}, fmt.Errorf("a tuple of %d elements is required", len(typ.ElementTypes))
				}
				elemType = typ.ElementTypes[i]
			}
			v, err := jsonValue(elemType, item)
			if err != nil {
				return tftypes.Value{}, fmt.Errorf("element %d: %w", i, err)
			}
			elems[i] = v
		}
		return tftypes.NewValue(typ, elems), nil
	case tftypes.Map:
		items, ok := x.(map[string]any)
		if !ok {
			return tftypes.Value{}, errors.New("a map is required")
		}
		elems := make(map[string]tftypes.Value, len(items))
		for k, item := range items {
			v, err := jsonValue(typ.ElementType, item)
			if err != nil {
				return tftypes.Value{}, fmt.Errorf("element %q: %w", k, err)
			}
			elems[k] = v
		}
		return tftypes.NewValue(typ, elems), nil
	case tftypes.Object:
		items, ok := x.(map[string]any)
		if !ok {
			return tftypes.Value{}, errors.New("object required")
		}
		attrs := make(map[string]tftypes.Value, len(typ.AttributeTypes))
		for name, attrType := range typ.AttributeTypes {
			v, err := jsonValue(attrType, items[name])
			if err != nil {
				return tftypes.Value{}, fmt.Errorf("attribute %q: %w", name, err)
			}
			attrs[name] = v
		}
		for name := range items {
			if _, ok := typ.AttributeTypes[name]; !ok {
				return tftypes.Value{}, fmt.Errorf("unsupported attribute %q", name)
			}
		}
		return tftypes.NewValue(typ, attrs), nil
	}
	return tftypes.Value{}, fmt.Errorf("values of type %s are not supported", typ)
}

// impliedType is the type a decoded JSON value has: strings, numbers, bools, tuples
// and objects.
func impliedType(x any) tftypes.Type {
	switch x := x.(type) {
	case string:
		return tftypes.String
	case json.Number:
		return tftypes.Number
	case bool:
		return tftypes.Bool
	case []any:
		types := make([]tftypes.Type, len(x))
		for i, item := range x {
			types[i] = impliedType(item)
		}
		return tftypes.Tuple{ElementTypes: types}
	case map[string]any:
		types := make(map[string]tftypes.Type, len(x))
		for k, item := range x {
			types[k] = impliedType(item)
		}
		return tftypes.Object{AttributeTypes: types}
	}
	return tftypes.DynamicPseudoType
}

// TestProtocolHarness_bodyValue: a body as the acceptance tests write it becomes a
// value of the schema's type, every attribute it leaves out null, nested attributes
// and blocks included; Terraform's own checks of a body are diagnostics.
func TestProtocolHarness_bodyValue(t *testing.T) {
	t.Parallel()
	schemas := testSchemas(t)
	auth := schemas.ResourceSchemas["mediaplatform_external_authentication"]
	dv, diags := bodyValue(t, auth, `domain_name = "CORP"
  enabled = true
  deletion_policy = null
  servers = [{ address = "dc1.example", port = 389 }, { address = "dc2.example", port = "636", enabled = false }]`)
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	got, err := dv.Unmarshal(auth.ValueType())
	if err != nil {
		t.Fatal(err)
	}
	server := tftypes.NewAttributePath().WithAttributeName("servers").WithElementKeyInt(1)
	for _, c := range []struct {
		path *tftypes.AttributePath
		want string
	}{
		{tftypes.NewAttributePath().WithAttributeName("domain_name"), `tftypes.String<"CORP">`},
		{tftypes.NewAttributePath().WithAttributeName("enabled"), `tftypes.Bool<"true">`},
		{tftypes.NewAttributePath().WithAttributeName("deletion_policy"), `tftypes.String<null>`},
		{server.WithAttributeName("port"), `tftypes.Number<"636">`},
		{server.WithAttributeName("enabled"), `tftypes.Bool<"false">`},
		{tftypes.NewAttributePath().WithAttributeName("servers").WithElementKeyInt(0).WithAttributeName("enabled"), `tftypes.Bool<null>`},
	} {
		v, _, err := tftypes.WalkAttributePath(got, c.path)
		if err != nil {
			t.Errorf("%s: %v", c.path, err)
			continue
		}
		if s := fmt.Sprint(v); s != c.want {
			t.Errorf("%s = %s, want %s", c.path, s, c.want)
		}
	}

	score := schemas.ResourceSchemas["mediaplatform_score"]
	dv, diags = bodyValue(t, score, "score_url = \"https://cdn.example/a.sib\"\n  timeouts {\n    create = \"5m\"\n  }")
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	if got, err = dv.Unmarshal(score.ValueType()); err != nil {
		t.Fatal(err)
	}
	create, _, err := tftypes.WalkAttributePath(got, tftypes.NewAttributePath().WithAttributeName("timeouts").WithAttributeName("create"))
	if err != nil || fmt.Sprint(create) != `tftypes.String<"5m">` {
		t.Errorf("timeouts.create = %v (%v), want 5m", create, err)
	}

	for _, c := range []struct{ body, want string }{
		{`enabled = true`, `Missing required argument: The argument "domain_name" is required`},
		{"domain_name = \"CORP\"\n  enabled = true\n  colour = 1", `Unsupported argument: An argument named "colour" is not expected here.`},
		{"domain_name = \"CORP\"\n  enabled = \"maybe\"", `Incorrect attribute value type: Inappropriate value for attribute "enabled": bool required.`},
		{"domain_name = \"CORP\"\n  enabled = true\n  servers = [{ address = \"dc1\" }]", `Inappropriate value for attribute "servers": element 0: attribute "port" is required.`},
		{"domain_name = \"CORP\"\n  enabled = true\n  timeouts {}", `Unsupported block type: Blocks of type "timeouts" are not expected here.`},
	} {
		_, diags := bodyValue(t, auth, c.body)
		if text := diagnosticsText(diags); !strings.Contains(text, c.want) {
			t.Errorf("body %q: diagnostics %q, want %q", c.body, text, c.want)
		}
	}
}
