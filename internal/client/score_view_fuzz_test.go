package client

// The fuzz target of score_view.go: a view's answer, read as CreateView reads it.

import "testing"

// FuzzViewAnswer fuzzes the answer of a new view ({"view": …} or the view bare).
func FuzzViewAnswer(f *testing.F) {
	for _, b := range answersOf(f, kindView) {
		f.Add(b)
	}
	for _, b := range hostileBodies() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var out *View
		within(t, "decoding a view", body, func() { _ = decodeAnswer(body, "view", &out) })
	})
}
