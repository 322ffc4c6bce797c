package emulator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// cmdHarness is one emulator behind an httptest server with a platform token.
type cmdHarness struct {
	*emuTester
	token string
	clock *testClock // nil: real time
}

// newCmdHarness starts an emulator; with fakeClock the commands run on a clock
// that only the test advances.
func newCmdHarness(t *testing.T, fakeClock bool) *cmdHarness {
	t.Helper()
	e := New(Options{})
	var clock *testClock
	if fakeClock {
		clock = newTestClock()
		e.commands.clock = clock.Now
	}
	h := &cmdHarness{emuTester: serveEmulator(t, e), clock: clock}
	h.token = h.platformLogin(DefaultUserName, DefaultUserPassword)
	return h
}

type cmdResponse struct {
	status int
	header http.Header
	doc    map[string]any
}

// call sends a request; body is sent as is when it is a string, else as JSON.
func (h *cmdHarness) call(method, url string, body any, authenticated bool) cmdResponse {
	h.t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	default:
		r = bytes.NewReader(cmdJSON(h.t, b))
	}
	req := h.request(method, url, r)
	if authenticated {
		req.Header.Set("Authorization", "Bearer "+h.token)
	}
	res := h.send(req)
	out := cmdResponse{status: res.status, header: res.header}
	if len(res.body) > 0 {
		if err := json.Unmarshal(res.body, &out.doc); err != nil {
			h.t.Fatalf("%s %s: body is not a JSON object: %v: %s", method, url, err, res.body)
		}
	}
	return out
}

// create posts a script to the control surface and returns the command resource.
func (h *cmdHarness) create(script any) map[string]any {
	h.t.Helper()
	res := h.call(http.MethodPost, h.srv.URL+"/_emulator/commands", script, false)
	if res.status != http.StatusOK {
		h.t.Fatalf("POST /_emulator/commands: status %d: %v", res.status, res.doc)
	}
	return res.doc
}

func (h *cmdHarness) url(id string) string { return h.srv.URL + CommandPath(id) }

// get reads a command and expects 200.
func (h *cmdHarness) get(id string) map[string]any {
	h.t.Helper()
	res := h.call(http.MethodGet, h.url(id), nil, true)
	if res.status != http.StatusOK {
		h.t.Fatalf("GET command %s: status %d: %v", id, res.status, res.doc)
	}
	if ct := res.header.Get("Content-Type"); ct != "application/hal+json" {
		h.t.Fatalf("GET command %s: Content-Type %q", id, ct)
	}
	return res.doc
}

func (h *cmdHarness) at(d time.Duration) string { return formatTime(testClockStart.Add(d)) }

