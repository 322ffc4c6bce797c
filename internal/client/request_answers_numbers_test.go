package client

// Rule "numbers" of the reading table: every number member of every
// answer is read in any JSON form that has an integer value, and a value that is not
// such a number is absent, never an unreadable answer.

import (
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
)

func TestIntegerValue(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{
		`100`: 100, `1E+2`: 100, `1e2`: 100, `1.0E2`: 100, `100.0`: 100, `100.000`: 100, `10000E-2`: 100,
		`"100"`: 100, `" 100 "`: 100, `"1E+2"`: 100, `-1.5E+1`: -15, `0`: 0, `-0.0`: 0, `0E+400`: 0,
		`9223372036854775807`: 9223372036854775807, `-9223372036854775808`: -9223372036854775808,
		`9.223372036854775807E+18`: 9223372036854775807,
	} {
		if got, ok := integerValue([]byte(in)); !ok || got != want {
			t.Errorf("%s: %d %v, want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{
		`1.5`, `1E-1`, `1E+400`, `1E+999999999`, `1E-999999999`, `9223372036854775808`, `1E+19`,
		`"x"`, `""`, `null`, `true`, `{}`, `[1]`, `"0x10"`, `"1/2"`, `+1`, `01`, `1.`, `.5`, `"Infinity"`, `"NaN"`, `1e`,
	} {
		if got, ok := integerValue([]byte(in)); ok {
			t.Errorf("%s: read as %d, want absent", in, got)
		}
	}
}

// answerRoots are the types the client decodes answers into, each with every type
// reachable from it. A new answer type goes here (TestEveryIntegerMemberIsFlexible
// fails until it does).
var answerRoots = []any{
	Score{}, View{}, Command{}, SystemModel{}, AssetModel{}, Session{}, Health{}, System{},
	tokenInfoDoc{}, problem{},
}

// notAnswers are the package's types with integer fields that no answer is decoded
// into, and why.
var notAnswers = map[string]string{
	"Config": "configuration", "PublishScoreInput": "a request", "ViewInput": "a request",
	"ListScoresInput": "a request", "CountScoresInput": "a request", "ScoreCriteria": "a request",
	"BulkCounts": "derived from the state params (intParam)", "AccessToken": "built by the client",
	"AuthServer": "decoded by parseExternalAuthentication (TestSettingsNumbersInEveryForm)",
	"Client":     "the client", "APIError": "an error", "OAuthError": "an error", "NetworkError": "an error",
	"RedirectError": "an error", "RetryAfterError": "an error", "CountError": "an error",
	"ForeignAnswerError": "an error", "UnreadableAnswerError": "an error", "PagingError": "an error",
	"ListChangedError": "an error", "AmbiguousPublishError": "an error", "TLSProblem": "an error",
	"TokenServiceMovedError": "an error",
}

// TestEveryIntegerMemberIsFlexible walks the answer types: every integer member reads
// 100 from each of its JSON forms and is absent for anything else, without an error;
// no wire struct of the package declares a JSON member as a plain integer; and every
// named type with an integer field is an answer type or listed as none.
func TestEveryIntegerMemberIsFlexible(t *testing.T) {
	t.Parallel()
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(typ reflect.Type) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] || typ.PkgPath() != reflect.TypeFor[Score]().PkgPath() {
			return
		}
		seen[typ] = true
		for i := range typ.NumField() {
			f := typ.Field(i)
			if !f.IsExported() {
				continue
			}
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if isInteger(ft.Kind()) && ft != reflect.TypeFor[flexInt]() {
				probeIntegerMember(t, typ, f)
				continue
			}
			walk(f.Type)
		}
	}
	for _, root := range answerRoots {
		walk(reflect.TypeOf(root))
	}

	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	withIntegers := map[string]bool{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.TypeSpec:
				// An exported type, or one that declares JSON members: a type an
				// answer could be decoded into.
				if st, ok := n.Type.(*ast.StructType); ok {
					tagged := false
					for _, fld := range st.Fields.List {
						tagged = tagged || fld.Tag != nil && strings.Contains(fld.Tag.Value, `json:"`)
					}
					for _, fld := range st.Fields.List {
						if integerExpr(fld.Type) && (tagged || n.Name.IsExported()) {
							withIntegers[n.Name.Name] = true
						}
					}
				}
			case *ast.FuncLit, *ast.FuncDecl:
				// Wire structs declared inside functions are decoded member by member.
				ast.Inspect(n, func(n ast.Node) bool {
					st, ok := n.(*ast.StructType)
					if !ok {
						return true
					}
					for _, fld := range st.Fields.List {
						if fld.Tag != nil && strings.Contains(fld.Tag.Value, `json:"`) && !strings.Contains(fld.Tag.Value, `json:"-"`) && integerExpr(fld.Type) {
							t.Errorf("%s: the JSON member %s is declared as a plain integer: declare it flexInt or maybeInt (rule \"numbers\")",
								fset.Position(fld.Pos()), fld.Tag.Value)
						}
					}
					return true
				})
				return false
			}
			return true
		})
	}
	reached := map[string]bool{}
	for typ := range seen {
		reached[typ.Name()] = true
	}
	for name := range withIntegers {
		if !reached[name] && notAnswers[name] == "" && name != "flexInt" {
			t.Errorf("type %s has integer fields but is neither reached from answerRoots nor listed in notAnswers", name)
		}
	}
	if !reached["CommandInfo"] || !reached["BulkResult"] || !reached["AttributeType"] || !reached["Rendering"] {
		t.Errorf("the walk missed answer types: %v", reached)
	}
}

