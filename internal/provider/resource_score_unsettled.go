package provider

// A publish whose outcome stayed unknown (its answer lost, and the look-up for the
// score it can have created failed or could not tell) is remembered: the resource is
// kept, tainted and without an id, with what was sent and when in its private state,
// so that the next run settles it by the rule of a lost answer instead of meeting the
// score as a stranger's (issue 61 item 5).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

// unsettledPublishKey is the private state's key of a publish whose outcome stayed
// unknown (unsettledMark).
const unsettledPublishKey = "unsettled_publish"

// unsettledMark records, in the private state of a resource kept without an id, the
// publish whose outcome stayed unknown: what was sent, and when on the platform's
// clock.
type unsettledMark struct {
	ScoreURL  string `json:"score_url"`
	Alias     string `json:"alias,omitempty"`
	Transpose bool   `json:"transpose"`
	Sent      string `json:"sent"`
}

// publish is the mark as the client's UnsettledPublish.
func (m unsettledMark) publish() (client.UnsettledPublish, bool) {
	sent, err := time.Parse(time.RFC3339Nano, m.Sent)
	if err != nil || m.ScoreURL == "" {
		return client.UnsettledPublish{}, false
	}
	return client.UnsettledPublish{
		Input: client.PublishScoreInput{ScoreURL: m.ScoreURL, Alias: m.Alias, Transpose: m.Transpose},
		Sent:  sent,
	}, true
}

// unsettledOf reads the unsettled publish from the private state; ok is false when
// there is none or it cannot be read.
func unsettledOf(ctx context.Context, private privateData) (_ client.UnsettledPublish, ok bool) {
	if private == nil || reflect.ValueOf(private).IsNil() {
		return client.UnsettledPublish{}, false
	}
	b, _ := private.GetKey(ctx, unsettledPublishKey)
	var mark unsettledMark
	if len(b) == 0 || json.Unmarshal(b, &mark) != nil {
		return client.UnsettledPublish{}, false
	}
	return mark.publish()
}

// keepUnsettled keeps the resource of a failed create when err leaves its publish
// unsettled: the planned arguments, no id nor any value only the platform can give,
// and the publish in the private state. Terraform saves a create that failed with a
// state as tainted. It reports whether it kept it: not with an alias and
// adopt_unrecorded, whose own rule settles it.
func (r *scoreResource) keepUnsettled(ctx context.Context, plan scoreModel, err error, resp *resource.CreateResponse) bool {
	u, ok := r.client.UnsettledOf(err)
	if !ok || (u.Input.Alias != "" && plan.AdoptUnrecorded.ValueBool()) {
		// With an alias and adopt_unrecorded, the next apply adopts the score, if the
		// platform published it, and keeps it: a tainted resource would replace it.
		return false
	}
	b, merr := json.Marshal(unsettledMark{
		ScoreURL: u.Input.ScoreURL, Alias: u.Input.Alias, Transpose: u.Input.Transpose,
		Sent: u.Sent.UTC().Format(time.RFC3339Nano),
	})
	if merr != nil {
		return false
	}
	plan.ID, plan.Status, plan.CreatedAt, plan.UpdatedAt = types.StringNull(), types.StringNull(), types.StringNull(), types.StringNull()
	plan.PageCount = types.Int64Null()
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, unsettledPublishKey, b)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	return true
}

// unsettledHint says what a publish left unsettled leaves, and what the next run does.
func unsettledHint(alias string) string {
	how := fmt.Sprintf("by its alias %q (score_id), the score under it with this score_url and options published since", alias)
	if alias == "" {
		how = "by its score_url, the only score of that address without an alias published since with these options"
	}
	return "Nothing to do but apply again: the resource is kept in the state, tainted and without an id, with what the " +
		"next run needs to settle the publish. The platform may have published the score, and the outcome is unknown. " +
		"The next plan looks it up " + how + " this publish was sent: if the platform published it, that apply replaces it " +
		"(Terraform replaces a tainted object: the score is deleted and published again), and if not, it publishes it; no " +
		"adopt_unrecorded or import is needed. To keep the score it finds instead of replacing it, run terraform untaint " +
		"<the resource address named below> before that apply."
}

// readUnsettled refreshes a resource kept without an id: it settles the publish its
// private state remembers, and records the score when the platform published it, or
// drops the resource when it published none. When the platform still cannot tell,
// the state stays as it is, with a warning.
func (r *scoreResource) readUnsettled(ctx context.Context, state scoreModel, req resource.ReadRequest, resp *resource.ReadResponse) {
	u, ok := unsettledOf(ctx, req.Private)
	if !ok {
		if lead := r.unmarked(ctx, state); lead != "" {
			resp.Diagnostics.AddError("Unable to read score", state.detail(lead))
			return
		}
		setScoreIdentity(ctx, resp.Identity, removedIdentity, &resp.Diagnostics)
		resp.State.RemoveResource(ctx)
		return
	}
	score, err := r.client.SettleUnsettled(ctx, u)
	// A refresh that keeps the resource without an id fails: the framework wants an
	// identity after every read, and the next read may give it one (the UUID).
	switch {
	case err != nil:
		addReadError(ctx, r.client, &resp.Diagnostics, "Unable to read score",
			state.detail(fmt.Sprintf("%s An earlier apply's publish of this score, sent at %s on the platform's clock, got "+
				"no usable answer, and looking for the score it can have created still cannot tell whether the platform "+
				"published it; the resource stays in the state, tainted and without an id, until a look-up can tell.",
				stillUnsettledLead(err), u.Sent.UTC().Format(time.RFC3339))), err)
		return
	case score == nil:
		// The publish created no score: the plan publishes it. The framework wants an
		// identity after a read even when the resource is gone; Terraform drops it with
		// the resource.
		setScoreIdentity(ctx, resp.Identity, removedIdentity, &resp.Diagnostics)
		resp.State.RemoveResource(ctx)
		return
	case heldInRun(r.client, score.ID):
		resp.Diagnostics.AddError("Unable to read score",
			state.detail(fmt.Sprintf("Give each resource its own score_id, then remove this resource from the state "+
				"(terraform state rm <the resource address named below>) and apply again: an earlier apply's publish of this "+
				"score got no usable answer, and the score the look-up found for it, %s, is another resource's of this run "+
				"already, so it is not taken for this one.", score.ID)))
		return
	}
	noteHeld(r.client, score.ID)
	ctx = logResource(ctx, score.ID)
	state.refresh(score)
	setScoreIdentity(ctx, resp.Identity, score.ID, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, unsettledPublishKey, nil)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	resp.Diagnostics.AddWarning("Score found: an earlier apply published it",
		state.detail(fmt.Sprintf("Nothing to do: an earlier apply's publish of this score got no usable answer, and the "+
			"platform did publish it, as score %s (%s). The provider recorded it for this resource, which that apply "+
			"left tainted: the next apply replaces it (the score is deleted and published again). To keep it instead, "+
			"run terraform untaint <the resource address named below> before applying.", score.ID, score.Recovered)))
}

