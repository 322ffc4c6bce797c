package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

// TestAccScore_summaryListings applies transposed and plain scores that wait for
// their rendering, with the provider's default settings (shared rendering wait,
// refresh_strategy auto) and with render_wait = "individual", on a platform whose
// listing gives each score as a summary without options and renderings (reading
// summaryListings), and on one that lists whole scores: the apply succeeds, the
// state and mediaplatform_scores hold each score's transpose and page count as GET
// /scores/{id} gives them, and the plan after it is empty (no replacement). It logs
// what a refresh costs on each platform; on one that lists whole scores the refresh
// makes no GET for a score the listing gave.
func TestAccScore_summaryListings(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	const transposed, plain = 6, 4
	for _, variant := range []struct {
		name, reading, provider string
	}{
		{"summaries", "summaryListings", ""},
		{"summaries, render_wait individual", "summaryListings", `  render_wait = "individual"`},
		{"whole scores", "", ""},
	} {
		t.Run(variant.name, func(t *testing.T) {
			t.Parallel()
			emu := newTestEmulatorWith(t, "the reading summaryListings", emulator.Options{RenderDelay: testRenderDelay})
			ctl := emu.control(t, "readings and request counts")
			var readings emulator.Readings
			if variant.reading != "" {
				if err := readings.Set(variant.reading); err != nil {
					t.Fatal(err)
				}
			}
			ctl.SetFaults(emulator.Faults{Readings: readings})
			name := accName()
			resources := fmt.Sprintf(`
resource "mediaplatform_score" "transposed" {
  count     = %[1]d
  score_url = "https://cdn.example/summaries/%[3]s-t${count.index}.sib"
  transpose = true
}
resource "mediaplatform_score" "plain" {
  count     = %[2]d
  score_url = "https://cdn.example/summaries/%[3]s-p${count.index}.sib"
}
data "mediaplatform_scores" "all" {
  depends_on = [mediaplatform_score.transposed, mediaplatform_score.plain]
}
`, transposed, plain, name)
			w := newWorkspace(t, emu, "")
			w.writeWith(variant.provider, resources)
			publish := "POST " + ctl.PublishingURL("") + "/scores"
			beforeApply := ctl.Stats()
			w.run("apply", "-auto-approve")
			t.Logf("apply of %d scores on %s: %s", transposed+plain, variant.name, requestDelta(beforeApply, ctl.Stats()))
			if n := ctl.Stats().Requests[publish]; n != transposed+plain {
				t.Errorf("the apply published %d times, want %d", n, transposed+plain)
			}

			c := emu.client(t)
			listed := map[string]map[string]any{}
			scores, _ := w.attribute("data.mediaplatform_scores.all", "scores").([]any)
			for _, s := range scores {
				if m, ok := s.(map[string]any); ok {
					listed[fmt.Sprint(m["id"])] = m
				}
			}
			for i := range transposed + plain {
				address := fmt.Sprintf("mediaplatform_score.transposed[%d]", i)
				if i >= transposed {
					address = fmt.Sprintf("mediaplatform_score.plain[%d]", i-transposed)
				}
				id := fmt.Sprint(w.attribute(address, "id"))
				want, err := c.GetScore(context.Background(), id)
				if err != nil {
					t.Fatal(err)
				}
				for source, values := range map[string]map[string]any{
					address: {"transpose": w.attribute(address, "transpose"), "page_count": w.attribute(address, "page_count")},
					"data.mediaplatform_scores.all[" + id + "]": listed[id],
				} {
					if values == nil || values["transpose"] != want.Transpose || fmt.Sprint(values["page_count"]) != fmt.Sprint(want.PageCount()) ||
						want.PageCount() < 1 {
						t.Errorf("%s: transpose %v, page_count %v; the platform gives %v and %d",
							source, values["transpose"], values["page_count"], want.Transpose, want.PageCount())
					}
				}
			}

			get := "GET " + ctl.PublishingURL("") + "/scores/{id}"
			for run := range 2 {
				before := ctl.Stats()
				w.run("plan", "-detailed-exitcode") // exit code 2, a plan with changes, fails the test
				after := ctl.Stats()
				t.Logf("plan %d of %d scores on %s: %s", run+1, transposed+plain, variant.name, requestDelta(before, after))
				// Each refresh reads its score once, from the listing or with a GET (its
				// own, before the count answers, or for a summary); the data source
				// reads a GET only for a summary.
				gets := after.Requests[get] - before.Requests[get]
				switch {
				case variant.reading != "" && gets != 2*(transposed+plain):
					t.Errorf("a plan on summary listings made %d GETs, want %d: one for each score's refresh and "+
						"one for each score of the data source", gets, 2*(transposed+plain))
				case variant.reading == "" && gets > transposed+plain:
					t.Errorf("a plan on whole listings made %d GETs, want at most one a score (the refresh's)", gets)
				}
			}
			w.run("destroy", "-auto-approve")
		})
	}
}
