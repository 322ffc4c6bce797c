package emulator

// The members of the platform's answers, for the test that omits each of them in turn
// (Faults.RecordMembers, Faults.OmitMembers): which member names the success answers
// carry, by route, and the same answers without the members named.

import (
	"encoding/json"
	"maps"
	"slices"
	"sync"
)

// memberRecord holds the member names seen in success answers, by route.
type memberRecord struct {
	mu      sync.Mutex
	byRoute map[string]map[string]bool
}

func (m *memberRecord) add(route string, names []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.byRoute == nil {
		m.byRoute = map[string]map[string]bool{}
	}
	if m.byRoute[route] == nil {
		m.byRoute[route] = map[string]bool{}
	}
	for _, n := range names {
		m.byRoute[route][n] = true
	}
}

// AnswerMembers returns the names of the members the success answers carried since
// Faults.RecordMembers was set, by route (keyed as in Stats), each list sorted.
func (e *Emulator) AnswerMembers() map[string][]string {
	e.members.mu.Lock()
	defer e.members.mu.Unlock()
	out := map[string][]string{}
	for route, names := range e.members.byRoute {
		out[route] = slices.Sorted(maps.Keys(names))
	}
	return out
}

// members records the member names of a JSON answer and leaves out those in a.omit.
func (a *answerWriter) members(body []byte) []byte {
	var doc any
	if json.Unmarshal(body, &doc) != nil {
		return body
	}
	if a.record != nil {
		var names []string
		walkMembers(doc, func(obj map[string]any, k string) { names = append(names, k) })
		a.record(names)
	}
	if len(a.omit) == 0 {
		return body
	}
	walkMembers(doc, func(obj map[string]any, k string) {
		if slices.Contains(a.omit, k) {
			delete(obj, k)
		}
	})
	out, err := json.Marshal(doc)
	if err != nil {
		return body
	}
	return out
}

// walkMembers calls f for every member of every object in v, at any depth.
func walkMembers(v any, f func(obj map[string]any, k string)) {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			child := v[k]
			f(v, k)
			walkMembers(child, f)
		}
	case []any:
		for _, item := range v {
			walkMembers(item, f)
		}
	}
}
