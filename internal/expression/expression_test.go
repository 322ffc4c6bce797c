package expression

import (
	"errors"
	"strings"
	"testing"
)

func TestExpressionEvaluate(t *testing.T) {
	t.Parallel()

	values := map[string]string{
		"status":  "approved",
		"owner":   "ana",
		"empty":   "",
		"spaces":  " ",
		"Mixed":   "Case",
		"unicode": "Ünïcödé",
	}

	tests := []struct {
		name   string
		expr   string
		values map[string]string
		want   bool
	}{
		// isSet and the empty-string rule.
		{"isSet with a value", `{"attribute":"status","op":"isSet"}`, values, true},
		{"isSet on a missing attribute", `{"attribute":"missing","op":"isSet"}`, values, false},
		{"isSet on an empty value", `{"attribute":"empty","op":"isSet"}`, values, false},
		{"isSet on whitespace is set", `{"attribute":"spaces","op":"isSet"}`, values, true},
		{"isSet with nil values", `{"attribute":"status","op":"isSet"}`, nil, false},
		{"attribute ids are case-sensitive", `{"attribute":"mixed","op":"isSet"}`, values, false},

		// equals.
		{"equals matches", `{"attribute":"status","op":"equals","value":"approved"}`, values, true},
		{"equals differs", `{"attribute":"status","op":"equals","value":"draft"}`, values, false},
		{"equals is case-sensitive", `{"attribute":"status","op":"equals","value":"Approved"}`, values, false},
		{"equals non-ASCII", `{"attribute":"unicode","op":"equals","value":"Ünïcödé"}`, values, true},
		{"missing attribute equals empty", `{"attribute":"missing","op":"equals","value":""}`, values, true},
		{"missing attribute equals null value", `{"attribute":"missing","op":"equals","value":null}`, values, true},
		{"missing attribute equals missing value", `{"attribute":"missing","op":"equals"}`, values, true},
		{"empty value equals null value", `{"attribute":"empty","op":"equals","value":null}`, values, true},
		{"set value does not equal null value", `{"attribute":"status","op":"equals","value":null}`, values, false},
		{"missing attribute does not equal x", `{"attribute":"missing","op":"equals","value":"x"}`, values, false},
		{"term ignores unused keys", `{"attribute":"status","op":"equals","value":"approved","common":true}`, values, true},

		// in.
		{"in matches one", `{"attribute":"status","op":"in","values":["draft","approved"]}`, values, true},
		{"in matches none", `{"attribute":"status","op":"in","values":["draft","rejected"]}`, values, false},
		{"in empty list", `{"attribute":"status","op":"in","values":[]}`, values, false},
		{"in null list", `{"attribute":"status","op":"in","values":null}`, values, false},
		{"in missing list", `{"attribute":"status","op":"in"}`, values, false},
		{"missing attribute in list with empty string", `{"attribute":"missing","op":"in","values":["x",""]}`, values, true},
		{"missing attribute in list with null", `{"attribute":"missing","op":"in","values":["x",null]}`, values, true},
		{"missing attribute not in list", `{"attribute":"missing","op":"in","values":["x","y"]}`, values, false},

		// and / or.
		{"and all true", `{"and":[{"attribute":"status","op":"isSet"},{"attribute":"owner","op":"equals","value":"ana"}]}`, values, true},
		{"and one false", `{"and":[{"attribute":"status","op":"isSet"},{"attribute":"owner","op":"equals","value":"bob"}]}`, values, false},
		{"or one true", `{"or":[{"attribute":"missing","op":"isSet"},{"attribute":"owner","op":"equals","value":"ana"}]}`, values, true},
		{"or all false", `{"or":[{"attribute":"missing","op":"isSet"},{"attribute":"owner","op":"equals","value":"bob"}]}`, values, false},
		{"empty and is true", `{"and":[]}`, values, true},
		{"empty or is false", `{"or":[]}`, values, false},
		{"nested or in and", `{"and":[{"attribute":"status","op":"in","values":["approved"]},{"or":[{"attribute":"missing","op":"isSet"},{"attribute":"owner","op":"isSet"}]}]}`, values, true},
		{"nested and in or", `{"or":[{"and":[{"attribute":"status","op":"isSet"},{"attribute":"missing","op":"isSet"}]},{"and":[{"attribute":"owner","op":"equals","value":"ana"},{"attribute":"empty","op":"equals","value":null}]}]}`, values, true},
		{"deep nesting false at the bottom", deep(50, `{"attribute":"missing","op":"isSet"}`), values, false},
		{"deep nesting true at the bottom", deep(50, `{"attribute":"status","op":"isSet"}`), values, true},
		{"surrounding whitespace", " \n\t{\"and\":[]}\n ", values, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Evaluate(tc.expr, tc.values)
			if err != nil {
				t.Fatalf("Evaluate(%s): unexpected error: %v", tc.expr, err)
			}
			if got != tc.want {
				t.Errorf("Evaluate(%s) = %t, want %t", tc.expr, got, tc.want)
			}
		})
	}
}