// cmdField returns the value at a dotted path of a JSON document, and whether it exists.
func cmdField(doc map[string]any, path string) (any, bool) {
	var cur any = doc
	for _, key := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[key]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// cmdExpect checks the values at paths; the value cmdAbsent means the field must be cmdAbsent.
func cmdExpect(t *testing.T, doc map[string]any, want map[string]any) {
	t.Helper()
	for path, w := range want {
		got, ok := cmdField(doc, path)
		if w == cmdAbsent {
			if ok {
				t.Errorf("%s = %v, want it cmdAbsent", path, got)
			}
			continue
		}
		if !ok {
			t.Errorf("%s is missing, want %v", path, w)
			continue
		}
		if wb, _ := json.Marshal(w); string(wb) != string(cmdJSON(t, got)) {
			t.Errorf("%s = %s, want %s", path, cmdJSON(t, got), wb)
		}
	}
}

// cmdAbsent marks a field that must not be present.
var cmdAbsent = &struct{ cmdAbsent bool }{}

func cmdJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func cmdID(t *testing.T, doc map[string]any) string {
	t.Helper()
	id, _ := cmdField(doc, "command.id")
	s, ok := id.(string)
	if !ok {
		t.Fatalf("command.id missing in %v", doc)
	}
	return s
}

// purgeScript goes pending (30 ms) → running (30 ms) → finished.
var purgeScript = map[string]any{
	"type":       "publishing:purge",
	"creator":    "alice",
	"parameters": map[string]any{"ids": []string{"a", "b"}},
	"steps": []any{
		map[string]any{"lifecycle": "pending", "progress": 0, "durationMs": 30},
		map[string]any{"lifecycle": "running", "progress": 40, "duration": "30ms",
			"state": map[string]any{"text": "Purging renderings", "code": "publishing/PURGING", "params": map[string]any{"done": 2}}},
		map[string]any{"lifecycle": "finished", "progress": 100},
	},
}

func TestCommandResourceShape(t *testing.T) {
	t.Parallel()
	h := newCmdHarness(t, true)
	res := h.call(http.MethodPost, h.srv.URL+"/_emulator/commands", purgeScript, false)
	if res.status != http.StatusOK {
		t.Fatalf("status %d: %v", res.status, res.doc)
	}
	if ct := res.header.Get("Content-Type"); ct != "application/hal+json" {
		t.Errorf("Content-Type %q", ct)
	}
	self := h.srv.URL + "/apis/commands;version=1;realm=global/commands/c-1"
	if loc := res.header.Get("Location"); loc != self {
		t.Errorf("Location %q, want %q", loc, self)
	}
	want := map[string]any{
		"version":                    "1.0",
		"command.id":                 "c-1",
		"command.type":               "publishing:purge",
		"command.lifecycle":          "pending",
		"command.progress":           0,
		"command.state":              map[string]any{"text": "Pending", "code": "commands/PENDING", "params": map[string]any{}},
		"command.created":            h.at(0),
		"command.modified":           h.at(0),
		"command.finished":           cmdAbsent,
		"command.error":              cmdAbsent,
		"command.creator":            "alice",
		"command.host":               "emulator-1",
		"command.serviceName":        "publishing",
		"command.serviceVersion":     "2.0.0",
		"command.serviceInstance":    "i-1",
		"payload.command-parameters": map[string]any{"ids": []string{"a", "b"}},
		"payload.result":             cmdAbsent,
		"_links": map[string]any{
			"self":           map[string]any{"href": self},
			"command:cancel": []any{map[string]any{"href": self}},
			"curies":         []any{map[string]any{"name": "command", "href": h.srv.URL + "/docs/rels/{rel}", "templated": true}},
		},
	}
	cmdExpect(t, res.doc, want)
	// GET on the self href gives the same resource.
	cmdExpect(t, h.get("c-1"), want)
}

func TestCommandProgression(t *testing.T) {
	t.Parallel()
	h := newCmdHarness(t, true)
	id := cmdID(t, h.create(purgeScript))

	h.clock.Advance(29 * time.Millisecond)
	cmdExpect(t, h.get(id), map[string]any{"command.lifecycle": "pending", "command.modified": h.at(0)})

	h.clock.Advance(time.Millisecond)
	cmdExpect(t, h.get(id), map[string]any{
		"command.lifecycle": "running",
		"command.progress":  40,
		"command.state":     map[string]any{"text": "Purging renderings", "code": "publishing/PURGING", "params": map[string]any{"done": 2}},
		"command.created":   h.at(0),
		"command.modified":  h.at(30 * time.Millisecond),
		"command.finished":  cmdAbsent,
	})

	h.clock.Advance(30 * time.Millisecond)
	finished := map[string]any{
		"command.lifecycle": "finished",
		"command.progress":  100,
		"command.state":     map[string]any{"text": "Finished", "code": "commands/FINISHED", "params": map[string]any{}},
		"command.modified":  h.at(60 * time.Millisecond),
		"command.finished":  h.at(60 * time.Millisecond),
		"command.error":     cmdAbsent,
		"payload.result":    cmdAbsent,
	}
	cmdExpect(t, h.get(id), finished)

	// The last step holds forever.
	h.clock.Advance(24 * time.Hour)
	cmdExpect(t, h.get(id), finished)
}

func TestCommandProgressionRealClock(t *testing.T) {
	t.Parallel()
	h := newCmdHarness(t, false)
	doc := h.create(purgeScript)
	id := cmdID(t, doc)
	first, _ := cmdField(doc, "command.lifecycle")
	seen := []any{first}
	deadline := time.Now().Add(2 * time.Second)
	for seen[len(seen)-1] != "finished" {
		if time.Now().After(deadline) {
			t.Fatalf("command did not finish in time; lifecycles seen: %v", seen)
		}
		time.Sleep(5 * time.Millisecond)
		if lc, _ := cmdField(h.get(id), "command.lifecycle"); lc != seen[len(seen)-1] {
			seen = append(seen, lc)
		}
	}
	// Whatever the scheduling, the lifecycles appear in script order.
	order := map[any]int{"pending": 0, "running": 1, "finished": 2}
	if seen[0] != "pending" {
		t.Errorf("created as %v, want pending", seen[0])
	}
	for i := 1; i < len(seen); i++ {
		if order[seen[i]] <= order[seen[i-1]] {
			t.Errorf("lifecycles out of order: %v", seen)
		}
	}
	final := h.get(id)
	createdAt, _ := cmdField(final, "command.created")
	finishedAt, _ := cmdField(final, "command.finished")
	created, err1 := time.Parse(time.RFC3339, fmt.Sprint(createdAt))
	fin, err2 := time.Parse(time.RFC3339, fmt.Sprint(finishedAt))
	if err1 != nil || err2 != nil {
		t.Fatalf("created %v, finished %v: %v %v", createdAt, finishedAt, err1, err2)
	}
	if got := fin.Sub(created); got != 60*time.Millisecond {
		t.Errorf("finished - created = %v, want 60ms", got)
	}
}

func TestCommandError(t *testing.T) {
	t.Parallel()
	h := newCmdHarness(t, true)
	steps := []any{
		map[string]any{"lifecycle": "running", "progress": 10, "durationMs": 10},
		map[string]any{"lifecycle": "error", "progress": 10},
	}
	scripted := map[string]any{"cause": "rejected", "httpCode": 400, "text": "unsupported",
		"code": "publishing/BAD_ARGUMENT", "params": map[string]any{"field": "mode"}}
	withError := cmdID(t, h.create(map[string]any{"type": "publishing:render", "steps": steps, "error": scripted}))
	withoutError := cmdID(t, h.create(map[string]any{"steps": steps}))

	cmdExpect(t, h.get(withError), map[string]any{"command.lifecycle": "running", "command.error": cmdAbsent, "command.finished": cmdAbsent})

	h.clock.Advance(10 * time.Millisecond)
	cmdExpect(t, h.get(withError), map[string]any{
		"command.lifecycle": "error",
		"command.progress":  10,
		"command.state":     map[string]any{"text": "Failed", "code": "commands/ERROR", "params": map[string]any{}},
		"command.finished":  h.at(10 * time.Millisecond),
		"command.modified":  h.at(10 * time.Millisecond),
		"command.error":     scripted,
	})
	// Without a scripted error the command fails with a generic runtime error.
	cmdExpect(t, h.get(withoutError), map[string]any{
		"command.lifecycle":   "error",
		"command.serviceName": "commands",
		"command.type":        cmdAbsent,
		"command.creator":     cmdAbsent,
		"command.error": map[string]any{"cause": "runtimeError", "httpCode": 500, "text": "the command failed",
			"code": "commands/INTERNAL_SERVER_ERROR", "params": map[string]any{}},
	})
}

func TestBulkCommand(t *testing.T) {
	t.Parallel()
	h := newCmdHarness(t, true)
	results := []any{
		map[string]any{"success": true, "data": "a"},
		map[string]any{"success": false, "data": "", "httpStatus": 409,
			"errorCode": "datamodel/THUMBNAIL_CHANGED", "errorMessage": "the thumbnail changed"},
		map[string]any{"success": true, "data": "c"},
	}
	id := cmdID(t, h.create(map[string]any{
		"type": "datamodel:bulk-update",
		"steps": []any{
			map[string]any{"lifecycle": "running", "progress": 50, "durationMs": 20,
				"state": map[string]any{"text": "Updating", "code": "datamodel/UPDATING", "params": map[string]any{"phase": "one"}}},
			map[string]any{"lifecycle": "finished", "progress": 100,
				"state": map[string]any{"text": "Updated", "code": "datamodel/UPDATED", "params": map[string]any{"note": "done"}}},
		},
		"results": results,
	}))
	cmdExpect(t, h.get(id), map[string]any{
		"command.lifecycle":    "running",
		"command.state.params": map[string]any{"phase": "one"},
		"payload.result":       cmdAbsent,
	})

	h.clock.Advance(20 * time.Millisecond)
	cmdExpect(t, h.get(id), map[string]any{
		"command.lifecycle": "finished",
		"command.error":     cmdAbsent,
		"command.state": map[string]any{"text": "Updated", "code": "datamodel/UPDATED",
			"params": map[string]any{"note": "done", "totalCount": 3, "successCount": 2, "failureCount": 1}},
		"payload.result": results,
	})

	// A bulk command over no entities still reports an (empty) result.
	empty := h.create(map[string]any{"steps": []any{map[string]any{"lifecycle": "finished", "progress": 100}}, "results": []any{}})
	cmdExpect(t, empty, map[string]any{
		"payload.result":       []any{},
		"command.state.params": map[string]any{"totalCount": 0, "successCount": 0, "failureCount": 0},
	})
}

func TestCancelRunningCommand(t *testing.T) {
	t.Parallel()
	h := newCmdHarness(t, true)
	id := cmdID(t, h.create(map[string]any{
		"creator": "bob",
		"steps": []any{
			map[string]any{"lifecycle": "running", "progress": 30, "duration": "1h"},
			map[string]any{"lifecycle": "finished", "progress": 100},
		},
	}))
	h.clock.Advance(10 * time.Millisecond)
	res := h.call(http.MethodDelete, h.url(id), nil, true)
	if res.status != http.StatusOK {
		t.Fatalf("cancel: status %d: %v", res.status, res.doc)
	}
	if ct := res.header.Get("Content-Type"); ct != "application/hal+json" {
		t.Errorf("Content-Type %q", ct)
	}
	canceled := map[string]any{
		"command.id":          id,
		"command.lifecycle":   "error",
		"command.progress":    30,
		"command.creator":     "bob",
		"command.modified":    h.at(10 * time.Millisecond),
		"command.finished":    h.at(10 * time.Millisecond),
		"command.error.cause": "canceled",
		"command.error.code":  "commands/CANCELED",
		"command.error.text":  "the command was canceled by alice",
		"_links.self.href":    h.url(id),
	}
	cmdExpect(t, res.doc, canceled)

	// The script stops: long after its end the command is still canceled.
	h.clock.Advance(2 * time.Hour)
	cmdExpect(t, h.get(id), canceled)

	// A canceled command has failed: it cannot be canceled again.
	if res := h.call(http.MethodDelete, h.url(id), nil, true); res.status != http.StatusForbidden {
		t.Errorf("second cancel: status %d, want 403", res.status)
	}
}

func TestCancelFinishedOrFailedCommand(t *testing.T) {
	t.Parallel()
	h := newCmdHarness(t, true)
	finished := cmdID(t, h.create(map[string]any{"steps": []any{map[string]any{"lifecycle": "finished", "progress": 100}}}))
	failed := cmdID(t, h.create(map[string]any{"steps": []any{map[string]any{"lifecycle": "error"}}}))
	for id, lifecycle := range map[string]string{finished: "finished", failed: "error"} {
		res := h.call(http.MethodDelete, h.url(id), nil, true)
		if res.status != http.StatusForbidden {
			t.Fatalf("cancel %s: status %d, want 403: %v", lifecycle, res.status, res.doc)
		}
		if ct := res.header.Get("Content-Type"); ct != "application/problem+json" {
			t.Errorf("Content-Type %q", ct)
		}
		cmdExpect(t, res.doc, map[string]any{"code": "commands/FORBIDDEN", "status": 403, "params.id": id})
		// The command is unchanged.
		cmdExpect(t, h.get(id), map[string]any{"command.lifecycle": lifecycle})
	}
}

func TestCommandNotFound(t *testing.T) {
	t.Parallel()
	h := newCmdHarness(t, true)
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		res := h.call(method, h.url("c-99"), nil, true)
		if res.status != http.StatusNotFound {
			t.Fatalf("%s: status %d, want 404", method, res.status)
		}
		if ct := res.header.Get("Content-Type"); ct != "application/problem+json" {
			t.Errorf("Content-Type %q", ct)
		}
		cmdExpect(t, res.doc, map[string]any{"code": "commands/NOT_FOUND", "status": 404, "params.id": "c-99"})
	}
}

