package provider

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"testing"
	"time"

	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

const viewAddress = "mediaplatform_score_view.test"

// publishTestScore publishes a score with a fresh alias out of band, so that
// destroying a view leaves the score (and so the view) alive on the platform. The
// score is deleted when the test ends.
func publishTestScore(t *testing.T, emu *testEmulator) *client.Score {
	t.Helper()
	c := emu.client(t)
	alias := accName()
	s, err := c.PublishScore(context.Background(), client.PublishScoreInput{ScoreURL: accScoreURL(alias), Alias: alias})
	if err != nil {
		t.Fatalf("publishing a score: %v", err)
	}
	emu.deleteAtCleanup(t)(s.ID)
	// Log out now, so that the emulator's live sessions and tokens count only the
	// provider's.
	if err := c.Close(context.Background()); err != nil {
		t.Fatalf("closing the client: %v", err)
	}
	return s
}

// viewerStatus returns the status of GET viewer_url.
func viewerStatus(viewerURL string) (int, error) {
	resp, err := http.Get(viewerURL) //nolint:noctx // test helper
	if err != nil {
		return 0, err
	}
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}

// viewState records the view attributes a later step compares with.
type viewState struct{ id, viewerURL string }

func (v *viewState) record(s *terraform.State) error {
	rs, ok := s.RootModule().Resources[viewAddress]
	if !ok {
		return fmt.Errorf("%s is not in the state", viewAddress)
	}
	v.id, v.viewerURL = rs.Primary.ID, rs.Primary.Attributes["viewer_url"]
	return nil
}

func TestAccScoreView_lifecycle(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	score := publishTestScore(t, emu)
	var first, current viewState
	config := func(pages, renewBefore string) string {
		return emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score_view" "test" {
  score          = %q
  printable      = true
  pages          = %q
  license_string = "Licensed to ACME for rehearsal"
  lang           = "fr-CA"
  expires_in     = 3600
  renew_before   = %q
}
`, score.Alias, pages, renewBefore)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		CheckDestroy: func(*terraform.State) error {
			// Destroy only forgets: the view stays usable until it expires.
			status, err := viewerStatus(current.viewerURL)
			if err != nil {
				return fmt.Errorf("GET viewer_url after destroy: %w", err)
			}
			if status != http.StatusOK {
				return fmt.Errorf("GET viewer_url after destroy: status %d, want 200", status)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: config("1-2,4", "10m"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(viewAddress, tfjsonpath.New("id"), knownvalue.NotNull()),
					statecheck.ExpectKnownValue(viewAddress, tfjsonpath.New("viewer_url"), knownvalue.StringRegexp(emu.viewerURLPattern())),
					statecheck.ExpectSensitiveValue(viewAddress, tfjsonpath.New("viewer_url")),
					statecheck.ExpectKnownValue(viewAddress, tfjsonpath.New("expires_at"), knownvalue.StringFunc(func(v string) error {
						at, err := time.Parse(time.RFC3339, v)
						if err != nil {
							return err
						}
						if left := time.Until(at); left < 59*time.Minute || left > 61*time.Minute {
							return fmt.Errorf("expires_at %s is %s away, want about 1h", v, left)
						}
						return nil
					})),
					statecheck.ExpectKnownValue(viewAddress, tfjsonpath.New("created_at"), knownvalue.NotNull()),
					statecheck.ExpectKnownValue(viewAddress, tfjsonpath.New("renew_before"), knownvalue.StringExact("10m")),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(first.record, current.record, func(*terraform.State) error {
					status, err := viewerStatus(first.viewerURL)
					if err != nil {
						return fmt.Errorf("GET viewer_url: %w", err)
					}
					if status != http.StatusOK {
						return fmt.Errorf("GET viewer_url: status %d, want 200", status)
					}
					return nil
				}),
			},
			// renew_before changes in place and keeps the view.
			{
				Config: config("1-2,4", "20m"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(viewAddress, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(current.record, func(*terraform.State) error {
					if current != first {
						return fmt.Errorf("the view changed from %s to %s on an in-place update", first.id, current.id)
					}
					return nil
				}),
			},
			// Any view setting creates a new view.
			{
				Config: config("3", "20m"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(viewAddress, plancheck.ResourceActionDestroyBeforeCreate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(current.record, func(*terraform.State) error {
					if current.id == first.id || current.viewerURL == first.viewerURL {
						return fmt.Errorf("the view was not replaced (id %s)", current.id)
					}
					return nil
				}),
			},
		},
	})
}

// TestAccScoreView_renewal creates a view of 2 s with renew_before 1.9 s: every plan
// after the first 100 ms (a terraform command takes longer to start) replaces it (the warning saying why is checked with the real binary
// in TestAccScoreView_renewalSaysWhy).
func TestAccScoreView_renewal(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	var first, second viewState
	config := emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score" "test" {
  score_url = %q
}
resource "mediaplatform_score_view" "test" {
  score        = mediaplatform_score.test.id
  expires_in   = 2
  renew_before = "1900ms"
}
`, accScoreURL(accName()))
	replaced := []plancheck.PlanCheck{
		plancheck.ExpectResourceAction(viewAddress, plancheck.ResourceActionReplace),
		plancheck.ExpectUnknownValue(viewAddress, tfjsonpath.New("expires_at")),
		plancheck.ExpectResourceAction("mediaplatform_score.test", plancheck.ResourceActionNoop),
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{
			{
				Config:             config,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks:   resource.ConfigPlanChecks{PostApplyPostRefresh: replaced},
				Check:              first.record,
			},
			{
				Config:             config,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks:   resource.ConfigPlanChecks{PreApply: replaced, PostApplyPostRefresh: replaced},
				Check: resource.ComposeTestCheckFunc(second.record, func(*terraform.State) error {
					if second.id == first.id {
						return fmt.Errorf("the view %s was not renewed", first.id)
					}
					return nil
				}),
			},
		},
	})
}

