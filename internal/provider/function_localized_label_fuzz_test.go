package provider

// The fuzz target of function_localized_label.go: a culture code and a set of labels,
// as provider::mediaplatform::localized_label takes them.

import (
	"strings"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/fuzzlimit"
)

// FuzzLocalizedLabel fuzzes the culture code and one label's code: the label found is
// one of the labels, the label of the very code asked for is found (a culture is
// read without the spaces around it), and the lookup never takes a second.
func FuzzLocalizedLabel(f *testing.F) {
	for _, c := range [][2]string{{"fr-CA", "fr"}, {"fr_CA", "FR-ca"}, {"", "en"}, {"zh-Hant-TW", "zh-Hant"},
		{"en-x-private", "en"}, {"x-a-b-c", "x"}, {"-", "_"}, {"de-CH-1996-u-co-phonebk", "de"}, {" en ", "EN"}, {" fr ", " fr "}, {"\xff", "\xff"}} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, culture, code string) {
		labels := map[string]string{code: "label of " + code, "en": "English"}
		start := time.Now()
		got, ok := localizedLabel(labels, culture)
		if d := time.Since(start); d > fuzzlimit.Limit() {
			t.Fatalf("the lookup of %q took %v", culture, d)
		}
		if !ok {
			t.Fatalf("no label for %q, though en has one", culture)
		}
		if got != labels[code] && got != "English" {
			t.Fatalf("the label %q is none of the labels", got)
		}
		if culture == code && culture == strings.TrimSpace(culture) && got != labels[code] {
			t.Fatalf("the label of %q itself was not found: %q", culture, got)
		}
	})
}
