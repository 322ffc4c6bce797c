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
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
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