// deep wraps inner in n alternating single-element and/or clauses.
func deep(n int, inner string) string {
	s := inner
	for i := range n {
		op := "and"
		if i%2 == 1 {
			op = "or"
		}
		s = `{"` + op + `":[` + s + `]}`
	}
	return s
}

func TestExpressionParseErrors(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name     string
		expr     string
		wantPath string
		wantText []string // every one must occur in the message
	}{
		{"unknown operator", `{"attribute":"status","op":"startsWith","value":"a"}`, "$.op", []string{`unknown operator "startsWith"`, `"status"`, `"isSet"`, `"equals"`, `"in"`}},
		{"operator case matters", `{"attribute":"status","op":"IsSet"}`, "$.op", []string{`unknown operator "IsSet"`}},
		{"unknown operator deep in a branch evaluation would skip", `{"or":[{"and":[]},{"and":[{"attribute":"a","op":"isSet"},{"attribute":"b","op":"notIn","values":[]}]}]}`, "$.or[1].and[1].op", []string{`unknown operator "notIn"`}},
		{"empty text", ``, "$", []string{"empty"}},
		{"blank text", "  \n", "$", []string{"empty"}},
		{"malformed JSON", `{"and":[`, "$", []string{"not valid JSON"}},
		{"not JSON at all", `status == "a"`, "$", []string{"not valid JSON"}},
		{"trailing data", `{"and":[]} {"or":[]}`, "$", []string{"unexpected data after the expression"}},
		{"top level array", `[]`, "$", []string{"expected an object", "an array"}},
		{"top level string", `"isSet"`, "$", []string{"expected an object", `the string "isSet"`}},
		{"top level null", `null`, "$", []string{"expected an object"}},
		{"object of nothing known", `{"not":{"attribute":"a","op":"isSet"}}`, "$", []string{"neither an and clause, an or clause nor a term", `"not"`}},
		{"empty object", `{}`, "$", []string{"neither", "keys found: none"}},
		{"and with or", `{"and":[],"or":[]}`, "$", []string{`mixes "and" and "or"`}},
		{"and with term", `{"and":[],"attribute":"a","op":"isSet"}`, "$", []string{`mixes "and" and a term`}},
		{"and not an array", `{"and":{"attribute":"a","op":"isSet"}}`, "$.and", []string{"expected an array of expressions", "an object"}},
		{"or null", `{"or":null}`, "$.or", []string{"expected an array of expressions"}},
		{"element not an object", `{"and":[{"attribute":"a","op":"isSet"},"b"]}`, "$.and[1]", []string{"expected an object", `the string "b"`}},
		{"missing attribute", `{"op":"isSet"}`, "$.attribute", []string{"non-empty string"}},
		{"empty attribute", `{"attribute":"","op":"isSet"}`, "$.attribute", []string{"non-empty string"}},
		{"numeric attribute", `{"attribute":7,"op":"isSet"}`, "$.attribute", []string{"the number 7"}},
		{"missing op", `{"attribute":"a"}`, "$.op", []string{"operator", `"a"`}},
		{"numeric value", `{"attribute":"a","op":"equals","value":7}`, "$.value", []string{"string or null", "the number 7"}},
		{"values not an array", `{"attribute":"a","op":"in","values":"x"}`, "$.values", []string{"array of strings"}},
		{"values element not a string", `{"attribute":"a","op":"in","values":["x",true]}`, "$.values[1]", []string{"the boolean true"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Evaluate(tc.expr, map[string]string{"a": "x", "status": "s"})
			if err == nil {
				t.Fatalf("Evaluate(%s): expected an error", tc.expr)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T) is not an *Error", err, err)
			}
			if e.Path != tc.wantPath {
				t.Errorf("path = %q, want %q (error: %v)", e.Path, tc.wantPath, err)
			}
			for _, want := range tc.wantText {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}
}

func TestExpressionUnknownOperatorIsDetectable(t *testing.T) {
	t.Parallel()
	_, err := Parse([]byte(`{"and":[{"attribute":"a","op":"matches","value":".*"}]}`))
	if !errors.Is(err, ErrUnknownOperator) {
		t.Fatalf("errors.Is(%v, ErrUnknownOperator) = false", err)
	}
	_, err = Parse([]byte(`{"and":[{"attribute":"a","op":7}]}`))
	if errors.Is(err, ErrUnknownOperator) {
		t.Fatalf("a non-string op is a shape error, not an unknown operator: %v", err)
	}
}

func TestExpressionParseOnceEvaluateMany(t *testing.T) {
	t.Parallel()
	e, err := Parse([]byte(`{"or":[{"attribute":"kind","op":"in","values":["a","b"]},{"attribute":"force","op":"isSet"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		values map[string]string
		want   bool
	}{
		{map[string]string{"kind": "a"}, true},
		{map[string]string{"kind": "c"}, false},
		{map[string]string{"kind": "c", "force": "yes"}, true},
		{nil, false},
	} {
		if got := e.Evaluate(tc.values); got != tc.want {
			t.Errorf("Evaluate(%v) = %t, want %t", tc.values, got, tc.want)
		}
	}
}