// unmarked judges a resource kept without an id whose private state no longer says
// when its publish was sent: Terraform plans the replacement of a tainted object as a
// create and hands its destroy, and the state written after a failed one, the plan's
// private state, which is empty (an apply with -refresh=false; with the refresh, the
// read settles the publish first). Without that moment, a score under the alias may
// be another's, published before: it returns the lead that says what to do, or "" when
// nothing can be this resource's (no score holds the alias), so that the resource goes.
func (r *scoreResource) unmarked(ctx context.Context, state scoreModel) string {
	alias := state.ScoreID.ValueString()
	if alias == "" {
		return "Find the score this resource's publish may have created (data source mediaplatform_scores with " +
			"score_url set to this address) and import it, after terraform state rm <the resource address named below>, " +
			"or delete it: an earlier apply's publish of this score got no usable answer, and when it was sent, which the " +
			"provider needs to tell the score it created from another of the same address, was lost with the private " +
			"state Terraform keeps for the resource (an apply with -refresh=false replaces it without it)."
	}
	held, err := r.client.GetScore(ctx, alias)
	switch {
	case client.IsNotFound(err):
		return ""
	case err != nil:
		return fmt.Sprintf("Apply again once the platform answers: looking up the alias %q failed (%v).", alias, err)
	}
	return fmt.Sprintf("If score %[2]s is this configuration's, import it: terraform state rm <the resource address named "+
		"below>, then terraform import <that address> %[1]s; otherwise delete it or choose another score_id. An earlier "+
		"apply's publish of this score got no usable answer, and score %[2]s holds its alias %[1]q, but when the publish was "+
		"sent, which the provider needs to tell the score it created from one published before, was lost with the private "+
		"state Terraform keeps for the resource (an apply with -refresh=false replaces it without it).", alias, held.ID)
}

// removedIdentity is the identity of a resource a refresh removes from the state.
const removedIdentity = "-"

// stillUnsettledLead is the first sentence for a publish a later look-up still cannot
// settle: several candidates need the user; a look-up that failed needs the platform.
func stillUnsettledLead(err error) string {
	var ambiguous *client.AmbiguousPublishError
	if errors.As(err, &ambiguous) {
		return fmt.Sprintf("Import the score this resource should manage (terraform import <the resource address named "+
			"below> <its UUID>, after terraform state rm of this address) and delete the others: several scores of this "+
			"score_url without an alias were published since this resource's publish was sent (%s).",
			strings.Join(ambiguous.IDs, ", "))
	}
	return "Apply again once the platform answers."
}

// deleteUnsettled destroys a resource kept without an id (the refresh could not
// settle its publish, or did not run): the score its publish created, when the look-up
// finds one, is deleted; none, nothing is. When the platform still cannot tell, or the
// destroy has no private state to tell when the publish was sent, it fails and the
// resource stays, so that no score is left behind unrecorded.
func (r *scoreResource) deleteUnsettled(ctx context.Context, state scoreModel, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	u, ok := unsettledOf(ctx, req.Private)
	if !ok {
		if lead := r.unmarked(ctx, state); lead != "" {
			resp.Diagnostics.AddError("Unable to delete score", state.detail(lead+" Nothing was deleted."))
		}
		return
	}
	score, err := r.client.SettleUnsettled(ctx, u)
	switch {
	case err != nil:
		addClientError(&resp.Diagnostics, "Unable to delete score",
			state.detail(fmt.Sprintf("Apply again once the platform answers: an earlier apply's publish of this score, "+
				"sent at %s on the platform's clock, got no usable answer, and looking for the score it can have created "+
				"still cannot tell whether the platform published it, so nothing was deleted and the resource stays in "+
				"the state.", u.Sent.UTC().Format(time.RFC3339))), err)
		return
	case score == nil || heldInRun(r.client, score.ID):
		return
	}
	if err := r.client.DeleteScore(ctx, score.ID, state.PurgeOnDestroy.ValueBool()); err != nil && !client.IsNotFound(err) {
		addClientError(&resp.Diagnostics, "Unable to delete score", state.detail(fmt.Sprintf("Fix the cause and destroy "+
			"again: score %s, which an earlier apply's publish of this score created (%s), is still on the platform.",
			score.ID, score.Recovered)), err)
	}
}