// TestScoreView_validation rejects bad arguments at plan time, before any request.
func TestScoreView_validation(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	testRejectedBeforeRequests(t, emu, blockConfig(emu, `resource "mediaplatform_score_view" "test"`), []rejectedConfig{
		{`score = "not an alias"`, []string{"score", "score UUID or a score alias", `got "not an alias"`}},
		{`score = "s"
  pages = "3-1"`, []string{"pages", `the range "3-1" starts after it ends`}},
		{`score = "s"
  pages = "0,2"`, []string{"pages", `"0" is not a page number or range`}},
		{`score = "s"
  pages = "1;2"`, []string{"pages", `"1;2" is not a page number or range`}},
		{`score = "s"
  lang = "english please"`, []string{"lang", "BCP 47 language tag", `"english please"`}},
		{`score = "s"
  expires_in = 86401`, []string{"expires_in", "between 0 and 86400, got: 86401"}},
		{`score = "s"
  expires_in = -1`, []string{"expires_in", "between 0 and 86400, got: -1"}},
		{`score = "s"
  renew_before = "-10m"`, []string{"renew_before", "positive duration", "is not positive"}},
		{`score = "s"
  renew_before = "10 minutes"`, []string{"renew_before", "does not parse"}},
		{`score = "s"
  license_string = "` + fmt.Sprintf("%01025d", 0) + `"`, []string{"license_string", "at most 1024 characters", "it has 1025"}},
	})
}

// expiresAbout is a state check of an RFC 3339 time about want from now (±1 min).
func expiresAbout(want time.Duration) knownvalue.Check {
	return knownvalue.StringFunc(func(v string) error {
		at, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return err
		}
		if left := time.Until(at); left < want-time.Minute || left > want+time.Minute {
			return fmt.Errorf("%s is %s away, want about %s", v, left.Round(time.Second), want)
		}
		return nil
	})
}

// TestAccScoreView_gatewayClock: a view's lifetime comes from its own createdAt and
// expiresAt, anchored when this machine received them, whatever the Date header
// says. A gateway in front of the platform writes Date from its own clock (this
// machine's), while the platform writes its timestamps on its own clock, hours
// away. Platform 3 h behind the gateway: a fresh view of 2 h is kept by the plans
// after the apply, -refresh=false ones included (judged on the Date offset, it
// expired an hour ago). Platform 1 h ahead: a view of 20 s with renew_before 15 s is
// replaced by a plan 7 s later (judged on the Date offset, it has an hour left).
func TestAccScoreView_gatewayClock(t *testing.T) {
	t.Parallel()
	gateway := func(t *testing.T, platformOffset int) *testEmulator {
		emu, proxy := newProxiedTestEmulatorWith(t, "a platform clock away from its gateway's Date header", emulator.Options{
			RenderDelay: testRenderDelay, Faults: emulator.Faults{ClockOffsetSeconds: platformOffset},
		})
		proxy.Add(faultproxy.Fault{Header: faultproxy.GatewayDate(0)})
		return emu
	}
	t.Run("platform 3 h behind the gateway", func(t *testing.T) {
		t.Parallel()
		emu := gateway(t, -3*3600)
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testProviderFactories(t),
			Steps: []resource.TestStep{{
				Config: emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score_view" "test" {
  score      = %q
  expires_in = 7200
}
`, publishTestScore(t, emu).Alias),
				ConfigStateChecks: []statecheck.StateCheck{
					// The platform's own timestamps: an hour ago by this machine's clock.
					statecheck.ExpectKnownValue(viewAddress, tfjsonpath.New("expires_at"), expiresAbout(-time.Hour)),
					statecheck.ExpectKnownValue(viewAddress, tfjsonpath.New("expires_locally_at"), expiresAbout(2*time.Hour)),
				},
				// The test harness plans after the apply with and without refresh: both empty.
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			}},
		})
	})
	t.Run("platform 1 h ahead of the gateway", func(t *testing.T) {
		t.Parallel()
		emu := gateway(t, 3600)
		config := emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score_view" "test" {
  score        = %q
  expires_in   = 20
  renew_before = "15s"
}
`, publishTestScore(t, emu).Alias)
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testProviderFactories(t),
			Steps: []resource.TestStep{
				{
					Config: config,
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue(viewAddress, tfjsonpath.New("expires_at"), expiresAbout(time.Hour)),
					},
				},
				{
					PreConfig: func() { time.Sleep(7 * time.Second) },
					Config:    config,
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(viewAddress, plancheck.ResourceActionReplace),
					}},
				},
			},
		})
	})
}

