package provider

// The protocol harness: what needs no Terraform is proven in process against the
// provider server, through the plugin protocol's calls as Terraform makes them
// (validate, configure, plan, read, open). A configuration is written as the
// acceptance tests write it, in HCL; the harness decodes it against the provider's
// schemas with Terraform's own checks of a body (an argument the schema lacks, a
// required one missing, a value of the wrong type), and reports the diagnostics as
// one text that errorPattern matches. A configuration that needs Terraform to be
// evaluated (a function call, a reference, locals, outputs) fails the test with
// "this case needs Terraform": such a case stays a resource.Test step.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// protocolTerraformVersion is the Terraform version the harness tells the provider:
// the one on PATH in this project.
const protocolTerraformVersion = "1.11.4"

// rejectedConfig is a configuration body a validation test plans and the phrases of
// the error it must fail with, in order (errorPattern).
type rejectedConfig struct {
	body string
	err  []string
}

// testRejectedBeforeRequests plans config(body) of each case through the protocol as
// Terraform plans it (protocolPlan), in a subtest per case with a provider server of
// its own, as Terraform starts a provider per command; each must fail with the case's
// error. Then it checks that no request reached the platform: validation belongs to
// plan time.
func testRejectedBeforeRequests(t *testing.T, emu *testEmulator, config func(body string) string, cases []rejectedConfig) {
	t.Helper()
	for i, c := range cases {
		t.Run(fmt.Sprintf("case%d", i+1), func(t *testing.T) {
			expectPlanError(t, config(c.body), errorPattern(c.err...))
		})
	}
	expectNoRequests(t, emu)
}

// expectPlanError plans config through the protocol (protocolPlan) and checks that it
// fails with an error that want matches, as a step's ExpectError would (errorPattern).
func expectPlanError(t *testing.T, config string, want *regexp.Regexp) {
	t.Helper()
	text, failed := protocolPlan(t, config)
	switch {
	case !failed:
		t.Errorf("the plan of\n%s\nsucceeded (%q); want an error matching %s", config, text, want)
	case !want.MatchString(text):
		t.Errorf("the plan of\n%s\nfailed with\n%s\nwant an error matching %s", config, text, want)
	}
}

// protocolSchemas are the provider's schemas, fetched once per test process.
var protocolSchemas = sync.OnceValues(func() (*tfprotov6.GetProviderSchemaResponse, error) {
	var tp trackedProviders
	srv, err := tp.factories()["mediaplatform"]()
	if err != nil {
		return nil, err
	}
	resp, err := srv.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		return nil, err
	}
	if len(resp.Diagnostics) > 0 {
		return nil, fmt.Errorf("GetProviderSchema: %s", diagnosticsText(resp.Diagnostics))
	}
	return resp, nil
})

// testSchemas returns the provider's schemas.
func testSchemas(t *testing.T) *tfprotov6.GetProviderSchemaResponse {
	t.Helper()
	schemas, err := protocolSchemas()
	if err != nil {
		t.Fatal(err)
	}
	return schemas
}

