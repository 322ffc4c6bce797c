package provider

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// TestDocsCoverEveryType: every type the provider serves has its page in docs/, the
// list resources and actions included. With a Terraform older than 1.14, make
// docs-check cannot regenerate those pages (that Terraform does not report them);
// this test keeps them from going missing whatever the Terraform version.
func TestDocsCoverEveryType(t *testing.T) {
	t.Parallel()
	resp, err := providerserver.NewProtocol6(New("test")())().GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	docs := filepath.Join("..", "..", "docs")
	for _, kind := range []struct {
		dir   string
		names []string
	}{
		{"resources", slices.Collect(maps.Keys(resp.ResourceSchemas))},
		{"data-sources", slices.Collect(maps.Keys(resp.DataSourceSchemas))},
		{"ephemeral-resources", slices.Collect(maps.Keys(resp.EphemeralResourceSchemas))},
		{"functions", slices.Collect(maps.Keys(resp.Functions))},
		{"list-resources", slices.Collect(maps.Keys(resp.ListResourceSchemas))},
		{"actions", slices.Collect(maps.Keys(resp.ActionSchemas))},
	} {
		for _, name := range kind.names {
			page := filepath.Join(docs, kind.dir, strings.TrimPrefix(name, "mediaplatform_")+".md")
			if _, err := os.Stat(page); err != nil {
				hint := "run make generate"
				if kind.dir == "list-resources" || kind.dir == "actions" {
					// Only these need a Terraform that reports them to tfplugindocs.
					hint = "run make generate with Terraform 1.14 or later (DOCS_TERRAFORM=/path/to/terraform)"
				}
				t.Errorf("%s %s has no documentation page: %v (%s)", kind.dir, name, err, hint)
			}
		}
	}
	if len(resp.ListResourceSchemas) == 0 || len(resp.ActionSchemas) == 0 {
		t.Errorf("the provider serves %d list resources and %d actions, want at least one of each",
			len(resp.ListResourceSchemas), len(resp.ActionSchemas))
	}
}
