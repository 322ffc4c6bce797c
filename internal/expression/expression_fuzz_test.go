package expression

// The fuzz target of expression.go: the layout expressions of the platform's data
// models, parsed and evaluated.

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/fuzzlimit"
)

// FuzzExpression fuzzes an expression's JSON text and the attribute values it is
// evaluated against: Parse returns an expression or an *Error within a second, and an
// expression evaluates as an and clause and an or clause of itself alone, and its
// and clause with itself is itself.
func FuzzExpression(f *testing.F) {
	for _, e := range fixtureExpressions(f) {
		f.Add(e, "a", "x")
	}
	for _, s := range []string{
		`{"and": []}`, `{"or": []}`, `{"attribute": "a", "op": "isSet"}`, `{"attribute": "a", "op": "equals", "value": null}`,
		`{"attribute": "a", "op": "in", "values": ["x", null]}`, `{"attribute": "a", "op": "In"}`, `{"and": [], "op": "isSet"}`,
		`{"attribute": "a", "op": "equals", "value": 1e999999999}`, `[]`, ``, `{} {}`, `{"or": [{"and": [{"attribute": "\xff", "op": "isSet"}]}]}`,
		strings.Repeat(`{"and": [`, 3000) + `{"attribute": "a", "op": "isSet"}` + strings.Repeat(`]}`, 3000),
		strings.Repeat(`{"or": [`, 20000),
	} {
		f.Add(s, "a", "x")
	}
	f.Fuzz(func(t *testing.T, text, attribute, value string) {
		values := map[string]string{attribute: value}
		var e Expr
		var err error
		start := time.Now()
		e, err = Parse([]byte(text))
		got := false
		if err == nil {
			got = e.Evaluate(values)
		}
		if d := time.Since(start); d > fuzzlimit.Limit() {
			shown := text
			if len(shown) > 300 {
				shown = fmt.Sprintf("%s… (%d characters)", shown[:300], len(shown))
			}
			t.Fatalf("parsing and evaluating took %v (more than %v) for %q", d, fuzzlimit.Limit(), shown)
		}
		if err != nil {
			var ee *Error
			if !errors.As(err, &ee) || ee.Path == "" || !strings.HasPrefix(ee.Path, "$") {
				t.Fatalf("Parse(%q) failed with %v, not an *Error with a path", text, err)
			}
			return
		}
		if andExpr([]Expr{e}).Evaluate(values) != got || orExpr([]Expr{e}).Evaluate(values) != got ||
			andExpr([]Expr{e, e}).Evaluate(values) != got {
			t.Fatalf("%q evaluates to %t alone and otherwise in a clause of itself", text, got)
		}
		if again, err := Evaluate(text, values); err != nil || again != got {
			t.Fatalf("Evaluate(%q) = %t, %v; Parse and Evaluate gave %t", text, again, err, got)
		}
	})
}

// fixtureExpressions returns every expression of the emulator's data model fixtures
// (members named …Expression or …ExpressionRule), as JSON text.
func fixtureExpressions(tb testing.TB) []string {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join("..", "emulator", "fixtures", "*.json"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no data model fixtures: %v", err)
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, sub := range v {
				if strings.HasSuffix(k, "Expression") || strings.HasSuffix(k, "ExpressionRule") {
					b, _ := json.Marshal(sub)
					out = append(out, string(b))
				}
				walk(sub)
			}
		case []any:
			for _, sub := range v {
				walk(sub)
			}
		}
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			tb.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(b, &doc); err != nil {
			tb.Fatalf("%s: %v", file, err)
		}
		walk(doc)
	}
	if len(out) == 0 {
		tb.Fatal("the fixtures hold no expression")
	}
	return out
}