// newProtocolServer returns a fresh provider server, as the acceptance tests' factories
// serve it to Terraform (the protocol wrappers in front of the framework's server); its
// clients are closed when the test ends.
func newProtocolServer(t *testing.T) tfprotov6.ProviderServer {
	t.Helper()
	srv, err := testProviderFactories(t)["mediaplatform"]()
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// protocolBlock is a top-level block of a configuration for this provider.
type protocolBlock struct {
	kind     string // "resource", "data" or "ephemeral"
	typeName string // mediaplatform_score
	name     string // test
	schema   *tfprotov6.Schema
	config   *tfprotov6.DynamicValue
}

// address is the block's address as Terraform prints it: data.mediaplatform_scores.test.
func (b protocolBlock) address() string {
	if b.kind == "resource" {
		return b.typeName + "." + b.name
	}
	return b.kind + "." + b.typeName + "." + b.name
}

// protocolConfig is a configuration decoded against the provider's schemas.
type protocolConfig struct {
	provider *tfprotov6.DynamicValue // the provider block, or an empty one
	blocks   []protocolBlock         // in the configuration's order
}

// decodeConfig decodes a configuration as the acceptance tests write it: the provider
// block and the resource, data and ephemeral blocks of this provider. Blocks of other
// providers (the echo provider and its resource, which only hand an ephemeral result
// on) are left out. The diagnostics are Terraform's own checks of each body.
func decodeConfig(t *testing.T, config string) (protocolConfig, []planDiagnostic) {
	t.Helper()
	schemas := testSchemas(t)
	body := parseBody(t, config)
	var cfg protocolConfig
	var diags []planDiagnostic
	add := func(address string, d []*tfprotov6.Diagnostic) {
		for _, d := range d {
			diags = append(diags, planDiagnostic{address, d})
		}
	}
	for _, block := range body.Blocks {
		labels := block.Labels
		ours := len(labels) > 0 && (labels[0] == "mediaplatform" || strings.HasPrefix(labels[0], "mediaplatform_"))
		switch {
		case block.Type == "provider" && len(labels) == 1 && ours:
			if cfg.provider != nil {
				t.Fatalf("this case needs Terraform: a second provider block at %s", block.DefRange())
			}
			v, d := decodeBody(t, schemas.Provider.Block, block.Body, nil)
			cfg.provider = dynamicValue(t, schemas.Provider, v)
			add(`provider["mediaplatform"]`, d)
		case slices.Contains([]string{"provider", "resource", "data", "ephemeral"}, block.Type) && !ours:
			continue
		case block.Type == "resource" || block.Type == "data" || block.Type == "ephemeral":
			if len(labels) != 2 {
				t.Fatalf("this case needs Terraform: block %s %v", block.Type, labels)
			}
			schema := map[string]map[string]*tfprotov6.Schema{
				"resource": schemas.ResourceSchemas, "data": schemas.DataSourceSchemas, "ephemeral": schemas.EphemeralResourceSchemas,
			}[block.Type][labels[0]]
			if schema == nil {
				t.Fatalf("the provider has no %s type %q", block.Type, labels[0])
			}
			b := protocolBlock{kind: block.Type, typeName: labels[0], name: labels[1], schema: schema}
			v, d := decodeBody(t, schema.Block, block.Body, nil)
			b.config = dynamicValue(t, schema, v)
			add(b.address(), d)
			cfg.blocks = append(cfg.blocks, b)
		default:
			t.Fatalf("this case needs Terraform: a %s block at %s", block.Type, block.DefRange())
		}
	}
	if len(body.Attributes) > 0 {
		t.Fatal("this case needs Terraform: top-level arguments")
	}
	if cfg.provider == nil {
		v, _ := decodeBody(t, schemas.Provider.Block, &hclsyntax.Body{}, nil)
		cfg.provider = dynamicValue(t, schemas.Provider, v)
	}
	return cfg, diags
}

// protocolPlan plans config the way Terraform does, up to the first error (protocolRun),
// and returns every diagnostic as one text (planDiagnosticsText) and whether any is
// an error.
func protocolPlan(t *testing.T, config string) (string, bool) {
	t.Helper()
	diags, _ := protocolRun(t, config)
	return planDiagnosticsText(diags), hasError(diags)
}

// protocolRun plans config the way Terraform does, up to the first error: Terraform's
// checks of each body; ValidateProviderConfig and the validation of each block; then
// ConfigureProvider and, for each block, PlanResourceChange (a resource to create),
// ReadDataSource (a data source, read at plan as its configuration is known) or
// OpenEphemeralResource (closed again at once). It returns the diagnostics and the
// state of each data source read, by address.
func protocolRun(t *testing.T, config string) ([]planDiagnostic, map[string]tftypes.Value) {
	t.Helper()
	reads := map[string]tftypes.Value{}
	ctx := t.Context()
	cfg, diags := decodeConfig(t, config)
	if hasError(diags) {
		return diags, reads
	}
	srv := newProtocolServer(t)
	const providerAddress = `provider["mediaplatform"]`
	// report fails the test on a call's error; add adds a call's diagnostics.
	report := func(address string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", address, err)
		}
	}
	add := func(address string, d []*tfprotov6.Diagnostic) {
		for _, d := range d {
			diags = append(diags, planDiagnostic{address, d})
		}
	}
	validated, err := srv.ValidateProviderConfig(ctx, &tfprotov6.ValidateProviderConfigRequest{Config: cfg.provider})
	report(providerAddress, err)
	add(providerAddress, validated.Diagnostics)
	for _, b := range cfg.blocks {
		switch b.kind {
		case "resource":
			resp, err := srv.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: b.typeName, Config: b.config})
			report(b.address(), err)
			add(b.address(), resp.Diagnostics)
		case "data":
			resp, err := srv.ValidateDataResourceConfig(ctx, &tfprotov6.ValidateDataResourceConfigRequest{TypeName: b.typeName, Config: b.config})
			report(b.address(), err)
			add(b.address(), resp.Diagnostics)
		case "ephemeral":
			resp, err := srv.ValidateEphemeralResourceConfig(ctx, &tfprotov6.ValidateEphemeralResourceConfigRequest{TypeName: b.typeName, Config: b.config})
			report(b.address(), err)
			add(b.address(), resp.Diagnostics)
		}
	}
	if hasError(diags) {
		return diags, reads
	}
	configured, err := srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{
		TerraformVersion: protocolTerraformVersion, Config: cfg.provider,
	})
	report(providerAddress, err)
	add(providerAddress, configured.Diagnostics)
	if hasError(diags) {
		return diags, reads
	}
	for _, b := range cfg.blocks {
		switch b.kind {
		case "resource":
			resp, err := srv.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
				TypeName: b.typeName, PriorState: dynamicValue(t, b.schema, tftypes.NewValue(b.schema.ValueType(), nil)),
				ProposedNewState: b.config, Config: b.config,
			})
			report(b.address(), err)
			add(b.address(), resp.Diagnostics)
		case "data":
			resp, err := srv.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{TypeName: b.typeName, Config: b.config})
			report(b.address(), err)
			add(b.address(), resp.Diagnostics)
			if resp.State != nil {
				state, err := resp.State.Unmarshal(b.schema.ValueType())
				if err != nil {
					t.Fatalf("%s: the state read: %v", b.address(), err)
				}
				add(b.address(), readConformance(b, state))
				reads[b.address()] = state
			}
		case "ephemeral":
			resp, err := srv.OpenEphemeralResource(ctx, &tfprotov6.OpenEphemeralResourceRequest{TypeName: b.typeName, Config: b.config})
			report(b.address(), err)
			add(b.address(), resp.Diagnostics)
			if !hasError(diags) {
				closed, err := srv.CloseEphemeralResource(ctx, &tfprotov6.CloseEphemeralResourceRequest{TypeName: b.typeName, Private: resp.Private})
				report(b.address(), err)
				add(b.address(), closed.Diagnostics)
			}
		}
	}
	return diags, reads
}

