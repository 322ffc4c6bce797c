package provider

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dsschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// TestDataSourceScoreSchemas checks the schema of every data source in
// scoreDataSources: valid, and every attribute (nested ones and block attributes
// included) documented for the generated docs.
func TestDataSourceScoreSchemas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	seen := map[string]bool{}
	for _, newDataSource := range scoreDataSources() {
		d := newDataSource()
		meta := &datasource.MetadataResponse{}
		d.Metadata(ctx, datasource.MetadataRequest{ProviderTypeName: "mediaplatform"}, meta)
		if seen[meta.TypeName] {
			t.Errorf("%s is listed twice", meta.TypeName)
		}
		seen[meta.TypeName] = true
		resp := &datasource.SchemaResponse{}
		d.Schema(ctx, datasource.SchemaRequest{}, resp)
		if resp.Diagnostics.HasError() {
			t.Fatalf("%s: schema diagnostics: %v", meta.TypeName, resp.Diagnostics)
		}
		if diags := resp.Schema.ValidateImplementation(ctx); diags.HasError() {
			t.Errorf("%s: schema implementation: %v", meta.TypeName, diags)
		}
		if resp.Schema.MarkdownDescription == "" {
			t.Errorf("%s has no MarkdownDescription", meta.TypeName)
		}
		var walk func(prefix string, attrs map[string]dsschema.Attribute)
		walk = func(prefix string, attrs map[string]dsschema.Attribute) {
			for name, attr := range attrs {
				if attr.GetMarkdownDescription() == "" && attr.GetDescription() == "" {
					t.Errorf("%s: attribute %s%s has no MarkdownDescription", meta.TypeName, prefix, name)
				}
				switch a := attr.(type) {
				case dsschema.ListNestedAttribute:
					walk(prefix+name+".", a.NestedObject.Attributes)
				case dsschema.SingleNestedAttribute:
					walk(prefix+name+".", a.Attributes)
				}
			}
		}
		walk("", resp.Schema.Attributes)
		for name, block := range resp.Schema.Blocks {
			if b, ok := block.(dsschema.SingleNestedBlock); ok {
				walk(name+".", b.Attributes)
			}
		}
	}
	for _, want := range []string{
		"mediaplatform_external_authentication", "mediaplatform_score", "mediaplatform_scores",
		"mediaplatform_score_count", "mediaplatform_health", "mediaplatform_command",
	} {
		if !seen[want] {
			t.Errorf("data source %s is missing", want)
		}
	}
}

func TestDataSourceKnownScoreStatusValidator(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		value   types.String
		warning string
	}{
		{types.StringValue("idle"), ""},
		{types.StringValue("error"), ""},
		{types.StringNull(), ""},
		{types.StringUnknown(), ""},
		{types.StringValue("Idle"), `"Idle", which is not a score status the provider knows (pending, rendering, idle, error)`},
		{types.StringValue("archived"), `"archived"`},
	} {
		resp := &validator.StringResponse{}
		knownScoreStatus().ValidateString(ctx, validator.StringRequest{Path: path.Root("status"), ConfigValue: tc.value}, resp)
		if resp.Diagnostics.HasError() {
			t.Errorf("%s: errors %v, want at most a warning", tc.value, resp.Diagnostics)
		}
		warnings := resp.Diagnostics.Warnings()
		switch {
		case tc.warning == "" && len(warnings) != 0:
			t.Errorf("%s: unexpected warning %v", tc.value, warnings)
		case tc.warning != "" && (len(warnings) != 1 || !strings.Contains(warnings[0].Detail(), tc.warning)):
			t.Errorf("%s: warnings %v, want one containing %q", tc.value, warnings, tc.warning)
		}
	}
}

func TestDataSourceNormalizedJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want types.String
	}{
		{``, types.StringNull()},
		{`null`, types.StringNull()},
		{` {"b": [1, 2.50, 12345678901234567890], "a": {"y": "<&>", "x": null}} `,
			types.StringValue(`{"a":{"x":null,"y":"<&>"},"b":[1,2.50,12345678901234567890]}`)},
		{`{}`, types.StringValue(`{}`)},
	} {
		got, err := normalizedJSON(json.RawMessage(tc.in))
		if err != nil || !got.Equal(tc.want) {
			t.Errorf("normalizedJSON(%s) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	if _, err := normalizedJSON(json.RawMessage(`{"a":`)); err == nil {
		t.Error("normalizedJSON accepted broken JSON")
	}
}

func TestDataSourceStringParams(t *testing.T) {
	t.Parallel()
	var params map[string]any
	if err := json.Unmarshal([]byte(`{"s": "two words", "n": 2, "f": 1.5, "b": true, "z": null, "o": {"k": ["v"]}}`), &params); err != nil {
		t.Fatal(err)
	}
	got := stringParams(params)
	want := map[string]string{"s": "two words", "n": "2", "f": "1.5", "b": "true", "z": "null", "o": `{"k":["v"]}`}
	if !maps.Equal(got, want) {
		t.Errorf("stringParams = %v, want %v", got, want)
	}
	if stringParams(nil) != nil {
		t.Error("stringParams(nil) is not nil")
	}
}

// Helpers shared by the acceptance tests of the score data sources.

// dsListRoute is the emulator's stats key of GET /scores.
func dsListRoute(emu *emulator.Emulator) string {
	return "GET " + emu.PublishingURL("") + "/scores"
}

// dsPublishScores publishes the scores in order, waits until each has rendered, and
// returns them as the platform then reports them, in the list's order (creation
// time, then UUID). They are deleted when the test ends.
func dsPublishScores(t *testing.T, emu *testEmulator, inputs ...client.PublishScoreInput) []*client.Score {
	t.Helper()
	c := emu.client(t)
	deleteAtEnd := emu.deleteAtCleanup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ids := make([]string, 0, len(inputs))
	for _, in := range inputs {
		s, err := c.PublishScore(ctx, in)
		if err != nil {
			t.Fatalf("publishing %+v: %v", in, err)
		}
		ids = append(ids, s.ID)
		deleteAtEnd(s.ID)
	}
	scores := make([]*client.Score, 0, len(ids))
	for _, id := range ids {
		s, err := c.WaitForRendering(ctx, id)
		if err != nil {
			t.Fatalf("waiting for score %s: %v", id, err)
		}
		scores = append(scores, s)
	}
	dsSortScores(scores)
	return scores
}

// dsSortScores sorts scores in the list's order: creation time, then UUID.
func dsSortScores(scores []*client.Score) {
	slices.SortStableFunc(scores, func(a, b *client.Score) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// dsScoreAttributes are the checks of every attribute a data source reports for s,
// other than id and uuid.
func dsScoreAttributes(s *client.Score) map[string]knownvalue.Check {
	optional := func(v string) knownvalue.Check {
		if v == "" {
			return knownvalue.Null()
		}
		return knownvalue.StringExact(v)
	}
	renderings := make([]knownvalue.Check, 0, len(s.Renderings))
	for _, r := range s.Renderings {
		renderings = append(renderings, knownvalue.ObjectExact(map[string]knownvalue.Check{
			"format": knownvalue.StringExact(r.Format),
			"pages":  knownvalue.Int64Exact(int64(r.Pages)),
		}))
	}
	return map[string]knownvalue.Check{
		"score_id":   optional(s.Alias),
		"score_url":  knownvalue.StringExact(s.ScoreURL),
		"transpose":  knownvalue.Bool(s.Transpose),
		"status":     knownvalue.StringExact(s.Status),
		"created_at": knownvalue.StringExact(s.CreatedAt.UTC().Format(time.RFC3339Nano)),
		"updated_at": knownvalue.StringExact(s.UpdatedAt.UTC().Format(time.RFC3339Nano)),
		"page_count": knownvalue.Int64Exact(int64(s.PageCount())),
		"publisher":  optional(s.Publisher),
		"renderings": knownvalue.ListExact(renderings),
	}
}

// dsScoreObject checks one element of mediaplatform_scores.scores: every attribute.
func dsScoreObject(s *client.Score) knownvalue.Check {
	attrs := dsScoreAttributes(s)
	attrs["id"] = knownvalue.StringExact(s.ID)
	return knownvalue.ObjectExact(attrs)
}

// dsScoreList checks a whole list of scores, in order.
func dsScoreList(scores []*client.Score) knownvalue.Check {
	checks := make([]knownvalue.Check, 0, len(scores))
	for _, s := range scores {
		checks = append(checks, dsScoreObject(s))
	}
	return knownvalue.ListExact(checks)
}

// dsExpect is statecheck.ExpectKnownValue on a top-level attribute.
func dsExpect(address, attribute string, check knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(address, tfjsonpath.New(attribute), check)
}

// dsPath builds a state path from attribute names (strings) and list indexes (ints).
func dsPath(first string, steps ...any) tfjsonpath.Path {
	p := tfjsonpath.New(first)
	for _, s := range steps {
		switch v := s.(type) {
		case int:
			p = p.AtSliceIndex(v)
		case string:
			p = p.AtMapKey(v)
		}
	}
	return p
}