func TestCommandUnauthorized(t *testing.T) {
	t.Parallel()
	h := newCmdHarness(t, true)
	id := cmdID(t, h.create(purgeScript))
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		res := h.call(method, h.url(id), nil, false)
		if res.status != http.StatusUnauthorized {
			t.Fatalf("%s without token: status %d, want 401", method, res.status)
		}
		cmdExpect(t, res.doc, map[string]any{"code": "auth/UNAUTHORIZED"})
	}
	// Not canceled by the refused DELETE.
	cmdExpect(t, h.get(id), map[string]any{"command.lifecycle": "pending"})

	// The cookie carries the token as well as the header (contract B4).
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, h.url(id), nil)
	req.AddCookie(&http.Cookie{Name: "serviceAccessToken", Value: h.token})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET with cookie: status %d", resp.StatusCode)
	}
}

func TestSuspendedCommand(t *testing.T) {
	t.Parallel()
	h := newCmdHarness(t, true)
	// A suspended step without a duration holds; the steps after it never come.
	held := cmdID(t, h.create(map[string]any{"steps": []any{
		map[string]any{"lifecycle": "running", "progress": 20, "durationMs": 10},
		map[string]any{"lifecycle": "suspended", "progress": 20},
		map[string]any{"lifecycle": "finished", "progress": 100},
	}}))
	// A suspended step with a duration is resumed by the next step.
	resumed := cmdID(t, h.create(map[string]any{"steps": []any{
		map[string]any{"lifecycle": "suspended", "progress": 0, "durationMs": 20},
		map[string]any{"lifecycle": "running", "progress": 60},
	}}))
	cmdExpect(t, h.get(resumed), map[string]any{"command.lifecycle": "suspended", "command.state.code": "commands/SUSPENDED"})

	h.clock.Advance(10 * time.Millisecond)
	cmdExpect(t, h.get(held), map[string]any{"command.lifecycle": "suspended", "command.modified": h.at(10 * time.Millisecond)})

	h.clock.Advance(10 * time.Millisecond)
	cmdExpect(t, h.get(resumed), map[string]any{"command.lifecycle": "running", "command.progress": 60,
		"command.modified": h.at(20 * time.Millisecond)})

	h.clock.Advance(24 * time.Hour)
	cmdExpect(t, h.get(held), map[string]any{"command.lifecycle": "suspended", "command.finished": cmdAbsent,
		"command.modified": h.at(10 * time.Millisecond)})

	// A suspended command can be canceled.
	res := h.call(http.MethodDelete, h.url(held), nil, true)
	if res.status != http.StatusOK {
		t.Fatalf("cancel suspended: status %d", res.status)
	}
	cmdExpect(t, res.doc, map[string]any{"command.lifecycle": "error", "command.error.cause": "canceled"})
}

