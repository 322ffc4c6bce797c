package provider

import (
	"context"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"golang.org/x/sys/unix"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/stopsignals"
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

// TestDocsSayWhatEachStopDoes: the running-in-CI guide and the index page name every
// signal of stopsignals.Stops (a signal added there must be documented), say how to
// run a long apply out of a hang-up's reach, and every page or script that promises
// that the provider removes its token states the exception, a grant still on the wire.
func TestDocsSayWhatEachStopDoes(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	read := func(path string) string {
		b, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(strings.Fields(string(b)), " ")
	}
	for _, page := range []string{"docs/guides/running-in-ci.md", "docs/index.md"} {
		text := read(page)
		for _, sig := range stopsignals.Stops {
			if name := unix.SignalName(sig); !strings.Contains(text, name) {
				t.Errorf("%s does not say what %s does to a run (run make generate after editing templates/)", page, name)
			}
		}
		for _, want := range []string{"nohup", "tmux", "setsid", "adopt_unrecorded", "state file may be left without"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s does not mention %q for a terminal that hangs up", page, want)
			}
		}
	}
	for _, path := range []string{"docs/guides/running-in-ci.md", "docs/index.md", "examples/guides/running-in-ci/ci-apply.sh", "README.md"} {
		text := read(path)
		if strings.Contains(text, "removes its token") || strings.Contains(text, "removes its platform token") {
			if !strings.Contains(text, "still on the wire") {
				t.Errorf("%s promises that the provider removes its token without the exception of a grant still on the wire", path)
			}
		}
	}
}

// exampleHosts is the one set of example hosts every page uses, so that a user who
// takes a value from one page and another from the next sees no change that is not
// there: the organisation's own hosts under corp.example (its directory servers, its
// proxy, the gateway in front of the platform, the platform itself) and the score
// files' host, cdn.example, which the emulator renders.
var exampleHosts = []string{
	"dc1.corp.example", "dc2.corp.example", "ldap-legacy.corp.example",
	"proxy.corp.example", "mediaplatform-gw.corp.example", "media.corp.example",
	"cdn.example",
}

// exampleHost finds a host name under a domain reserved for examples (RFC 2606, RFC
// 6761): .example, example.com, example.net, example.org.
var exampleHost = regexp.MustCompile(`(?i)\b(?:[a-z0-9-]+\.)+(?:example\.com|example\.net|example\.org|example)\b`)

// TestDocsShareOneSetOfExampleHosts reads every page under docs/, the README and every
// file under examples/ (the demo and the module's tests are no page) and fails on a host of the example domains that is not in exampleHosts. Before, the
// drift guide's directory servers were dc1.corp.example and the resource page's
// dc1.corp.example.com, and the platform and score hosts differed between pages.
func TestDocsShareOneSetOfExampleHosts(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	pages := []string{filepath.Join(root, "README.md")}
	for _, dir := range []string{"docs", "examples"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (dir == "examples" || strings.HasSuffix(p, ".md")) {
				pages = append(pages, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(pages) < 10 {
		t.Fatalf("found %d pages: the walk proves nothing", len(pages))
	}
	for _, page := range pages {
		raw, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(raw), "\n") {
			for _, host := range exampleHost.FindAllString(line, -1) {
				if !slices.Contains(exampleHosts, strings.ToLower(host)) {
					rel, _ := filepath.Rel(root, page)
					t.Errorf("%s:%d names %s, not one of the example hosts %v", rel, i+1, host, exampleHosts)
				}
			}
		}
	}
}
