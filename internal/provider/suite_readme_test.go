package provider

// The README as a user reads it: its settings table against the provider's schema,
// and its recipe for one's own configuration against the index's, which
// TestAccDocsIndex_shellBlocksAsPrinted runs.

import (
	"context"
	"maps"
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

// withoutVariable names the provider arguments that have no environment variable, each
// with the reason a user reads in the README; TestReadmeSettingsTableFollowsTheSchema
// fails for any other argument without one. Empty: every argument has its variable.
var withoutVariable = map[string]string{}

// TestReadmeSettingsTableFollowsTheSchema walks the provider's schema: every argument
// has an environment variable (or a reason in withoutVariable), its description names
// that variable, and the README's settings table has a row for every argument and no
// other, naming the same variable (or "—" for an exception). Before, platform_hosts was
// missing, and insecure_skip_verify, request_timeout and max_retries had no variable
// though the README's first sentence said every argument had one.
func TestReadmeSettingsTableFollowsTheSchema(t *testing.T) {
	t.Parallel()
	var resp provider.SchemaResponse
	New("test")().Schema(context.Background(), provider.SchemaRequest{}, &resp)
	table := readmeSection(t, "### Configuration")
	rows := readmeSettings(t, table)
	var schemaNames []string
	for name, attribute := range resp.Schema.Attributes {
		schemaNames = append(schemaNames, name)
		var documented string
		if m := documentedVariable.FindStringSubmatch(attribute.GetMarkdownDescription()); m != nil {
			documented = m[1]
		}
		reason, excepted := withoutVariable[name]
		switch {
		case excepted && documented != "":
			t.Errorf("%s is listed without a variable (%s), and its description names %s", name, reason, documented)
		case !excepted && documented == "":
			t.Errorf("the argument %s has no environment variable: give it one (client.EnvVariables, read in "+
				"Configure, named in its description as \"Environment variable: `MEDIAPLATFORM_…`.\"), or list it in "+
				"withoutVariable with the reason", name)
		}
		if row, ok := rows[name]; ok && row != documented {
			t.Errorf("README's settings table gives %s the variable %q, its description %q", name, row, documented)
		}
	}
	if len(withoutVariable) > 0 && strings.Contains(table, "Every argument") {
		t.Errorf("README says every argument has its variable, and %v have none", slices.Sorted(maps.Keys(withoutVariable)))
	}
	names := slices.Sorted(maps.Keys(rows))
	sort.Strings(schemaNames)
	if !slices.Equal(names, schemaNames) {
		t.Errorf("README's settings table names\n%v\nthe provider's schema has\n%v", names, schemaNames)
	}
	var envs []string
	for _, env := range rows {
		if env != "" {
			envs = append(envs, env)
		}
	}
	want := client.EnvVariables()
	sort.Strings(want)
	sort.Strings(envs)
	if !slices.Equal(envs, want) {
		t.Errorf("README's settings table names the variables\n%v\nthe provider reads\n%v", envs, want)
	}
}

// readmeSettings reads the settings table: each argument with the variable its row
// names ("" for "—"); a row of several arguments names their variables in the same order.
func readmeSettings(t *testing.T, table string) map[string]string {
	t.Helper()
	code := regexp.MustCompile("`([A-Za-z_]+)`")
	rows := map[string]string{}
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		var names, envs []string
		for _, m := range code.FindAllStringSubmatch(cells[1], -1) {
			names = append(names, m[1])
		}
		for _, m := range code.FindAllStringSubmatch(cells[2], -1) {
			if strings.HasPrefix(m[1], "MEDIAPLATFORM_") {
				envs = append(envs, m[1])
			}
		}
		if len(envs) != 0 && len(envs) != len(names) {
			t.Errorf("README's settings row %q names %d arguments and %d variables", strings.TrimSpace(line), len(names), len(envs))
			continue
		}
		for i, name := range names {
			rows[name] = ""
			if len(envs) > 0 {
				rows[name] = envs[i]
			}
		}
	}
	return rows
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
