package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	acc "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// TestScoreViewStateUpgrade upgrades states written by schema version 0, whose id was
// the view id (the last segment of viewer_url), to the digest: also when the
// platform's view ids look like the digest (view-<hex>), and when the id is null.
func TestScoreViewStateUpgrade(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := &scoreViewResource{}
	upgrader := r.UpgradeState(ctx)[0]
	current := &resource.SchemaResponse{}
	r.Schema(ctx, resource.SchemaRequest{}, current)
	digestLike := "view-0123456789abcdef0123" // a platform view id in the digest's very form
	for name, tc := range map[string]struct {
		id, viewerURL, want string
	}{
		"platform view id":                     {`"8bd41c2e5f"`, "https://host/viewer/8bd41c2e5f", viewID("8bd41c2e5f")},
		"platform view id in the digest form":  {`"` + digestLike + `"`, "https://host/viewer/" + digestLike, viewID(digestLike)},
		"platform view id starting with view-": {`"view-17"`, "https://host/viewer/view-17", viewID("view-17")},
		"null id":                              {`null`, "https://host/viewer/8bd41c2e5f", viewID("8bd41c2e5f")},
		"digest already":                       {`"` + viewID("8bd41c2e5f") + `"`, "https://host/viewer/8bd41c2e5f", viewID("8bd41c2e5f")},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// The attributes as schema version 0 wrote them.
			raw := tfprotov6.RawState{JSON: []byte(fmt.Sprintf(`{
  "id": %s,
  "score": "my-score",
  "printable": null,
  "pages": null,
  "license_string": null,
  "lang": null,
  "expires_in": null,
  "renew_before": "10m",
  "viewer_url": %q,
  "created_at": "2026-11-21T10:15:00Z",
  "expires_at": "2026-11-21T12:15:00Z"
}`, tc.id, tc.viewerURL))}
			value, err := raw.UnmarshalWithOpts(upgrader.PriorSchema.Type().TerraformType(ctx), tfprotov6.UnmarshalOpts{})
			if err != nil {
				t.Fatal(err)
			}
			req := resource.UpgradeStateRequest{State: &tfsdk.State{Schema: *upgrader.PriorSchema, Raw: value}}
			resp := &resource.UpgradeStateResponse{State: tfsdk.State{Schema: current.Schema}}
			upgrader.StateUpgrader(ctx, req, resp)
			if resp.Diagnostics.HasError() {
				t.Fatal(resp.Diagnostics)
			}
			var got scoreViewModel
			resp.Diagnostics.Append(resp.State.Get(ctx, &got)...)
			secret := tc.viewerURL[strings.LastIndex(tc.viewerURL, "/")+1:]
			if got.ID.ValueString() != tc.want || strings.Contains(got.ID.ValueString(), secret) {
				t.Errorf("upgraded id %q, want %q", got.ID.ValueString(), tc.want)
			}
			if got.ViewerURL.ValueString() != tc.viewerURL || got.Score.ValueString() != "my-score" || !got.ExpiresLocallyAt.IsNull() {
				t.Errorf("the other attributes changed: %+v", got)
			}
		})
	}
}

// TestAccScoreView_idDoesNotOpenTheView: the id Terraform prints is no part of the
// viewer URL, and destroying the view warns that the URL stays live.
func TestAccScoreView_idDoesNotOpenTheView(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	acc.Test(t, acc.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []acc.TestStep{{
			Config: emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url          = %q
  wait_for_rendering = false
}
resource "mediaplatform_score_view" "test" {
  score = mediaplatform_score.test.id
}
`, accScoreURL("view-id")),
			Check: func(s *terraform.State) error {
				attrs := s.RootModule().Resources["mediaplatform_score_view.test"].Primary.Attributes
				id, viewerURL := attrs["id"], attrs["viewer_url"]
				if !regexp.MustCompile(`^view-[0-9a-f]{20}$`).MatchString(id) {
					return fmt.Errorf("id %q is not a view digest", id)
				}
				segment := viewerURL[strings.LastIndex(viewerURL, "/")+1:]
				if segment == "" || strings.Contains(id, segment) || strings.Contains(viewerURL, strings.TrimPrefix(id, "view-")) {
					return fmt.Errorf("id %q and viewer_url %q share their secret part", id, viewerURL)
				}
				return nil
			},
		}},
	})
}

// TestAccScoreView_answerWithoutID (issue 60, item 3): on a platform whose view
// answers carry no id, each view's id is the digest of its own viewer address, so two
// views of one score never share an id, and neither id opens a view.
func TestAccScoreView_answerWithoutID(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	emu.control(t, "views without ids").SetFaults(emulator.Faults{Readings: emulator.Readings{ViewWithoutID: true}})
	score := publishTestScore(t, emu)
	config := emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score_view" "a" {
  score = %[1]q
}
resource "mediaplatform_score_view" "b" {
  score = %[1]q
}
`, score.Alias)
	acc.Test(t, acc.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []acc.TestStep{{
			Config: config,
			Check: func(s *terraform.State) error {
				a, b := s.RootModule().Resources["mediaplatform_score_view.a"].Primary, s.RootModule().Resources["mediaplatform_score_view.b"].Primary
				if a.ID == b.ID {
					return fmt.Errorf("two views share the id %s", a.ID)
				}
				for _, v := range []*terraform.InstanceState{a, b} {
					if !viewDigestForm.MatchString(v.ID) || strings.Contains(v.Attributes["viewer_url"], strings.TrimPrefix(v.ID, "view-")) {
						return fmt.Errorf("view id %q is not a digest that keeps the viewer address secret", v.ID)
					}
				}
				return nil
			},
		}},
	})
}