func TestCommandScriptValidation(t *testing.T) {
	t.Parallel()
	h := newCmdHarness(t, true)
	running := `{"lifecycle": "running", "progress": 10}`
	failure := func(entry string) string {
		return `{"steps": [{"lifecycle": "finished"}], "results": [{"success": true, "data": "a"}, ` + entry + `]}`
	}
	tests := []struct {
		name, body, field string
	}{
		{"empty body", ``, "steps"},
		{"no steps", `{"type": "publishing:purge"}`, "steps"},
		{"empty steps", `{"steps": []}`, "steps"},
		{"missing lifecycle", `{"steps": [{"progress": 10}]}`, "steps[0].lifecycle"},
		{"unknown lifecycle", `{"steps": [` + running + `, {"lifecycle": "done"}]}`, "steps[1].lifecycle"},
		{"progress above 100", `{"steps": [{"lifecycle": "running", "progress": 101}]}`, "steps[0].progress"},
		{"negative progress", `{"steps": [{"lifecycle": "running", "progress": -1}]}`, "steps[0].progress"},
		{"progress not a number", `{"steps": [{"lifecycle": "running", "progress": "x"}]}`, "steps[0].progress"},
		{"state not an object", `{"steps": [{"lifecycle": "running", "state": "x"}]}`, "steps[0].state"},
		{"step not an object", `{"steps": [` + running + `, 7]}`, "steps[1]"},
		{"bad duration string", `{"steps": [{"lifecycle": "running", "duration": "soon"}]}`, "steps[0].duration"},
		{"negative duration", `{"steps": [{"lifecycle": "running", "duration": -5}]}`, "steps[0].duration"},
		{"negative duration string", `{"steps": [{"lifecycle": "running", "duration": "-1s"}]}`, "steps[0].duration"},
		{"negative durationMs", `{"steps": [{"lifecycle": "running", "durationMs": -1}]}`, "steps[0].duration"},
		{"both durations", `{"steps": [{"lifecycle": "running", "duration": "1s", "durationMs": 1000}]}`, "steps[0].duration"},
		{"durationMs not a number", `{"steps": [{"lifecycle": "running", "durationMs": "10"}]}`, "steps[0].durationMs"},
		{"step after finished", `{"steps": [{"lifecycle": "finished"}, ` + running + `]}`, "steps[0].lifecycle"},
		{"step after error", `{"steps": [` + running + `, {"lifecycle": "error"}, ` + running + `]}`, "steps[1].lifecycle"},
		{"unknown error cause", `{"steps": [{"lifecycle": "error"}], "error": {"cause": "oops", "text": "t", "code": "a/B"}}`, "error.cause"},
		{"bad httpCode", `{"steps": [{"lifecycle": "error"}], "error": {"httpCode": 1000}}`, "error.httpCode"},
		{"failure with data", failure(`{"success": false, "data": "b", "httpStatus": 409, "errorCode": "a/B", "errorMessage": "m"}`), "results[1].data"},
		{"failure without status", failure(`{"success": false, "data": "", "errorCode": "a/B", "errorMessage": "m"}`), "results[1].httpStatus"},
		{"failure with success status", failure(`{"success": false, "httpStatus": 200, "errorCode": "a/B", "errorMessage": "m"}`), "results[1].httpStatus"},
		{"failure without code", failure(`{"success": false, "httpStatus": 409, "errorMessage": "m"}`), "results[1].errorCode"},
		{"failure without message", failure(`{"success": false, "httpStatus": 409, "errorCode": "a/B"}`), "results[1].errorMessage"},
		{"not JSON", `steps please`, "body"},
		{"parameters not an object", `{"parameters": [1], "steps": [` + running + `]}`, "parameters"},
		{"creator not a string", `{"creator": 5, "steps": [` + running + `]}`, "creator"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := h.call(http.MethodPost, h.srv.URL+"/_emulator/commands", tc.body, false)
			if res.status != http.StatusBadRequest {
				t.Fatalf("status %d, want 400: %v", res.status, res.doc)
			}
			if ct := res.header.Get("Content-Type"); ct != "application/problem+json" {
				t.Errorf("Content-Type %q", ct)
			}
			cmdExpect(t, res.doc, map[string]any{"code": "emulator/BAD_ARGUMENT", "status": 400, "params.field": tc.field})
		})
	}
	// No command was created by the refused scripts.
	if res := h.call(http.MethodGet, h.url("c-1"), nil, true); res.status != http.StatusNotFound {
		t.Errorf("GET c-1 after refused scripts: status %d, want 404", res.status)
	}
}

