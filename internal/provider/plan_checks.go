package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

// checkSettingsAtPlan reports, while the plan is made, a provider setting that
// applying it will need and that is missing, instead of failing halfway through the
// apply. It runs only for a creation, a replacement, or (update set) an update in
// place, and not before the provider is configured (terraform validate).
func checkSettingsAtPlan(c *client.Client, area client.Area, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse,
	update bool, what string,
) {
	if c == nil || req.Plan.Raw.IsNull() {
		return // not configured yet, or a destruction
	}
	if !req.State.Raw.IsNull() && len(resp.RequiresReplace) == 0 && (!update || req.Plan.Raw.Equal(req.State.Raw)) {
		return // nothing to create or send
	}
	if err := c.CheckSettings(area); err != nil {
		addClientError(&resp.Diagnostics, "Missing provider setting", what, err)
	}
}