// TestScoreViewTimeLeft: expires_locally_at alone judges a view; only a view
// stored without it is judged on expires_at and the platform's clock offset.
func TestScoreViewTimeLeft(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	threeHoursBehind := func() time.Duration { return -3 * time.Hour }
	for name, tc := range map[string]struct {
		expiresAt, expiresLocallyAt types.String
		want                        time.Duration
	}{
		"anchored: the Date offset is ignored": {
			types.StringValue("2026-11-21T09:00:00Z"), types.StringValue("2026-11-21T12:00:00Z"), 2 * time.Hour,
		},
		"no anchor: expires_at on the platform's clock": {
			types.StringValue("2026-11-21T09:00:00Z"), types.StringNull(), 2 * time.Hour,
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := scoreViewModel{ExpiresLocallyAt: tc.expiresLocallyAt}
			m.ExpiresAt = tc.expiresAt
			left, err := m.timeLeft(now, threeHoursBehind)
			if err != nil || left != tc.want {
				t.Errorf("timeLeft = %s, %v; want %s", left, err, tc.want)
			}
		})
	}
	// The anchor is the create answer's arrival plus the view's own lifetime.
	got := expiresLocallyAt(now, types.StringValue("2026-11-21T07:00:00.000Z"), types.StringValue("2026-11-21T09:00:00.000Z"))
	if got.ValueString() != "2026-11-21T12:00:00Z" {
		t.Errorf("expiresLocallyAt = %s, want 2026-11-21T12:00:00Z", got)
	}
	if got := expiresLocallyAt(now, types.StringValue("2026-11-21T07:00:00Z"), types.StringNull()); !got.IsNull() {
		t.Errorf("expiresLocallyAt without expires_at = %s, want null", got)
	}
}

// TestScoreViewStateUpgradeV1: a state of schema version 1 keeps every attribute
// and gets a null expires_locally_at (when it was received was not recorded).
func TestScoreViewStateUpgradeV1(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := &scoreViewResource{}
	upgrader := r.UpgradeState(ctx)[1]
	current := &fwresource.SchemaResponse{}
	r.Schema(ctx, fwresource.SchemaRequest{}, current)
	raw := tfprotov6.RawState{JSON: []byte(`{
  "id": "` + viewID("8bd41c2e5f") + `",
  "score": "my-score",
  "printable": true,
  "pages": "1-3",
  "license_string": null,
  "lang": "fr",
  "expires_in": 7200,
  "renew_before": "10m",
  "viewer_url": "https://host/viewer/8bd41c2e5f",
  "created_at": "2026-11-21T10:15:00Z",
  "expires_at": "2026-11-21T12:15:00Z"
}`)}
	value, err := raw.UnmarshalWithOpts(upgrader.PriorSchema.Type().TerraformType(ctx), tfprotov6.UnmarshalOpts{})
	if err != nil {
		t.Fatal(err)
	}
	req := fwresource.UpgradeStateRequest{State: &tfsdk.State{Schema: *upgrader.PriorSchema, Raw: value}}
	resp := &fwresource.UpgradeStateResponse{State: tfsdk.State{Schema: current.Schema}}
	upgrader.StateUpgrader(ctx, req, resp)
	if resp.Diagnostics.HasError() {
		t.Fatal(resp.Diagnostics)
	}
	var got scoreViewModel
	if diags := resp.State.Get(ctx, &got); diags.HasError() {
		t.Fatal(diags)
	}
	want := scoreViewModel{
		scoreViewAttributesModel: scoreViewAttributesModel{
			ID: types.StringValue(viewID("8bd41c2e5f")), Score: types.StringValue("my-score"),
			Printable: types.BoolValue(true), Pages: types.StringValue("1-3"), LicenseString: types.StringNull(),
			Lang: types.StringValue("fr"), ExpiresIn: types.Int64Value(7200),
			ViewerURL: types.StringValue("https://host/viewer/8bd41c2e5f"),
			CreatedAt: types.StringValue("2026-11-21T10:15:00Z"), ExpiresAt: types.StringValue("2026-11-21T12:15:00Z"),
		},
		RenewBefore: types.StringValue("10m"), ExpiresLocallyAt: types.StringNull(),
	}
	if got != want {
		t.Errorf("upgraded state\n%+v\nwant\n%+v", got, want)
	}
}

