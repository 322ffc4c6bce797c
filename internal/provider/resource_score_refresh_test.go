package provider

import (
	"fmt"
	"testing"
)

// TestAccScore_batchedRefresh plans 150 scores through the real CLI: with the default
// refresh_strategy the refresh costs a count, the list pages and a GET or two, with
// refresh_strategy = "individual" one GET per score; both plans are empty.
func TestAccScore_batchedRefresh(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	const scores = 150
	emu := newTestEmulator(t)
	ctl := emu.control(t, "request counts")
	resources := fmt.Sprintf(`
resource "mediaplatform_score" "many" {
  count              = %d
  score_url          = "https://cdn.example/refresh/${count.index}.sib"
  wait_for_rendering = false
}
`, scores)
	w := newWorkspace(t, emu, resources)
	w.run("apply", "-auto-approve")
	get, list, count := "GET "+ctl.PublishingURL("")+"/scores/{id}", dsListRoute(ctl), "POST "+ctl.PublishingURL("")+"/scores/count"

	before := ctl.Stats()
	w.run("plan", "-detailed-exitcode")
	after := ctl.Stats()
	reads := after.Requests[get] - before.Requests[get] + after.Requests[list] - before.Requests[list] +
		after.Requests[count] - before.Requests[count]
	t.Logf("plan of %d scores, refresh_strategy auto: %s", scores, requestDelta(before, after))
	if reads > 15 || after.Requests[list]-before.Requests[list] != 2 {
		t.Errorf("the refresh of %d scores cost %d requests, want the 2 list pages and at most 15 in all: %s",
			scores, reads, requestDelta(before, after))
	}

	w.writeWith(`  refresh_strategy = "individual"`, resources)
	before = ctl.Stats()
	w.run("plan", "-detailed-exitcode")
	after = ctl.Stats()
	t.Logf("plan of %d scores, refresh_strategy individual: %s", scores, requestDelta(before, after))
	if n := after.Requests[get] - before.Requests[get]; n != scores || after.Requests[list] != before.Requests[list] {
		t.Errorf("with refresh_strategy = \"individual\" the refresh made %d GETs and %d list requests, want %d and 0",
			n, after.Requests[list]-before.Requests[list], scores)
	}
	w.run("destroy", "-auto-approve")
}
