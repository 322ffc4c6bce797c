package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

// preIdentityProvider stands in for a release of the provider from before resource
// identity: its mediaplatform_score has no identity schema, so the state it writes
// holds no identity.
type preIdentityProvider struct{ *mediaplatformProvider }

func (p preIdentityProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{func() resource.Resource {
		return preIdentityScore{&scoreResource{}}
	}}
}

// preIdentityScore is mediaplatform_score without IdentitySchema.
type preIdentityScore struct{ resource.ResourceWithConfigure }

// TestAccScore_identityAfterStateWithout: a state written before identity (here by a
// provider without it; on Terraform before 1.12, every state) gets its identity on
// the next refresh, and when the score was deleted out of band meanwhile, the refresh
// removes it and plans it anew instead of failing with "Missing Resource Identity
// After Read". Runs on every Terraform version.
func TestAccScore_identityAfterStateWithout(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	var tp trackedProviders
	t.Cleanup(func() { tp.closeClients(t) })
	old := tp.factoriesOf(func(p *mediaplatformProvider) provider.Provider { return preIdentityProvider{p} })
	current := tp.factories()
	ids := scoreIDs{}
	config := emu.providerConfig()
	for _, name := range []string{"kept", "deleted"} {
		config += fmt.Sprintf("resource \"mediaplatform_score\" %q {\n  score_url = %q\n}\n", name, accScoreURL(accName()))
	}
	tfresource.Test(t, tfresource.TestCase{
		CheckDestroy: checkScoresGone(t, emu, ids),
		Steps: []tfresource.TestStep{
			{
				ProtoV6ProviderFactories: old,
				Config:                   config,
				Check:                    tfresource.ComposeTestCheckFunc(ids.record("mediaplatform_score.kept"), ids.record("mediaplatform_score.deleted")),
			},
			{
				ProtoV6ProviderFactories: current,
				PreConfig: func() {
					if err := emu.client(t).DeleteScore(context.Background(), ids["mediaplatform_score.deleted"], false); err != nil {
						t.Fatalf("deleting the score out of band: %v", err)
					}
				},
				Config: config,
				ConfigPlanChecks: tfresource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("mediaplatform_score.deleted", plancheck.ResourceActionCreate),
						plancheck.ExpectResourceAction("mediaplatform_score.kept", plancheck.ResourceActionNoop),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
	})
}

// TestAccScore_identity: the score's identity is its UUID, set on create and kept by
// refreshes; an import block with the identity adopts the score with an empty plan.
func TestAccScore_identity(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	ids := scoreIDs{}
	alias := accName()
	config := emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url = %q
  score_id  = %q
}
`, accScoreURL(alias), alias)
	tfresource.Test(t, tfresource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)},
		ProtoV6ProviderFactories: testProviderFactories(t),
		CheckDestroy:             checkScoresGone(t, emu, ids),
		Steps: []tfresource.TestStep{
			{
				Config: config,
				Check:  ids.record("mediaplatform_score.test"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectIdentity("mediaplatform_score.test", map[string]knownvalue.Check{
						"id": knownvalue.StringRegexp(uuidPattern),
					}),
					statecheck.ExpectIdentityValueMatchesState("mediaplatform_score.test", tfjsonpath.New("id")),
				},
			},
			{
				Config:          config,
				ResourceName:    "mediaplatform_score.test",
				ImportState:     true,
				ImportStateKind: tfresource.ImportBlockWithResourceIdentity,
			},
			{
				Config:            config,
				ResourceName:      "mediaplatform_score.test",
				ImportState:       true,
				ImportStateKind:   tfresource.ImportBlockWithID,
				ImportStateIdFunc: func(*terraform.State) (string, error) { return alias, nil },
			},
		},
	})
}
