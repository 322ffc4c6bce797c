package client

// The fuzz target of score_count.go: the count's answer, read as countOnce reads it.

import "testing"

// FuzzCountAnswer fuzzes the count's answer: {"count": n}, the bare number, n in any
// JSON form (1E+2, "5"), {} for 0 (rule "absent means zero"). Whenever the value
// holds an integer in a form integerValue takes, the count read is that integer.
func FuzzCountAnswer(f *testing.F) {
	for _, b := range answersOf(f, kindCount) {
		f.Add(b)
	}
	for _, b := range hostileBodies() {
		f.Add(b)
	}
	f.Add([]byte(`{"count": 5.0E0, "total": 9}`))
	f.Add([]byte(` "17" `))
	f.Fuzz(func(t *testing.T, body []byte) {
		var out *int
		var err error
		within(t, "decoding a count", body, func() { err = decodeAnswer(body, "count", &out) })
		n, ok := integerValue(unwrap(body, "count"))
		switch {
		case !ok:
		case err != nil:
			t.Fatalf("the count %d was not read: %v", n, err)
		case out == nil || int64(*out) != n:
			t.Fatalf("the count %d was read as %v", n, out)
		}
	})
}
