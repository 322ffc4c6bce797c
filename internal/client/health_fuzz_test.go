package client

// The fuzz target of health.go: the health answer in any form.

import "testing"

// FuzzHealthAnswer fuzzes the health answer (readHealth): JSON in any shape, a word
// of text, anything else. It always says a status, and never keeps a body that is
// not JSON.
func FuzzHealthAnswer(f *testing.F) {
	for _, b := range answersOf(f, kindHealth) {
		f.Add(b)
	}
	for _, b := range hostileBodies() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var h *Health
		within(t, "readHealth", body, func() { h = readHealth(body) })
		if h == nil || h.Status == "" {
			t.Fatalf("the health answer %q says no status: %+v", body, h)
		}
	})
}