func TestCreateCommandGoAPI(t *testing.T) {
	t.Parallel()
	h := newCmdHarness(t, true)
	params := map[string]any{"ids": []any{"a"}}
	script := CommandScript{
		Type:       "publishing:purge",
		Creator:    "alice",
		Parameters: params,
		Steps: []CommandStep{
			{Lifecycle: "running", Progress: 50, Duration: 10 * time.Millisecond,
				State: &CommandStepState{Text: "Purging", Code: "publishing/PURGING"}},
			{Lifecycle: "finished", Progress: 100},
		},
		Results: []CommandResult{{Success: true, Data: "a", HTTPStatus: 200}},
	}
	for _, want := range []string{"c-1", "c-2"} {
		id, err := h.e.CreateCommand(script)
		if err != nil || id != want {
			t.Fatalf("CreateCommand = %q, %v; want %q", id, err, want)
		}
	}
	// The command does not share the caller's maps.
	params["ids"] = []any{"changed"}
	cmdExpect(t, h.get("c-1"), map[string]any{
		"command.lifecycle":          "running",
		"command.state":              map[string]any{"text": "Purging", "code": "publishing/PURGING", "params": map[string]any{}},
		"payload.command-parameters": map[string]any{"ids": []any{"a"}},
	})
	h.clock.Advance(10 * time.Millisecond)
	// A success entry reports only success and data.
	cmdExpect(t, h.get("c-2"), map[string]any{"payload.result": []any{map[string]any{"success": true, "data": "a"}}})

	invalid := []struct {
		field  string
		script CommandScript
	}{
		{"steps", CommandScript{}},
		{"steps[0].duration", CommandScript{Steps: []CommandStep{{Lifecycle: "running", Duration: -time.Second}}}},
		{"steps[0].lifecycle", CommandScript{Steps: []CommandStep{{Lifecycle: "Running"}}}},
		{"parameters", CommandScript{Parameters: map[string]any{"c": make(chan int)}, Steps: []CommandStep{{Lifecycle: "running"}}}},
	}
	for _, tc := range invalid {
		_, err := h.e.CreateCommand(tc.script)
		var se *ScriptError
		if !errors.As(err, &se) || se.Field != tc.field {
			t.Errorf("CreateCommand(%+v) = %v, want a ScriptError on %s", tc.script, err, tc.field)
		}
	}

	// Every emulator numbers its own commands; reset forgets them and starts again.
	other := New(Options{})
	if id, err := other.CreateCommand(script); err != nil || id != "c-1" {
		t.Errorf("second emulator: CreateCommand = %q, %v; want c-1", id, err)
	}
	h.e.Reset()
	if _, _, ok := h.e.commands.get("c-2"); ok {
		t.Error("c-2 survived the reset")
	}
	if id, err := h.e.CreateCommand(script); err != nil || id != "c-1" {
		t.Errorf("after reset: CreateCommand = %q, %v; want c-1", id, err)
	}
}

