package provider

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
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
// in TestAccProviderBinary).
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

// TestAccScoreView_validation rejects bad arguments at plan time, before any request.
func TestAccScoreView_validation(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	testRejectedBeforeRequests(t, emu, resource.TestCase{}, true, blockConfig(emu, `resource "mediaplatform_score_view" "test"`), []rejectedConfig{
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
