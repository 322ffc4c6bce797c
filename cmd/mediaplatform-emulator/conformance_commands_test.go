package main

// Conformance, section D of the contract: long-running commands.

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// ---------------------------------------------------------------------------
// §D Commands

// step is one step of a command script (section G).
func step(lifecycle string, progress int, duration string, state map[string]any) map[string]any {
	s := map[string]any{"lifecycle": lifecycle, "progress": progress}
	if duration != "" {
		s["duration"] = duration
	}
	if state != nil {
		s["state"] = state
	}
	return s
}

// newCommand creates a command from a script and returns its resource.
func (e *emu) newCommand(t *testing.T, script map[string]any) map[string]any {
	t.Helper()
	r := e.control(t, "commands", script)
	if r.status != http.StatusOK && r.status != http.StatusCreated {
		t.Fatalf("%s: cannot create a command", r)
	}
	return r.obj(t)
}

// checkCommand checks the command resource's shape.
func checkCommand(t *testing.T, e *emu, c map[string]any) {
	t.Helper()
	if c["version"] != "1.0" {
		t.Errorf("version = %v, want 1.0", c["version"])
	}
	cmd := objOf(c["command"])
	if str(cmd["id"]) == "" {
		t.Errorf("command without id: %v", c)
	}
	lc := str(cmd["lifecycle"])
	if !slices.Contains([]string{"pending", "running", "finished", "error", "suspended"}, lc) {
		t.Errorf("lifecycle = %q", lc)
	}
	if p, ok := num(cmd["progress"]); has(cmd, "progress") && (!ok || p < 0 || p > 100) {
		t.Errorf("progress = %v", cmd["progress"])
	}
	timestamp(t, "created", cmd["created"])
	timestamp(t, "modified", cmd["modified"])
	for _, k := range []string{"host", "serviceName", "serviceVersion", "serviceInstance"} {
		if str(cmd[k]) == "" {
			t.Errorf("command.%s = %v, want a string", k, cmd[k])
		}
	}
	if lc == "finished" || lc == "error" {
		timestamp(t, "finished", cmd["finished"])
	} else if has(cmd, "finished") {
		t.Errorf("lifecycle %s with finished %v", lc, cmd["finished"])
	}
	if lc == "error" {
		errObj := objOf(cmd["error"])
		if str(errObj["text"]) == "" || !strings.Contains(str(errObj["code"]), "/") {
			t.Errorf("error = %v, want text and a <namespace>/<NAME> code", errObj)
		}
		if c := errObj["cause"]; c != nil && !slices.Contains([]any{"runtimeError", "timeout", "canceled", "rejected"}, c) {
			t.Errorf("error.cause = %v", c)
		}
	} else if has(cmd, "error") {
		t.Errorf("lifecycle %s with error %v", lc, cmd["error"])
	}
	links := c["_links"]
	self := selfLink(t, links)
	e.absoluteOn(t, self)
	if !strings.HasSuffix(self, "/"+str(cmd["id"])) {
		t.Errorf("self %q does not end in the id %v", self, cmd["id"])
	}
	linkArray(t, links, "command:cancel")
	curies := linkArray(t, links, "curies")
	if len(curies) == 0 || curies[0]["name"] != "command" || curies[0]["templated"] != true || !strings.Contains(str(curies[0]["href"]), "{rel}") {
		t.Errorf("curies = %v, want [{name: command, href: …{rel}, templated: true}]", curies)
	}
}

