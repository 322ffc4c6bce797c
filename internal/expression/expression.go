// Package expression parses and evaluates the platform's layout expressions: the
// recursive JSON rules found in asset-model layouts (readOnlyExpressionRule,
// visibilityExpressionRule and the row-restriction expressions, interface
// specification section E).
//
// The shapes are:
//
//	{"and": [expr, ...]}                                   true if every sub expression is true
//	{"or":  [expr, ...]}                                   true if at least one is true
//	{"attribute": "id", "op": "isSet"}                     the attribute's value is not empty
//	{"attribute": "id", "op": "equals", "value": "x"}      the value equals "x"
//	{"attribute": "id", "op": "in", "values": ["x", "y"]}  the value equals one of the list
//
// An attribute without a value, or with a null value, has the empty string as its
// value, and a null "value" is the empty string too, as the specification says.
//
// Where the specification is silent this package decides:
//   - An empty "and" is true and an empty "or" is false (the identities of each).
//   - Only the operators above are known, matched case-sensitively. The specification
//     does not give the complete list, so any other operator is an error that names it
//     rather than a guess that could silently give the wrong answer.
//   - A missing "value" is the empty string, like a null one; a missing or null
//     "values" is the empty list, so "in" is false; a null element of "values" is the
//     empty string.
//   - A term ignores keys it does not use (for forward compatibility, like unknown
//     flags), but an object that mixes "and", "or" and a term is an error.
//   - Parse checks the whole expression before anything is evaluated, so an error in
//     a branch that evaluation would skip is still reported.
package expression

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// The operators this package knows, as they appear in the "op" key.
const (
	OpIsSet  = "isSet"
	OpEquals = "equals"
	OpIn     = "in"
)

// ErrUnknownOperator is wrapped by the error for a term whose operator this package
// does not know; the error's text names the operator.
var ErrUnknownOperator = errors.New("unknown operator")

// Error is a problem with an expression, located by a JSONPath-like Path into the
// expression ("$" is the whole expression, "$.and[1].op" the operator of the second
// term of a top-level AND clause).
type Error struct {
	Path string
	Err  error
}

func (e *Error) Error() string { return e.Path + ": " + e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }

// Expr is a parsed expression. Build one with Parse.
type Expr interface {
	// Evaluate reports whether the expression is true for the given attribute
	// values. A missing key is the empty string; a nil map has no values.
	Evaluate(values map[string]string) bool
}

// Evaluate parses the JSON text of an expression and evaluates it against values.
func Evaluate(text string, values map[string]string) (bool, error) {
	e, err := Parse([]byte(text))
	if err != nil {
		return false, err
	}
	return e.Evaluate(values), nil
}

// Parse reads the JSON text of one expression. Every error is an *Error.
func Parse(data []byte) (Expr, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var raw any
	if err := dec.Decode(&raw); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &Error{Path: "$", Err: errors.New("the expression is empty; expected a JSON object")}
		}
		return nil, &Error{Path: "$", Err: fmt.Errorf("not valid JSON: %w", err)}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, &Error{Path: "$", Err: errors.New("not valid JSON: unexpected data after the expression")}
	}
	return parse(raw, "$")
}

type andExpr []Expr

func (a andExpr) Evaluate(values map[string]string) bool {
	for _, e := range a {
		if !e.Evaluate(values) {
			return false
		}
	}
	return true
}

type orExpr []Expr

func (o orExpr) Evaluate(values map[string]string) bool {
	for _, e := range o {
		if e.Evaluate(values) {
			return true
		}
	}
	return false
}

// term is one test of an attribute's value. operands holds the single "value" for
// equals and the "values" list for in.
type term struct {
	attribute string
	op        string
	operands  []string
}

func (t term) Evaluate(values map[string]string) bool {
	v := values[t.attribute] // missing is "", as the specification says
	switch t.op {
	case OpIsSet:
		return v != ""
	default: // OpEquals and OpIn; Parse admits nothing else
		for _, o := range t.operands {
			if v == o {
				return true
			}
		}
		return false
	}
}

