package provider

// The README as a user reads it: its settings table against the provider's schema,
// and its recipe for one's own configuration against the index's, which
// TestAccDocsIndex_shellBlocksAsPrinted runs.

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/provider"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

// readmeSection returns the README's section under heading (a line "## …" or
// "### …"), up to the next heading of the same or a higher level.
func readmeSection(t *testing.T, heading string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no heading %q", heading)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	if strings.HasPrefix(heading, "### ") {
		section, _, _ = strings.Cut(section, "\n### ")
	}
	return section
}

// TestReadmeSettingsTableFollowsTheSchema: the README's settings table has a row for
// every argument of the provider's schema and no other, and names every environment
// variable the provider reads. Before, platform_hosts was missing.
func TestReadmeSettingsTableFollowsTheSchema(t *testing.T) {
	t.Parallel()
	var resp provider.SchemaResponse
	New("test")().Schema(context.Background(), provider.SchemaRequest{}, &resp)
	var schemaNames []string
	for name := range resp.Schema.Attributes {
		schemaNames = append(schemaNames, name)
	}
	table := readmeSection(t, "### Configuration")
	code := regexp.MustCompile("`([A-Za-z_]+)`")
	var names, envs []string
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		for _, m := range code.FindAllStringSubmatch(cells[1], -1) {
			names = append(names, m[1])
		}
		for _, m := range code.FindAllStringSubmatch(cells[2], -1) {
			if strings.HasPrefix(m[1], "MEDIAPLATFORM_") {
				envs = append(envs, m[1])
			}
		}
	}
	sort.Strings(schemaNames)
	sort.Strings(names)
	if !slices.Equal(names, schemaNames) {
		t.Errorf("README's settings table names\n%v\nthe provider's schema has\n%v", names, schemaNames)
	}
	want := client.EnvVariables()
	sort.Strings(want)
	sort.Strings(envs)
	if !slices.Equal(envs, want) {
		t.Errorf("README's settings table names the variables\n%v\nthe provider reads\n%v", envs, want)
	}
}

// TestReadmeRecipeIsTheTestedIndexRecipe: the README's recipe for one's own
// configuration against the emulator is the one docs/index.md prints under "Running
// against the emulator", which TestAccDocsIndex_shellBlocksAsPrinted runs as printed:
// the build (the last line of the index's first block, run in the clone) and every
// block after it.
func TestReadmeRecipeIsTheTestedIndexRecipe(t *testing.T) {
	t.Parallel()
	readme := docBlocksOf(readmeSection(t, "## Your own configuration against the emulator"))
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "index.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "\n### Running against the emulator\n")
	if !ok {
		t.Fatal(`docs/index.md has no section "Running against the emulator"`)
	}
	section, _, _ = strings.Cut(section, "\n**Changing the platform outside Terraform**")
	index := docBlocksOf(section)
	if len(index) < 2 || len(readme) != len(index) {
		t.Fatalf("README's recipe has %d blocks, the index's %d", len(readme), len(index))
	}
	lines := strings.Split(index[0].text, "\n")
	index[0].text = lines[len(lines)-1]
	for i := range index {
		if readme[i] != index[i] {
			t.Errorf("README's block %d is\n%s\nthe index's is\n%s", i+1, readme[i].text, index[i].text)
		}
	}
}
