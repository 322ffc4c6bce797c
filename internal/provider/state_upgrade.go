package provider

// State upgrades for attributes added over time: a state written by an earlier
// release lacks them (null), and an attribute with a default would then plan an
// update of every resource on `terraform plan -refresh=false`, with every computed
// attribute unknown. Adding an attribute with a default bumps the schema's Version,
// and defaultFillingUpgraders gives the states of every earlier version the default.

import (
	"context"
	"fmt"
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/defaults"
)

// defaultFillingUpgraders returns, for every version of s before s.Version, an
// upgrader that reads the earlier state with today's schema (an attribute added since
// reads as null; one removed since is dropped) and gives each top-level attribute that
// is null and has a default its default: the state an earlier release wrote then plans
// as a state written today, with or without the refresh.
func defaultFillingUpgraders(s schema.Schema) map[int64]resource.StateUpgrader {
	upgraders := map[int64]resource.StateUpgrader{}
	for version := range s.Version {
		prior := s
		prior.Version = version
		upgraders[version] = resource.StateUpgrader{
			PriorSchema: &prior,
			StateUpgrader: func(ctx context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
				resp.State.Raw = req.State.Raw
				fillDefaults(ctx, s, resp)
			},
		}
	}
	return upgraders
}

// fillDefaults sets each top-level attribute of s that is null in resp.State and has
// a default to that default.
func fillDefaults(ctx context.Context, s schema.Schema, resp *resource.UpgradeStateResponse) {
	for name, attribute := range s.Attributes {
		at := path.Root(name)
		value, ok, err := defaultOf(ctx, at, attribute)
		if err != nil {
			resp.Diagnostics.AddAttributeError(at, "Provider bug: cannot upgrade the state", err.Error())
			continue
		}
		if !ok {
			continue
		}
		var current attr.Value
		resp.Diagnostics.Append(resp.State.GetAttribute(ctx, at, &current)...)
		if current == nil || current.IsNull() {
			resp.Diagnostics.Append(resp.State.SetAttribute(ctx, at, value)...)
		}
	}
}

// defaultOf is the default of an attribute; ok is false for one without a default.
func defaultOf(ctx context.Context, at path.Path, attribute schema.Attribute) (attr.Value, bool, error) {
	switch a := attribute.(type) {
	case schema.BoolAttribute:
		if a.Default == nil {
			return nil, false, nil
		}
		var resp defaults.BoolResponse
		a.Default.DefaultBool(ctx, defaults.BoolRequest{Path: at}, &resp)
		return resp.PlanValue, !resp.Diagnostics.HasError(), nil
	case schema.StringAttribute:
		if a.Default == nil {
			return nil, false, nil
		}
		var resp defaults.StringResponse
		a.Default.DefaultString(ctx, defaults.StringRequest{Path: at}, &resp)
		return resp.PlanValue, !resp.Diagnostics.HasError(), nil
	case schema.Int64Attribute:
		if a.Default == nil {
			return nil, false, nil
		}
		var resp defaults.Int64Response
		a.Default.DefaultInt64(ctx, defaults.Int64Request{Path: at}, &resp)
		return resp.PlanValue, !resp.Diagnostics.HasError(), nil
	}
	if v := reflect.ValueOf(attribute); v.Kind() == reflect.Struct && v.FieldByName("Default").IsValid() && !v.FieldByName("Default").IsNil() {
		return nil, false, fmt.Errorf("attribute %s has a default of a type the state upgrade does not fill (%T)", at, attribute)
	}
	return nil, false, nil
}