func TestConformanceCommands(t *testing.T) {
	t.Parallel()
	e := startEmulator(t)
	tok := e.token(t, "alice")
	byID := func(t *testing.T, id string) *reply {
		t.Helper()
		return e.do(t, http.MethodGet, e.template(t, "command:command-by-id", map[string]string{"id": id}), nil, bearer(tok)...)
	}
	// wait polls the command until its lifecycle is one of want.
	wait := func(t *testing.T, id string, want ...string) map[string]any {
		t.Helper()
		var c map[string]any
		if !eventually(3*time.Second, func() bool {
			c = byID(t, id).want(t, http.StatusOK).obj(t)
			return slices.Contains(want, str(at(c, "command", "lifecycle")))
		}) {
			t.Fatalf("command %s: lifecycle %v, want one of %v", id, at(c, "command", "lifecycle"), want)
		}
		checkCommand(t, e, c)
		return c
	}

	t.Run("progression", func(t *testing.T) {
		t.Parallel()
		c := e.newCommand(t, map[string]any{
			"type": "publishing:purge", "creator": "alice",
			"parameters": map[string]any{"ids": []any{"a", "b"}},
			"steps": []any{
				step("pending", 0, "100ms", nil),
				step("running", 40, "150ms", map[string]any{"text": "Purging renderings", "code": "publishing/PURGING", "params": map[string]any{"done": 2}}),
				step("finished", 100, "", nil),
			},
		})
		checkCommand(t, e, c)
		id := str(at(c, "command", "id"))
		if lc := at(c, "command", "lifecycle"); lc != "pending" {
			t.Errorf("new command lifecycle %v, want pending", lc)
		}
		if at(c, "command", "type") != "publishing:purge" || at(c, "command", "creator") != "alice" {
			t.Errorf("command = %v, want type publishing:purge, creator alice", c["command"])
		}
		got := byID(t, id).want(t, http.StatusOK).obj(t)
		checkCommand(t, e, got)
		if self := str(at(got, "_links", "self", "href")); self != e.template(t, "command:command-by-id", map[string]string{"id": id}) {
			t.Errorf("self %q is not the registry's command-by-id", self)
		}
		run := wait(t, id, "running")
		state := objOf(at(run, "command", "state"))
		if p, _ := num(at(run, "command", "progress")); p != 40 || state["text"] != "Purging renderings" ||
			state["code"] != "publishing/PURGING" || at(state, "params", "done") != json.Number("2") {
			t.Errorf("running command = %v", run["command"])
		}
		if !timestamp(t, "modified", at(run, "command", "modified")).After(timestamp(t, "created", at(run, "command", "created"))) {
			t.Errorf("modified did not move: %v", run["command"])
		}
		fin := wait(t, id, "finished", "error")
		if at(fin, "command", "lifecycle") != "finished" {
			t.Errorf("command ended %v", fin["command"])
		}
		if p, _ := num(at(fin, "command", "progress")); p != 100 {
			t.Errorf("finished progress %v", at(fin, "command", "progress"))
		}
		if ids := at(fin, "payload", "command-parameters", "ids"); !slices.Equal(arr(ids), []any{"a", "b"}) {
			t.Errorf("payload.command-parameters = %v", at(fin, "payload"))
		}
		// Cancel of a finished command is forbidden.
		cancel := str(at(fin, "_links", "command:cancel", 0, "href"))
		e.do(t, http.MethodDelete, cancel, nil, bearer(tok)...).problem(t, http.StatusForbidden, "commands/FORBIDDEN", "")
	})

	t.Run("error", func(t *testing.T) {
		t.Parallel()
		c := e.newCommand(t, map[string]any{
			"type": "publishing:render", "creator": "viewer",
			"steps": []any{step("running", 10, "50ms", nil), step("error", 10, "", nil)},
			"error": map[string]any{"cause": "timeout", "httpCode": 504, "text": "rendering timed out",
				"code": "publishing/TIMEOUT", "params": map[string]any{"after": "30s"}},
		})
		id := str(at(c, "command", "id"))
		fin := wait(t, id, "error", "finished")
		errObj := objOf(at(fin, "command", "error"))
		if at(fin, "command", "lifecycle") != "error" || errObj["cause"] != "timeout" || errObj["httpCode"] != json.Number("504") ||
			errObj["text"] != "rendering timed out" || errObj["code"] != "publishing/TIMEOUT" || at(errObj, "params", "after") != "30s" {
			t.Errorf("failed command = %v", fin["command"])
		}
		if at(fin, "command", "creator") != "viewer" {
			t.Errorf("creator = %v", at(fin, "command", "creator"))
		}
		cancel := str(at(fin, "_links", "command:cancel", 0, "href"))
		e.do(t, http.MethodDelete, cancel, nil, bearer(tok)...).problem(t, http.StatusForbidden, "commands/FORBIDDEN", "")
	})

	t.Run("suspended and cancel", func(t *testing.T) {
		t.Parallel()
		c := e.newCommand(t, map[string]any{
			"type": "publishing:purge", "creator": "alice",
			"steps": []any{step("running", 20, "50ms", nil), step("suspended", 20, "", nil), step("finished", 100, "", nil)},
		})
		id := str(at(c, "command", "id"))
		wait(t, id, "suspended")
		time.Sleep(300 * time.Millisecond)
		c = byID(t, id).want(t, http.StatusOK).obj(t)
		if at(c, "command", "lifecycle") != "suspended" {
			t.Errorf("a suspended command moved on: %v", c["command"])
		}
		cancel := str(at(c, "_links", "command:cancel", 0, "href"))
		e.do(t, http.MethodDelete, cancel, nil).problem(t, http.StatusUnauthorized, "auth/UNAUTHORIZED", "")
		r := e.do(t, http.MethodDelete, cancel, nil, bearer(tok)...).want(t, http.StatusOK)
		cc := r.obj(t)
		checkCommand(t, e, cc)
		if at(cc, "command", "lifecycle") != "error" || at(cc, "command", "error", "cause") != "canceled" {
			t.Errorf("canceled command = %v, want lifecycle error, cause canceled", cc["command"])
		}
		got := byID(t, id).want(t, http.StatusOK).obj(t)
		if at(got, "command", "lifecycle") != "error" || at(got, "command", "error", "cause") != "canceled" {
			t.Errorf("GET after cancel = %v", got["command"])
		}
		e.do(t, http.MethodDelete, cancel, nil, cookie(tok)...).problem(t, http.StatusForbidden, "commands/FORBIDDEN", "")
	})

	t.Run("cancel running", func(t *testing.T) {
		t.Parallel()
		c := e.newCommand(t, map[string]any{
			"type": "publishing:purge", "creator": "alice",
			"steps": []any{step("running", 30, "10s", nil), step("finished", 100, "", nil)},
		})
		id := str(at(c, "command", "id"))
		wait(t, id, "running")
		cancel := str(at(c, "_links", "command:cancel", 0, "href"))
		cc := e.do(t, http.MethodDelete, cancel, nil, cookie(tok)...).want(t, http.StatusOK).obj(t)
		if at(cc, "command", "lifecycle") != "error" || at(cc, "command", "error", "cause") != "canceled" {
			t.Errorf("canceled command = %v", cc["command"])
		}
		checkCommand(t, e, cc)
	})

	t.Run("bulk", func(t *testing.T) {
		t.Parallel()
		c := e.newCommand(t, map[string]any{
			"type": "datamodel:bulk-update", "creator": "alice",
			"steps": []any{step("running", 50, "50ms", nil), step("finished", 100, "", nil)},
			"results": []any{
				map[string]any{"success": true, "data": "asset-1"},
				map[string]any{"success": false, "data": "", "httpStatus": 409, "errorCode": "datamodel/THUMBNAIL_CHANGED", "errorMessage": "the thumbnail changed"},
				map[string]any{"success": true, "data": "asset-3"},
			},
		})
		id := str(at(c, "command", "id"))
		fin := wait(t, id, "finished", "error")
		if at(fin, "command", "lifecycle") != "finished" {
			t.Errorf("bulk command ended %v, want finished", fin["command"])
		}
		res := arr(at(fin, "payload", "result"))
		if len(res) != 3 {
			t.Fatalf("payload.result = %v, want 3 entries", at(fin, "payload", "result"))
		}
		for i, want := range []bool{true, false, true} {
			r := objOf(res[i])
			if r["success"] != want || !has(r, "data") {
				t.Errorf("result[%d] = %v", i, r)
			}
			if want && (has(r, "httpStatus") || has(r, "errorCode") || has(r, "errorMessage")) {
				t.Errorf("successful result[%d] = %v carries failure fields", i, r)
			}
		}
		if r := objOf(res[1]); r["data"] != "" || r["httpStatus"] != json.Number("409") || r["errorCode"] != "datamodel/THUMBNAIL_CHANGED" || str(r["errorMessage"]) == "" {
			t.Errorf("failed result = %v", r)
		}
		if r := objOf(res[0]); r["data"] != "asset-1" {
			t.Errorf("result[0] = %v", r)
		}
		params := objOf(at(fin, "command", "state", "params"))
		if params["totalCount"] != json.Number("3") || params["successCount"] != json.Number("2") || params["failureCount"] != json.Number("1") {
			t.Errorf("bulk state.params = %v, want totalCount 3, successCount 2, failureCount 1", params)
		}
	})

	t.Run("not found", func(t *testing.T) {
		byID(t, "no-such-command").problem(t, http.StatusNotFound, "commands/NOT_FOUND", "")
		u := e.template(t, "command:command-by-id", map[string]string{"id": "no-such-command"})
		e.do(t, http.MethodDelete, u, nil, bearer(tok)...).problem(t, http.StatusNotFound, "commands/NOT_FOUND", "")
	})
}