// integerExpr reports whether a field's type expression is an integer type (or a
// pointer to or slice of one).
func integerExpr(e ast.Expr) bool {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.ArrayType:
			e = x.Elt
		case *ast.Ident:
			switch x.Name {
			case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
				return true
			}
			return false
		default:
			return false
		}
	}
}

// probeIntegerMember decodes the member of typ that f is, alone, in each JSON form.
func probeIntegerMember(t *testing.T, typ reflect.Type, f reflect.StructField) {
	t.Helper()
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		name = wireName(f.Name)
	}
	read := func(form string) (reflect.Value, error) {
		v := reflect.New(typ)
		err := json.Unmarshal([]byte(`{"`+name+`": `+form+`}`), v.Interface())
		fv := v.Elem().FieldByIndex(f.Index)
		if fv.Kind() == reflect.Pointer {
			if fv.IsNil() {
				return reflect.Value{}, err
			}
			fv = fv.Elem()
		}
		return fv, err
	}
	for _, form := range []string{`100`, `1E+2`, `1.0E2`, `100.0`, `"100"`, `"1E+2"`} {
		fv, err := read(form)
		if err != nil || !fv.IsValid() || fv.Int() != 100 {
			t.Errorf("%s.%s (%q) = %v from %s (error %v), want 100", typ.Name(), f.Name, name, fv, form, err)
		}
	}
	for _, form := range []string{`"x"`, `true`, `{}`, `[1]`, `1.5`, `1E+400`, `null`} {
		fv, err := read(form)
		if err != nil || fv.IsValid() && fv.Int() != 0 {
			t.Errorf("%s.%s (%q) from %s: %v, error %v; want absent without an error", typ.Name(), f.Name, name, form, fv, err)
		}
		if fv.IsValid() && f.Type.Kind() == reflect.Pointer {
			t.Errorf("%s.%s (%q) from %s is set; want nil", typ.Name(), f.Name, name, form)
		}
	}
}

// wireName is the JSON name of a field that has no tag: its Go name with the leading
// capitals lowered (Progress: progress, HTTPStatus: httpStatus).
func wireName(goName string) string {
	r := []rune(goName)
	for i := range r {
		if !unicode.IsUpper(r[i]) || i > 0 && i+1 < len(r) && unicode.IsLower(r[i+1]) {
			break
		}
		r[i] = unicode.ToLower(r[i])
	}
	return string(r)
}

