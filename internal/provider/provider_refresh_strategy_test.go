package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/provider"
)

// TestRefreshStrategyDescription: refresh_strategy's description says what auto
// trusts (a listing that may lag single reads, so an out-of-band delete shows one
// plan later) and what individual costs (one GET per score), so that a user can
// choose between them.
func TestRefreshStrategyDescription(t *testing.T) {
	t.Parallel()
	var resp provider.SchemaResponse
	New("test")().Schema(context.Background(), provider.SchemaRequest{}, &resp)
	description := resp.Schema.Attributes["refresh_strategy"].GetMarkdownDescription()
	for _, want := range []string{
		"What `auto` trusts is the listing", "may lag single reads", "deleted outside Terraform",
		"the next plan publishes it again", "one request per score in every plan and apply",
	} {
		if !strings.Contains(description, want) {
			t.Errorf("refresh_strategy's description lacks %q:\n%s", want, description)
		}
	}
}