func TestCommandStepJSON(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]time.Duration{
		`{"lifecycle": "running"}`:                     0,
		`{"lifecycle": "running", "duration": "20ms"}`: 20 * time.Millisecond,
		`{"lifecycle": "running", "duration": 20}`:     20 * time.Millisecond,
		`{"lifecycle": "running", "duration": 1.5}`:    1500 * time.Microsecond,
		`{"lifecycle": "running", "durationMs": 20}`:   20 * time.Millisecond,
		`{"lifecycle": "running", "duration": null}`:   0,
	} {
		var s CommandStep
		if err := json.Unmarshal([]byte(body), &s); err != nil || s.invalid != nil || s.Duration != want {
			t.Errorf("%s: duration %v (invalid %v, err %v), want %v", body, s.Duration, s.invalid, err, want)
		}
	}
	// A step survives a JSON round trip, so Go tests can post CommandScripts.
	step := CommandStep{Lifecycle: "suspended", Progress: 5, Duration: 250 * time.Millisecond,
		State: &CommandStepState{Text: "Waiting", Code: "a/WAITING", Params: map[string]any{"n": 1.0}}}
	var back CommandStep
	if err := json.Unmarshal(cmdJSON(t, step), &back); err != nil || !reflect.DeepEqual(back, step) {
		t.Errorf("round trip: %+v (err %v), want %+v", back, err, step)
	}
}