// TestIntegersInEveryForm reads every kind of answer from a platform that writes its
// integers as the contract does and then from one that writes them with an exponent
// (reading exponentIntegers: 1E+2, 389.0E0): the client reads the same values.
func TestIntegersInEveryForm(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{RenderDelay: time.Millisecond})
	setup := env.client()
	ctx := env.ctx
	score, err := setup.PublishScore(ctx, PublishScoreInput{ScoreURL: "https://cdn.example/numbers.sib", Alias: "numbers"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := setup.WaitForRendering(ctx, score.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := setup.PutExternalAuthentication(ctx, ExternalAuthentication{DomainName: "CORP", Enabled: true,
		Servers: []AuthServer{{Address: "dc1", Port: 389, Enabled: true}, {Address: "dc2", Port: 636}}}); err != nil {
		t.Fatal(err)
	}
	bulk, err := env.emu.CreateCommand(emulator.CommandScript{Type: "publishing:purge", Steps: []emulator.CommandStep{
		{Lifecycle: "finished", Progress: 100}},
		Results: []emulator.CommandResult{{Success: true, Data: "a"}, {Success: false, HTTPStatus: 409, ErrorCode: "x/CONFLICT", ErrorMessage: "taken"}}})
	if err != nil {
		t.Fatal(err)
	}
	failed, err := env.emu.CreateCommand(emulator.CommandScript{Type: "publishing:purge", Steps: []emulator.CommandStep{
		{Lifecycle: "error", Progress: 50}}})
	if err != nil {
		t.Fatal(err)
	}

	type answers struct {
		Score, Listed                *Score
		Count                        int
		Settings                     *ExternalAuthentication
		Bulk, Failed                 *Command
		Model                        *SystemModel
		Asset                        *AssetModel
		Health                       *Health
		Missing                      string
		SessionValid                 bool
		TokenLifetime                time.Duration
		BulkCounts                   BulkCounts
		Progress, FailedProgress     int
		HTTPStatus, HTTPCode, Pages  int
		MaxLengths, Servers, Systems int
	}
	read := func(t *testing.T) answers {
		t.Helper()
		c := env.client() // a new login and grant, read under the reading in force
		var a answers
		var err error
		must := func(what string, err error) {
			t.Helper()
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
		}
		a.Score, err = c.GetScore(ctx, "numbers")
		must("score", err)
		list, err := c.ListScores(ctx, ListScoresInput{})
		must("list", err)
		if len(list) != 1 {
			t.Fatalf("list of %d", len(list))
		}
		a.Listed = list[0]
		a.Count, err = c.CountScores(ctx, CountScoresInput{})
		must("count", err)
		a.Settings, err = c.GetExternalAuthentication(ctx)
		must("settings", err)
		a.Bulk, err = c.GetCommand(ctx, bulk)
		must("bulk command", err)
		a.Failed, err = c.GetCommand(ctx, failed)
		must("failed command", err)
		a.Model, err = c.SystemModel(ctx, "interplay-pam", "pam-1", true, "")
		must("system model", err)
		a.Asset, err = c.AssetModelByID(ctx, "interplay-pam", "pam-1", "clip-1", "")
		must("asset model", err)
		a.Health, err = c.Health(ctx)
		must("health", err)
		systems, err := c.Systems(ctx)
		must("systems", err)
		a.Systems = len(systems)
		session, err := c.CheckSession(ctx)
		must("session", err)
		a.SessionValid = session.Valid
		_, err = c.GetScore(ctx, "no-such-score")
		var apiErr *APIError
		if !IsNotFound(err) || !errors.As(err, &apiErr) {
			t.Fatalf("a missing score: %v", err)
		}
		a.Missing = apiErr.Code + ": " + apiErr.Message
		tok, err := c.GrantAccessToken(ctx)
		must("token grant", err)
		a.TokenLifetime = tok.lifetime
		must("token removal", c.RemoveAccessToken(ctx, tok))

		a.BulkCounts, _ = a.Bulk.BulkCounts()
		if p := a.Bulk.Command.Progress; p != nil {
			a.Progress = *p
		}
		if p := a.Failed.Command.Progress; p != nil {
			a.FailedProgress = *p
		}
		if a.Bulk.Payload != nil && len(a.Bulk.Payload.Result) == 2 {
			a.HTTPStatus = a.Bulk.Payload.Result[1].HTTPStatus
		}
		if a.Failed.Command.Error != nil {
			a.HTTPCode = a.Failed.Command.Error.HTTPCode
		}
		a.Pages = a.Score.PageCount()
		for _, attr := range append(a.Model.Attributes.Common, a.Model.Attributes.Custom...) {
			if attr.Type.MaxLength != nil {
				a.MaxLengths += *attr.Type.MaxLength
			}
		}
		a.Servers = a.Settings.Servers[0].Port + a.Settings.Servers[1].Port
		clearRaw(reflect.ValueOf(&a))
		return a
	}
	plain := read(t)
	env.emu.SetFaults(emulator.Faults{Readings: emulator.Readings{ExponentIntegers: true}})
	exponent := read(t)
	if plain.Count != 1 || plain.Progress != 100 || plain.FailedProgress != 50 || plain.HTTPStatus != 409 || plain.HTTPCode != 500 ||
		plain.Pages == 0 || plain.MaxLengths == 0 || plain.Servers != 389+636 || plain.BulkCounts != (BulkCounts{2, 1, 1}) ||
		plain.TokenLifetime == 0 || !plain.SessionValid || plain.Systems != 2 {
		t.Fatalf("the platform's integers as the contract writes them were not all read: %+v", plain)
	}
	if !reflect.DeepEqual(plain, exponent) {
		t.Errorf("read with exponents:\n%+v\nwant what was read without:\n%+v", exponent, plain)
	}
}

// clearRaw sets every Raw member (an answer's text, which differs in its spelling of
// the numbers) to nil, at every depth.
func clearRaw(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			clearRaw(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Field(i); v.Type().Field(i).Name == "Raw" && f.CanSet() {
				f.Set(reflect.Zero(f.Type()))
			} else if f.CanSet() {
				clearRaw(f)
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			clearRaw(v.Index(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			clearRaw(e)
			v.SetMapIndex(k, e)
		}
	}
}

// TestFlexInt: an integer as a number or a string holding one (protojson's int64);
// anything else reads as 0, as if absent.
func TestFlexInt(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]flexInt{`900`: 900, `"900"`: 900, `" 900 "`: 900, `null`: 0, `""`: 0, `"soon"`: 0, `true`: 0} {
		var n flexInt
		if err := json.Unmarshal([]byte(body), &n); err != nil || n != want {
			t.Errorf("%s: %d, %v", body, n, err)
		}
	}
	var grant struct {
		ExpiresIn flexInt `json:"expires_in"`
	}
	if err := json.Unmarshal([]byte(`{"expires_in": "900"}`), &grant); err != nil || grant.ExpiresIn != 900 {
		t.Errorf("a grant's expires_in as a string: %d, %v", grant.ExpiresIn, err)
	}
}