// readConformance is Terraform's check of what a data source read: a known object that
// keeps every value its configuration sets ("Provider produced invalid object").
func readConformance(b protocolBlock, state tftypes.Value) []*tfprotov6.Diagnostic {
	invalid := func(detail string, args ...any) []*tfprotov6.Diagnostic {
		return []*tfprotov6.Diagnostic{{
			Severity: tfprotov6.DiagnosticSeverityError, Summary: "Provider produced invalid object",
			Detail: fmt.Sprintf("The provider produced an invalid value for %s: %s.", b.address(), fmt.Sprintf(detail, args...)),
		}}
	}
	if state.IsNull() || !state.IsFullyKnown() {
		return invalid("the object is null or not wholly known")
	}
	config, err := b.config.Unmarshal(b.schema.ValueType())
	if err != nil {
		return invalid("%v", err)
	}
	var want, got map[string]tftypes.Value
	if err := config.As(&want); err != nil {
		return invalid("%v", err)
	}
	if err := state.As(&got); err != nil {
		return invalid("%v", err)
	}
	for name, v := range want {
		if !v.IsNull() && !v.Equal(got[name]) {
			return invalid("%s was %s in the configuration, but is now %s", name, v, got[name])
		}
	}
	return nil
}

// expectRead reads the data sources of config through the protocol as Terraform reads
// them at plan (protocolRun), and runs checks against what they read, as a step's
// ConfigStateChecks run against the state: the checks see each data source at its
// address, its values as Terraform's JSON state holds them.
func expectRead(t *testing.T, config string, checks ...statecheck.StateCheck) {
	t.Helper()
	diags, reads := protocolRun(t, config)
	if hasError(diags) {
		t.Fatalf("the read of\n%s\nfailed:\n%s", config, planDiagnosticsText(diags))
	}
	state := &tfjson.State{Values: &tfjson.StateValues{RootModule: &tfjson.StateModule{}}}
	for address, v := range reads {
		typeName, name, _ := strings.Cut(strings.TrimPrefix(address, "data."), ".")
		values, ok := jsonOf(t, v).(map[string]any)
		if !ok {
			t.Fatalf("%s: the state read is %s, not an object", address, v)
		}
		state.Values.RootModule.Resources = append(state.Values.RootModule.Resources, &tfjson.StateResource{
			Address: address, Mode: tfjson.DataResourceMode, Type: typeName, Name: name, AttributeValues: values,
		})
	}
	for _, check := range checks {
		var resp statecheck.CheckStateResponse
		check.CheckState(t.Context(), statecheck.CheckStateRequest{State: state}, &resp)
		if resp.Error != nil {
			t.Error(resp.Error)
		}
	}
}

