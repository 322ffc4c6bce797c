package provider

// Every documentation example applied against the emulator, not only validated:
// what a user copies from a page works.

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/go-version"
	"github.com/hashicorp/terraform-plugin-testing/config"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/acctest"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// TestAccExamples_applyAgainstTheEmulator applies each documentation example (the
// files the registry pages show) on an emulator of its own, with what the example
// expects to find there (a score published elsewhere, a command started earlier),
// plans again (empty) and destroys, in an inProcessWorkspace. The list resource and
// the action are run by the CLI tests (they need terraform query and -invoke); the
// import examples need objects Terraform did not create and are validated by make
// validate-examples.
func TestAccExamples_applyAgainstTheEmulator(t *testing.T) {
	t.Parallel()
	cliVersion := cliVersionOf(t, acctest.CLI(t))
	root := filepath.Join("..", "..", "examples")
	publish := func(t *testing.T, emu *testEmulator) config.Variables {
		c := emu.client(t)
		if _, err := c.PublishScore(context.Background(), client.PublishScoreInput{
			ScoreURL: "https://cdn.example/scores/beethoven/symphony-5.sib", Alias: "beethoven-symphony-5",
		}); err != nil {
			t.Fatal(err)
		}
		_ = c.Close(context.Background())
		return nil
	}
	command := func(results []emulator.CommandResult) func(*testing.T, *testEmulator) config.Variables {
		return func(t *testing.T, emu *testEmulator) config.Variables {
			id := dsCreateCommand(t, emu.control(t, "scripted commands"), emulator.CommandScript{
				Type: "publishing:purge", Results: results,
				Steps: []emulator.CommandStep{{Lifecycle: "running", Progress: 50, Duration: 200 * time.Millisecond}, {Lifecycle: "finished", Progress: 100}},
			})
			return config.Variables{"command_id": config.StringVariable(id)}
		}
	}
	for _, tc := range []struct {
		file    string
		setup   func(*testing.T, *testEmulator) config.Variables
		version string // the least CLI version, when the example needs a newer one than 1.7
	}{
		{file: "resources/mediaplatform_external_authentication/resource.tf"},
		{file: "resources/mediaplatform_score/resource.tf"},
		{file: "resources/mediaplatform_score_view/resource.tf"},
		{file: "data-sources/mediaplatform_asset_model/data-source.tf"},
		{file: "data-sources/mediaplatform_command/data-source.tf", setup: command(nil)},
		{file: "data-sources/mediaplatform_command/data-source.tf#bulk", setup: command([]emulator.CommandResult{
			{Success: true, Data: "a"}, {Success: false, HTTPStatus: 409, ErrorCode: "datamodel/THUMBNAIL_CHANGED", ErrorMessage: "changed"},
		})},
		{file: "data-sources/mediaplatform_external_authentication/data-source.tf"},
		{file: "data-sources/mediaplatform_health/data-source.tf"},
		{file: "data-sources/mediaplatform_score/data-source.tf", setup: publish},
		{file: "data-sources/mediaplatform_score_count/data-source.tf"},
		{file: "data-sources/mediaplatform_scores/data-source.tf"},
		{file: "data-sources/mediaplatform_system_model/data-source.tf"},
		{file: "data-sources/mediaplatform_systems/data-source.tf"},
		{file: "ephemeral-resources/mediaplatform_access_token/ephemeral-resource.tf", version: "1.10.0"},
		{file: "ephemeral-resources/mediaplatform_score_view/ephemeral-resource.tf", setup: publish, version: "1.10.0"},
		{file: "functions/localized_label/function.tf", version: "1.8.0"},
		{file: "functions/evaluate_expression/function.tf", version: "1.8.0"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			path := tc.file
			if i := len(path) - len("#bulk"); i > 0 && path[i:] == "#bulk" {
				path = path[:i]
			}
			example, err := os.ReadFile(filepath.Join(root, path))
			if err != nil {
				t.Fatal(err)
			}
			emu := newTestEmulatorWith(t, "objects the example expects", emulator.Options{RenderDelay: testRenderDelay})
			var vars config.Variables
			if tc.setup != nil {
				vars = tc.setup(t, emu)
			}
			if least := tc.version; least != "" && cliVersion.LessThan(version.Must(version.NewVersion(least))) {
				t.Skipf("needs Terraform %s or later; the CLI is %s", least, cliVersion)
			}
			// The apply is followed by the plans the test framework makes after one,
			// without and with a refresh, each of which must be empty.
			w := newInProcessWorkspace(t, emu.providerConfig(), string(example))
			if vars != nil {
				w.variables(vars)
			}
			w.apply()
			w.expectEmptyPlans()
			w.destroy()
		})
	}
}
