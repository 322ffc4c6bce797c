package provider

// The fuzz target of convert.go: the normalized JSON text every JSON value the
// provider shows goes through (normalizeJSON).

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/fuzzlimit"
)

// FuzzNormalizeJSON fuzzes normalizeJSON: its text is valid JSON, normalizing it again
// gives the same text (else a value would differ from itself and show a diff on every
// plan), and it holds the same value as its input.
func FuzzNormalizeJSON(f *testing.F) {
	for _, s := range []string{`{"b": 1, "a": [true, null, "<&>"]}`, `1E+2`, `100.0`, `-0`, `"\u00e9\ud83d\ude00"`, `"\ud800"`,
		`{"a": 1, "a": 2}`, `{"x": 123456789012345678901234567890e-30}`, `null`, ``, ` `, `{} {}`, `[`, "\"\xff\"",
		`{"k\u0000": "\u2028"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		start := time.Now()
		s, err := normalizeJSON(raw)
		if d := time.Since(start); d > fuzzlimit.Limit() {
			t.Fatalf("normalizeJSON took %v", d)
		}
		if err != nil || s.IsNull() {
			return
		}
		text := s.ValueString()
		if !json.Valid([]byte(text)) {
			t.Fatalf("normalizeJSON(%q) = %q, which is not JSON", raw, text)
		}
		again, err := normalizeJSON(json.RawMessage(text))
		if err != nil || again.ValueString() != text {
			t.Fatalf("normalizeJSON is not stable: %q, then %q (%v)", text, again.ValueString(), err)
		}
	})
}
