package provider

// The type of a score's address: a string compared by RFC 3986 equivalence
// (client.EquivalentURLs), as HashiCorp's jsontypes.Normalized compares JSON. A
// platform may answer the address in another spelling of it (its host in lower case,
// :443 dropped, x/../ removed, %c3 as %C3); the framework's semantic equality then
// keeps the configured spelling in the state, so that neither the apply nor the next
// plan sees a change.

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

var (
	_ basetypes.StringTypable                    = scoreURLType{}
	_ basetypes.StringValuableWithSemanticEquals = scoreURLValue{}
)

// scoreURLType is the type of score_url.
type scoreURLType struct {
	basetypes.StringType
}

func (t scoreURLType) String() string { return "scoreURLType" }

func (t scoreURLType) Equal(o attr.Type) bool {
	_, ok := o.(scoreURLType)
	return ok
}

func (t scoreURLType) ValueType(context.Context) attr.Value { return scoreURLValue{} }

func (t scoreURLType) ValueFromString(_ context.Context, in basetypes.StringValue) (basetypes.StringValuable, diag.Diagnostics) {
	return scoreURLValue{StringValue: in}, nil
}

func (t scoreURLType) ValueFromTerraform(ctx context.Context, in tftypes.Value) (attr.Value, error) {
	v, err := t.StringType.ValueFromTerraform(ctx, in)
	if err != nil {
		return nil, err
	}
	s, ok := v.(basetypes.StringValue)
	if !ok {
		return nil, fmt.Errorf("unexpected value type %T", v)
	}
	return scoreURLValue{StringValue: s}, nil
}

// scoreURLValue is a score's address.
type scoreURLValue struct {
	basetypes.StringValue
}

// scoreURLOf is the known address s.
func scoreURLOf(s string) scoreURLValue {
	return scoreURLValue{StringValue: basetypes.NewStringValue(s)}
}

func (v scoreURLValue) Type(context.Context) attr.Type { return scoreURLType{} }

func (v scoreURLValue) Equal(o attr.Value) bool {
	other, ok := o.(scoreURLValue)
	return ok && v.StringValue.Equal(other.StringValue)
}

// StringSemanticEquals reports whether the new value is another spelling of the same
// address (RFC 3986 §6.2.2–6.2.3): the framework then keeps the prior one.
func (v scoreURLValue) StringSemanticEquals(_ context.Context, newValuable basetypes.StringValuable) (bool, diag.Diagnostics) {
	var diags diag.Diagnostics
	other, ok := newValuable.(scoreURLValue)
	if !ok {
		diags.AddError("Semantic equality check error",
			fmt.Sprintf("A score address was compared with a value of type %T. This is a bug in the provider.", newValuable))
		return false, diags
	}
	return client.EquivalentURLs(v.ValueString(), other.ValueString()), diags
}

// requiresReplaceUnlessEquivalent replaces the score when its address changes to
// another address, and not when it changes to another spelling of the same one (the
// state then takes the new spelling, and nothing is published).
func requiresReplaceUnlessEquivalent() planmodifier.String {
	return stringplanmodifier.RequiresReplaceIf(func(_ context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
		resp.RequiresReplace = !client.EquivalentURLs(req.StateValue.ValueString(), req.PlanValue.ValueString())
	}, "Changing the address to another address publishes a new score; another spelling of the same address does not.",
		"Changing the address to another address publishes a new score; another spelling of the same address does not.")
}
