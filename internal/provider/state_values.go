package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// stateValues decodes a state into the framework's values of its root attributes and
// blocks, by name: what State.Get does, without its reflection over the model's
// struct tags (the framework compiles a regular expression for every tag it reads).
// A plan refreshing 1,000 scores spent 0.10 s of the provider's 1.43 s of CPU in
// State.Get (BENCHMARKS.md, 2026-11-25); the refresh reads its state this way.
func stateValues(ctx context.Context, state tfsdk.State) (map[string]attr.Value, error) {
	var raw map[string]tftypes.Value
	if err := state.Raw.As(&raw); err != nil {
		return nil, err
	}
	values := make(map[string]attr.Value, len(raw))
	decode := func(name string, typ attr.Type) error {
		v, err := typ.ValueFromTerraform(ctx, raw[name])
		if err != nil {
			return fmt.Errorf("attribute %s: %w", name, err)
		}
		values[name] = v
		return nil
	}
	for name, a := range state.Schema.GetAttributes() {
		if err := decode(name, a.GetType()); err != nil {
			return nil, err
		}
	}
	for name, b := range state.Schema.GetBlocks() {
		if err := decode(name, b.Type()); err != nil {
			return nil, err
		}
	}
	return values, nil
}

// scoreModelFromState reads the state of a mediaplatform_score as State.Get reads it
// into a scoreModel (TestScoreModelFromState holds the two to the same result).
func scoreModelFromState(ctx context.Context, state tfsdk.State) (scoreModel, error) {
	var m scoreModel
	values, err := stateValues(ctx, state)
	if err != nil {
		return m, err
	}
	var bad []string
	str := func(name string) types.String {
		v, ok := values[name].(types.String)
		if !ok {
			bad = append(bad, name)
		}
		return v
	}
	boolean := func(name string) types.Bool {
		v, ok := values[name].(types.Bool)
		if !ok {
			bad = append(bad, name)
		}
		return v
	}
	m.ID, m.ScoreID = str("id"), str("score_id")
	var ok bool
	if m.ScoreURL, ok = values["score_url"].(scoreURLValue); !ok {
		bad = append(bad, "score_url")
	}
	m.Transpose, m.PurgeOnDestroy, m.WaitForRendering = boolean("transpose"), boolean("purge_on_destroy"), boolean("wait_for_rendering")
	m.Status, m.CreatedAt, m.UpdatedAt = str("status"), str("created_at"), str("updated_at")
	m.AdoptUnrecorded = boolean("adopt_unrecorded")
	if m.PageCount, ok = values["page_count"].(types.Int64); !ok {
		bad = append(bad, "page_count")
	}
	if m.Timeouts, ok = values["timeouts"].(timeouts.Value); !ok {
		bad = append(bad, "timeouts")
	}
	if len(bad) > 0 || len(values) != len(scoreModelAttributes) {
		return m, fmt.Errorf("the state does not match the score's model: attributes %v of %d", bad, len(values))
	}
	return m, nil
}

// scoreModelAttributes are the attributes scoreModelFromState reads: every one of
// the schema's.
var scoreModelAttributes = []string{"id", "score_url", "score_id", "transpose", "purge_on_destroy", "wait_for_rendering",
	"status", "created_at", "updated_at", "page_count", "adopt_unrecorded", "timeouts"}