func TestCommandsConcurrent(t *testing.T) {
	t.Parallel()
	h := newCmdHarness(t, false)
	script := CommandScript{Steps: []CommandStep{
		{Lifecycle: "running", Duration: 5 * time.Millisecond},
		{Lifecycle: "finished", Progress: 100},
	}}
	body := string(cmdJSON(t, script))
	// send is safe in any goroutine: it reports failures with t.Error.
	send := func(method, url, body string, authenticated bool) (int, map[string]any) {
		req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
		if err != nil {
			t.Error(err)
			return 0, nil
		}
		if authenticated {
			req.Header.Set("Authorization", "Bearer "+h.token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return 0, nil
		}
		defer resp.Body.Close()
		var doc map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
			t.Errorf("%s %s: %v", method, url, err)
		}
		return resp.StatusCode, doc
	}
	var wg sync.WaitGroup
	ids := make(chan string, 20)
	for i := range 20 {
		wg.Go(func() {
			var id string
			if i%2 == 0 {
				status, doc := send(http.MethodPost, h.srv.URL+"/_emulator/commands", body, false)
				v, _ := cmdField(doc, "command.id")
				id, _ = v.(string)
				if status != http.StatusOK || id == "" {
					t.Errorf("create: status %d: %v", status, doc)
					return
				}
			} else {
				var err error
				if id, err = h.e.CreateCommand(script); err != nil {
					t.Error(err)
					return
				}
			}
			ids <- id
			if status, _ := send(http.MethodGet, h.url(id), "", true); status != http.StatusOK {
				t.Errorf("GET %s: status %d", id, status)
			}
			if status, _ := send(http.MethodDelete, h.url(id), "", true); status != http.StatusOK && status != http.StatusForbidden {
				t.Errorf("DELETE %s: status %d", id, status)
			}
		})
	}
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		if seen[id] {
			t.Errorf("id %s given twice", id)
		}
		seen[id] = true
	}
	if len(seen) != 20 {
		t.Errorf("%d distinct ids, want 20", len(seen))
	}
}