// TestAccScoreView_importRefused: an import block ends in the provider's own error,
// which says why (the API cannot read a view back) and what to do, not in the
// framework's "Resource Import Not Implemented".
func TestAccScoreView_importRefused(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_5_0)},
		Steps: []resource.TestStep{{
			Config: emu.providerConfig() + `
import {
  to = mediaplatform_score_view.test
  id = "view-0123456789abcdef0123"
}
resource "mediaplatform_score_view" "test" {
  score = "my-score"
}
`,
			ExpectError: errorPattern("Cannot import score view",
				`mediaplatform_score_view cannot be imported (id "view-0123456789abcdef0123")`,
				"the platform's API cannot read a view back", "Remove the import block",
				"Terraform then creates the view anew, with a new viewer_url"),
		}},
	})
}

// TestAccScoreView_renewalSaysWhy: through the real CLI, the plan that replaces a view
// before it expires says why.
//
// A view of 2 minutes with renew_before 100 ms shorter: every plan after the first
// 100 ms replaces it while it is still live, however loaded the machine (with a view
// of 2 s, a slow plan met it expired and the warning rightly said so instead).
func TestAccScoreView_renewalSaysWhy(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	emu := newTestEmulator(t)
	alias := publishTestScore(t, emu).Alias
	w := newWorkspace(t, emu, fmt.Sprintf(`
resource "mediaplatform_score_view" "test" {
  score        = %q
  expires_in   = 120
  renew_before = "119.9s"
}
`, alias))
	w.run("apply", "-auto-approve")
	out := w.run("plan")
	for _, want := range []*regexp.Regexp{
		errorPattern("mediaplatform_score_view.test must be replaced"),
		errorPattern("expires_at", "# forces replacement"),
		errorPattern("Warning: Score view will be replaced", `of score "`+alias+`" expires in`, "less than renew_before (119.9s)"),
	} {
		if !want.MatchString(out) {
			t.Errorf("plan output lacks %q:\n%s", want, out)
		}
	}
}

// TestAccState_viewFollowsItsScore names a view's score by alias: when the score is
// replaced outside Terraform (deleted, and the alias published again) or deleted, the
// view opens nothing any more, and the plan creates a new one instead of "No changes".
func TestAccState_viewFollowsItsScore(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	c := emu.client(t)
	ctx := context.Background()
	alias := "viewed-" + accName()
	publish := func() {
		if _, err := c.PublishScore(ctx, client.PublishScoreInput{ScoreURL: accScoreURL(alias), Alias: alias}); err != nil {
			t.Fatal(err)
		}
	}
	unpublish := func() {
		if err := c.DeleteScore(ctx, alias, false); err != nil {
			t.Fatal(err)
		}
	}
	publish()
	config := emu.providerConfig() + fmt.Sprintf(`
resource "mediaplatform_score_view" "test" {
  score = %q
}
`, alias)
	var firstURL string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: func(s *terraform.State) error {
					firstURL = s.RootModule().Resources["mediaplatform_score_view.test"].Primary.Attributes["viewer_url"]
					return nil
				},
			},
			{
				PreConfig: func() { unpublish(); publish() },
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("mediaplatform_score_view.test", plancheck.ResourceActionCreate)},
				},
				Check: func(s *terraform.State) error {
					if u := s.RootModule().Resources["mediaplatform_score_view.test"].Primary.Attributes["viewer_url"]; u == firstURL {
						return fmt.Errorf("the view of the replaced score kept its viewer_url")
					}
					return nil
				},
			},
			{
				PreConfig:          unpublish,
				Config:             config,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
		},
	})
}