func parse(raw any, path string) (Expr, error) {
	obj, ok := raw.(map[string]any)
	if !ok {
		return nil, &Error{Path: path, Err: fmt.Errorf("expected an object (an and clause, an or clause or a term), got %s", kind(raw))}
	}
	var kinds []string
	for _, k := range []string{"and", "or"} {
		if _, ok := obj[k]; ok {
			kinds = append(kinds, fmt.Sprintf("%q", k))
		}
	}
	_, hasAttr := obj["attribute"]
	_, hasOp := obj["op"]
	if hasAttr || hasOp {
		kinds = append(kinds, "a term (\"attribute\", \"op\")")
	}
	switch {
	case len(kinds) == 0:
		return nil, &Error{Path: path, Err: fmt.Errorf("object is neither an and clause, an or clause nor a term: it has none of the keys \"and\", \"or\", \"attribute\" and \"op\" (keys found: %s)", keyList(obj))}
	case len(kinds) > 1:
		return nil, &Error{Path: path, Err: fmt.Errorf("object mixes %s; each object must be exactly one of them", strings.Join(kinds, " and "))}
	}
	if sub, ok := obj["and"]; ok {
		list, err := parseList(sub, path+".and")
		return andExpr(list), err
	}
	if sub, ok := obj["or"]; ok {
		list, err := parseList(sub, path+".or")
		return orExpr(list), err
	}
	return parseTerm(obj, path)
}

func parseList(raw any, path string) ([]Expr, error) {
	items, ok := raw.([]any)
	if !ok {
		return nil, &Error{Path: path, Err: fmt.Errorf("expected an array of expressions, got %s", kind(raw))}
	}
	list := make([]Expr, 0, len(items))
	for i, item := range items {
		e, err := parse(item, fmt.Sprintf("%s[%d]", path, i))
		if err != nil {
			return nil, err
		}
		list = append(list, e)
	}
	return list, nil
}

func parseTerm(obj map[string]any, path string) (Expr, error) {
	attr, ok := obj["attribute"].(string)
	if !ok || attr == "" {
		return nil, &Error{Path: path + ".attribute", Err: fmt.Errorf("expected a non-empty string (the attribute id), got %s", kind(obj["attribute"]))}
	}
	op, ok := obj["op"].(string)
	if !ok {
		return nil, &Error{Path: path + ".op", Err: fmt.Errorf("expected the operator as a string for attribute %q, got %s", attr, kind(obj["op"]))}
	}
	t := term{attribute: attr, op: op}
	switch op {
	case OpIsSet:
	case OpEquals:
		switch v := obj["value"].(type) {
		case nil: // missing or null: the empty string
			t.operands = []string{""}
		case string:
			t.operands = []string{v}
		default:
			return nil, &Error{Path: path + ".value", Err: fmt.Errorf("expected a string or null, got %s", kind(v))}
		}
	case OpIn:
		switch vs := obj["values"].(type) {
		case nil: // missing or null: the empty list
		case []any:
			t.operands = make([]string, 0, len(vs))
			for i, v := range vs {
				switch s := v.(type) {
				case nil:
					t.operands = append(t.operands, "")
				case string:
					t.operands = append(t.operands, s)
				default:
					return nil, &Error{Path: fmt.Sprintf("%s.values[%d]", path, i), Err: fmt.Errorf("expected a string or null, got %s", kind(v))}
				}
			}
		default:
			return nil, &Error{Path: path + ".values", Err: fmt.Errorf("expected an array of strings, got %s", kind(vs))}
		}
	default:
		return nil, &Error{Path: path + ".op", Err: fmt.Errorf("%w %q for attribute %q; the operators known are %q, %q and %q", ErrUnknownOperator, op, attr, OpIsSet, OpEquals, OpIn)}
	}
	return t, nil
}

// kind names a decoded JSON value's type for error messages.
func kind(v any) string {
	switch v := v.(type) {
	case nil:
		return "null or nothing"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return fmt.Sprintf("the string %q", v)
	case json.Number:
		return "the number " + v.String()
	case bool:
		return fmt.Sprintf("the boolean %t", v)
	default:
		return fmt.Sprintf("%T", v)
	}
}

func keyList(obj map[string]any) string {
	if len(obj) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, fmt.Sprintf("%q", k))
	}
	slices.Sort(keys)
	return strings.Join(keys, ", ")
}