// jsonOf is v as Terraform's JSON state holds it, decoded with numbers as
// json.Number: what state checks read.
func jsonOf(t *testing.T, v tftypes.Value) any {
	t.Helper()
	if v.IsNull() {
		return nil
	}
	if !v.IsKnown() {
		t.Fatalf("an unknown value of type %s was read", v.Type())
	}
	switch typ := v.Type(); {
	case typ.Is(tftypes.String):
		var s string
		_ = v.As(&s)
		return s
	case typ.Is(tftypes.Bool):
		var b bool
		_ = v.As(&b)
		return b
	case typ.Is(tftypes.Number):
		f := new(big.Float)
		_ = v.As(&f)
		return json.Number(f.Text('g', -1))
	case typ.Is(tftypes.List{}), typ.Is(tftypes.Set{}), typ.Is(tftypes.Tuple{}):
		var elems []tftypes.Value
		_ = v.As(&elems)
		out := make([]any, len(elems))
		for i, e := range elems {
			out[i] = jsonOf(t, e)
		}
		return out
	case typ.Is(tftypes.Map{}), typ.Is(tftypes.Object{}):
		var elems map[string]tftypes.Value
		_ = v.As(&elems)
		out := make(map[string]any, len(elems))
		for k, e := range elems {
			out[k] = jsonOf(t, e)
		}
		return out
	}
	t.Fatalf("a value of type %s was read", v.Type())
	return nil
}

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
	for name, expr := range body.Attributes {
		if !slices.ContainsFunc(block.Attributes, func(a *tfprotov6.SchemaAttribute) bool { return a.Name == name }) {
			fail(path.WithAttributeName(name), "Unsupported argument", "An argument named %q is not expected here.", name)
			_ = expr
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

// planDiagnostic is a diagnostic of a plan and the address of the block it is about
// (data.mediaplatform_scores.test, provider["mediaplatform"]).
type planDiagnostic struct {
	address string
	*tfprotov6.Diagnostic
}

// hasError reports whether any of diags is an error.
func hasError(diags []planDiagnostic) bool {
	return slices.ContainsFunc(diags, func(d planDiagnostic) bool { return d.Severity == tfprotov6.DiagnosticSeverityError })
}

// planDiagnosticsText is diags as Terraform prints them, in order: the severity and
// summary, the block's address and the attribute's path, then the detail.
func planDiagnosticsText(diags []planDiagnostic) string {
	var b strings.Builder
	for _, d := range diags {
		severity := "Error"
		if d.Severity == tfprotov6.DiagnosticSeverityWarning {
			severity = "Warning"
		}
		fmt.Fprintf(&b, "%s: %s\n\n  with %s", severity, d.Summary, d.address)
		if at := attributePathText(d.Attribute); at != "" {
			fmt.Fprintf(&b, ", at %s", at)
		}
		fmt.Fprintf(&b, "\n\n%s\n\n", d.Detail)
	}
	return b.String()
}

// diagnosticsText is diags, one a line: summary and detail.
func diagnosticsText(diags []*tfprotov6.Diagnostic) string {
	var b strings.Builder
	for _, d := range diags {
		b.WriteString(d.Summary + ": " + d.Detail + "\n")
	}
	return b.String()
}

// attributePathText is an attribute path as written in a configuration:
// servers[0].port.
func attributePathText(path *tftypes.AttributePath) string {
	var b strings.Builder
	for _, step := range path.Steps() {
		switch step := step.(type) {
		case tftypes.AttributeName:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(string(step))
		case tftypes.ElementKeyInt:
			fmt.Fprintf(&b, "[%d]", int64(step))
		case tftypes.ElementKeyString:
			fmt.Fprintf(&b, "[%q]", string(step))
		case tftypes.ElementKeyValue:
			b.WriteString("[…]")
		}
	}
	return b.String()
}

// schemaValue is an object of schema's type with the given string attributes and
// every other attribute null.
func schemaValue(t *testing.T, schema *tfprotov6.Schema, values map[string]string) *tfprotov6.DynamicValue {
	t.Helper()
	attrs := map[string]tftypes.Value{}
	for _, a := range schema.Block.Attributes {
		if v, ok := values[a.Name]; ok {
			attrs[a.Name] = tftypes.NewValue(tftypes.String, v)
		} else {
			attrs[a.Name] = tftypes.NewValue(a.ValueType(), nil)
		}
	}
	dv, err := tfprotov6.NewDynamicValue(schema.ValueType(), tftypes.NewValue(schema.ValueType(), attrs))
	if err != nil {
		t.Fatal(err)
	}
	return &dv
}

// resultStrings returns the string attributes of an ephemeral result.
func resultStrings(t *testing.T, schema *tfprotov6.Schema, result *tfprotov6.DynamicValue) map[string]string {
	t.Helper()
	if result == nil {
		t.Fatal("no result")
	}
	val, err := result.Unmarshal(schema.ValueType())
	if err != nil {
		t.Fatal(err)
	}
	var attrs map[string]tftypes.Value
	if err := val.As(&attrs); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for name, v := range attrs {
		var s *string
		if v.Type().Is(tftypes.String) && v.As(&s) == nil && s != nil {
			out[name] = *s
		}
	}
	return out
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

// TestProtocolHarness_planSucceeds: a valid configuration plans without an error, so
// that a rejection the harness reports is the provider's; a bad value in a nested
// attribute is rejected in the validator's words, at its path, before any request.
func TestProtocolHarness_planSucceeds(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	text, failed := protocolPlan(t, emu.providerConfig()+`
resource "mediaplatform_score_view" "test" {
  score      = "s"
  pages      = "1-3,5"
  expires_in = 600
}
resource "mediaplatform_external_authentication" "test" {
  domain_name = "CORP"
  enabled     = true
  servers     = [{ address = "dc1.example", port = 389 }]
}
`)
	if failed {
		t.Errorf("the plan failed: %s", text)
	}
	// The validators of nested attributes are reached, with the attribute's path.
	expectPlanError(t, emu.providerConfig()+`
resource "mediaplatform_external_authentication" "test" {
  domain_name = "CORP"
  enabled     = true
  servers     = [{ address = "dc1.example", port = 389 }, { address = "dc2.example", port = 0 }]
}
`, errorPattern("Error: Invalid Attribute Value", "with mediaplatform_external_authentication.test, at servers[1].port", "between 1 and 65535, got: 0"))
	expectNoRequests(t, emu)
}
