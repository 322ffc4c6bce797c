package provider

// The acceptance tests' cost in Terraform commands: a step costs some seven of them
// (plan, apply, then the test framework's own plans without and with a refresh, each
// followed by show), and CI runs them all on two cores.

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoStepRepeatsTheFrameworksEmptyPlan: no test step applies the configuration the
// step before it applied only to expect an empty plan. terraform-plugin-testing
// already plans without and with a refresh after every apply and fails on any change,
// so such a step checks nothing the step before it did not. A step that changes
// something first (PreConfig, another configuration or variables) or checks something
// else is not one of them.
func TestNoStepRepeatsTheFrameworksEmptyPlan(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "*", "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	text := func(n ast.Node) string {
		var b bytes.Buffer
		_ = printer.Fprint(&b, fset, n)
		return b.String()
	}
	steps := 0
	for _, file := range files {
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			list, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			if at, ok := list.Type.(*ast.ArrayType); !ok || !strings.HasSuffix(text(at.Elt), "TestStep") {
				return true
			}
			var previous map[string]string
			for _, elt := range list.Elts {
				step, ok := elt.(*ast.CompositeLit)
				if !ok {
					previous = nil
					continue
				}
				steps++
				fields := map[string]string{}
				for _, kv := range step.Elts {
					if kv, ok := kv.(*ast.KeyValueExpr); ok {
						fields[text(kv.Key)] = text(kv.Value)
					}
				}
				if repeatsEmptyPlan(previous, fields) {
					t.Errorf("%s: this step applies the configuration of the step before it only to expect an empty plan, "+
						"which the test framework already checked after that step's apply: remove it", fset.Position(step.Pos()))
				}
				previous = fields
			}
			return true
		})
	}
	if steps < 100 {
		t.Fatalf("found only %d test steps: the scan no longer sees them", steps)
	}
}

// repeatsEmptyPlan reports whether a step (its fields' source text) only re-applies
// the previous step's configuration and expects an empty plan.
func repeatsEmptyPlan(previous, step map[string]string) bool {
	if previous == nil || step["Config"] == "" || step["Config"] != previous["Config"] ||
		step["ConfigVariables"] != previous["ConfigVariables"] {
		return false
	}
	// After these the framework does not check for an empty plan.
	for _, field := range []string{"ExpectError", "PlanOnly", "ExpectNonEmptyPlan", "ImportState", "Destroy", "RefreshState"} {
		if _, ok := previous[field]; ok {
			return false
		}
	}
	for field, value := range step {
		switch field {
		case "Config", "ConfigVariables":
		case "ConfigPlanChecks":
			if strings.Count(value, "plancheck.") != strings.Count(value, "plancheck.ExpectEmptyPlan()")+
				strings.Count(value, "plancheck.PlanCheck") {
				return false
			}
		default:
			return false
		}
	}
	return true
}
