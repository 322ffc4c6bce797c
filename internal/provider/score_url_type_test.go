package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// TestScoreURLSemanticEquality: another spelling of the same address is equal (the
// framework keeps the prior one), another address is not, and the type reads and
// writes its Terraform value unchanged.
func TestScoreURLSemanticEquality(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		prior, answer string
		equal         bool
	}{
		{"https://Scores.Example.COM:443/x/../sn/h-b.sib", "https://scores.example.com/sn/h-b.sib", true},
		{"https://cdn.example/Caf%c3%a9.sib", "https://cdn.example/Caf%C3%A9.sib", true},
		{"https://scores.example.com/a", "https://scores.example.com/b", false},
		{"https://scores.example.com/A", "https://scores.example.com/a", false},
	} {
		equal, diags := scoreURLOf(c.prior).StringSemanticEquals(ctx, scoreURLOf(c.answer))
		if diags.HasError() || equal != c.equal {
			t.Errorf("%q against %q: equal %v (%v), want %v", c.prior, c.answer, equal, diags, c.equal)
		}
	}
	if _, diags := scoreURLOf("https://a.example/").StringSemanticEquals(ctx, types.StringValue("https://a.example/")); !diags.HasError() {
		t.Error("a value of another type compared without an error")
	}
	v, err := scoreURLType{}.ValueFromTerraform(ctx, tftypes.NewValue(tftypes.String, "https://A.example"))
	if err != nil || !v.Equal(scoreURLOf("https://A.example")) {
		t.Errorf("ValueFromTerraform: %v, %v", v, err)
	}
}

// TestScoreURLReplacement: a change to another address replaces the score, a change
// to another spelling of the same address does not.
func TestScoreURLReplacement(t *testing.T) {
	for _, c := range []struct {
		state, plan string
		replace     bool
	}{
		{"https://Scores.Example.COM/a", "https://scores.example.com/a", false},
		{"https://scores.example.com/a", "https://scores.example.com:443/./a", false},
		{"https://Scores.Example.COM/a", "https://scores.example.com/b", true},
	} {
		req := planmodifier.StringRequest{StateValue: types.StringValue(c.state), PlanValue: types.StringValue(c.plan),
			ConfigValue: types.StringValue(c.plan)}
		req.State.Raw = tftypes.NewValue(tftypes.Object{}, map[string]tftypes.Value{})
		req.Plan.Raw = tftypes.NewValue(tftypes.Object{}, map[string]tftypes.Value{})
		var resp planmodifier.StringResponse
		resp.PlanValue = req.PlanValue
		requiresReplaceUnlessEquivalent().PlanModifyString(context.Background(), req, &resp)
		if resp.RequiresReplace != c.replace || resp.Diagnostics.HasError() {
			t.Errorf("%q to %q: replace %v (%v), want %v", c.state, c.plan, resp.RequiresReplace, resp.Diagnostics, c.replace)
		}
	}
}
