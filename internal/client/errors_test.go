package client

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// adviceWords are the imperatives of advice, and a question mark (a guess at the
// cause). A client error says what happened and where; the provider's lead advises.
var adviceWords = regexp.MustCompile(`(?i)\b(check|raise|lower|increase|decrease|make sure|ensure|try|consider|should|` +
	`please|fix|correct|import|delete the|run (it )?again|ask|you|your|contact|verify)\b|` +
	`(^|[.;:,(]\s*|\b(and|or|then)\s+)set\s+\S|\?`)

// errorTypeRows are the client's error types, each with representative fields, one row
// for every form its Error() takes.
func errorTypeRows() []error {
	transport := errors.New("read tcp 127.0.0.1:50000->127.0.0.1:8443: connection reset by peer")
	api := &APIError{Status: http.StatusNotFound, Code: "publishing/NOT_FOUND", Message: "score not found",
		Method: http.MethodGet, Path: "/scores/x"}
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	network := func(kind string, tls *TLSProblem) error {
		return &NetworkError{Method: http.MethodGet, Path: "/scores", Host: "platform.test:8443", Setting: "publishing_url",
			Kind: kind, Timeout: 30 * time.Second, Attempts: 2, MaxRetries: 3, TLS: tls, Proxy: "proxy.test:3128",
			ProxyVar: "HTTPS_PROXY", ProxyStatus: "403 Forbidden", Err: transport}
	}
	rows := []error{
		&MissingMemberError{Member: "status", Object: "score x", Need: "no read tells the rendering wait when it is rendered"},
		api,
		&APIError{Status: http.StatusBadGateway, HTML: true},
		&MissingSettingError{Setting: "admin_url", EnvVar: EnvAdminURL},
		&MissingSettingError{Setting: "publishing_url", EnvVar: EnvPublishingURL, Or: "admin_url", OrEnvVar: EnvAdminURL},
		&OAuthError{Status: http.StatusUnauthorized, ErrorCode: "invalid_client", Description: "unknown client"},
		&OAuthError{Status: http.StatusBadRequest, ErrorCode: "invalid_grant", Method: http.MethodPost,
			Path: "/auth/oauth2/ropc/default"},
		&OAuthError{Status: http.StatusBadRequest, ErrorCode: "unsupported_grant_type"},
		&OAuthError{Status: http.StatusBadRequest, Description: "400 Bad Request: unknown user or wrong password",
			Method: http.MethodPost, Path: "/auth/oauth2/ropc/default"},
		&AdminLoginRefusedError{Err: &APIError{Status: http.StatusUnauthorized, Message: "Unauthorized: unknown user",
			Method: http.MethodPost, Path: "/api/v1/login"}},
		&UnknownOutcomeError{Method: http.MethodPost, Path: "/scores", Detail: "the score may have been created", Err: transport},
		&UnknownOutcomeError{Method: http.MethodPost, Path: "/scores", Err: transport},
		&CredentialWaitError{Credential: "platform token grant", Err: context.Canceled},
		&AddressError{Setting: "publishing_url", Address: "https://platform.test/apis/nothing", Path: "/scores",
			Answered: "a web server's HTML page", Expected: "the publishing service's address", Err: api},
		&TokenServiceMovedError{Method: http.MethodPost, Path: "/auth/oauth2/ropc/default", Link: "auth:ropc-default",
			Status: http.StatusGone, Err: api},
		&TokenServiceMovedError{Method: http.MethodPost, Path: "/auth/oauth2/ropc/default", Link: "auth:ropc-default",
			Status: http.StatusNotFound, Again: "/auth/v2/ropc", Err: api},
		&ForeignHostError{Href: "https://elsewhere.test/auth/tokens/current", Platform: "https://platform.test"},
		&ForeignAnswerError{Method: http.MethodGet, Path: "/scores/x", Status: http.StatusOK, What: "an HTML page",
			Setting: "publishing_url"},
		&ForeignAnswerError{Method: http.MethodGet, Path: "/scores/x", Status: http.StatusOK, What: "an HTML page"},
		&UnreadableAnswerError{Method: http.MethodGet, Path: "/scores/x", Status: http.StatusOK,
			Reason: "it is not valid JSON (at byte 12)"},
		&SettingError{Setting: "refresh_strategy", EnvVar: EnvRefreshStrategy, Value: "fast",
			Problem: `it must be "auto" or "individual"`},
		&RedirectError{Method: http.MethodPost, Path: "/scores", Status: http.StatusFound, Target: "https://elsewhere.test/scores",
			Credentialed: true},
		&RedirectError{Method: http.MethodGet, Path: "/api/v1/externalauth", Status: http.StatusFound,
			Target: "https://platform.test/api/v1/login", Credentialed: true, SameOrigin: true, LoginPage: true},
		&RedirectError{Method: http.MethodGet, Path: "/auth", Status: http.StatusMovedPermanently, Target: "https://elsewhere.test/auth/"},
		&RedirectError{Method: http.MethodGet, Path: "/auth", Status: http.StatusFound, Target: "https://platform.test/auth",
			SameOrigin: true, Followed: 5},
		&heldFailure{err: api, ago: 1500 * time.Millisecond, left: 58 * time.Second},
		&staleConnError{err: transport},
		&connectionWaitError{err: transport},
		&tunnelRefusedError{proxy: "proxy.test:3128", status: "407 Proxy Authentication Required", login: true},
		&RetryAfterError{Wait: time.Hour, Left: 90 * time.Second, Status: http.StatusTooManyRequests},
		&CountError{Count: 12, Detail: "the list holds 3 scores after offset 0"},
		&CountError{Count: 12, Params: "offset", Detail: "the list holds 3 scores after offset 0", Moving: true, Attempts: 3},
		&AmbiguousPublishError{ScoreURL: "https://cdn.test/a.sib", IDs: []string{"id-1", "id-2"},
			Err: &UnknownOutcomeError{Method: http.MethodPost, Path: "/scores", Err: transport}},
		&PublishCutError{Err: &UnknownOutcomeError{Method: http.MethodPost, Path: "/scores", Err: transport}},
		&UnsettledPublishError{Err: &UnknownOutcomeError{Method: http.MethodPost, Path: "/scores", Err: transport}},
		&unlistedError{err: &UnknownOutcomeError{Method: http.MethodPost, Path: "/scores", Err: transport}},
		&ListChangedError{Offset: 400, Listed: 380, Pages: 30, StepBacks: 12},
		&PagingError{Offset: 200, Detail: "the page at offset 200 lists only scores already listed"},
		&exitRefusal{status: http.StatusTooManyRequests, attempts: 2, over: 1500 * time.Millisecond},
		&exitCutOff{attempt: 1, cause: context.DeadlineExceeded},
		&exitCutOff{attempt: 2, before: &exitRefusal{status: http.StatusTooManyRequests, attempts: 1}, cause: context.DeadlineExceeded},
		&AdminLoginRefusedError{Err: &APIError{Status: http.StatusUnauthorized, Method: http.MethodPost, Path: "/api/v1/login"}},
		&OAuthError{Status: http.StatusUnauthorized, Method: http.MethodPost, Path: "/auth/oauth2/ropc/default",
			Description: "Unauthorized"},
	}
	for _, kind := range []string{NetworkRefused, NetworkDNS, NetworkTimeout, NetworkPlainHTTP, NetworkProxy,
		NetworkProxyRefused, NetworkOther, NetworkStaleConnection} {
		rows = append(rows, network(kind, nil))
	}
	for _, p := range []*TLSProblem{
		nil,
		{Kind: TLSOtherNames, Host: "platform.test", Names: []string{"other.test"}},
		{Kind: TLSOtherNames, Host: "platform.test"},
		{Kind: TLSExpired, NotBefore: now.Add(-48 * time.Hour), NotAfter: now.Add(-time.Hour), Now: now},
		{Kind: TLSExpired, NotBefore: now.Add(time.Hour), NotAfter: now.Add(48 * time.Hour), Now: now},
		{Kind: TLSAuthority, Issuer: "Corp CA", CASet: true},
		{Kind: TLSClientCertMissing, Alert: "certificate required"},
		{Kind: TLSClientCertRejected, Alert: "bad certificate"},
		{Kind: TLSOther},
	} {
		rows = append(rows, network(NetworkTLS, p))
	}
	return rows
}

// errorTypesOfThePackage parses the package's source (not its tests) and returns every
// type that has an Error() string method, by name, with the file it is declared in.
func errorTypesOfThePackage(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	declared := map[string]string{} // type name → file
	withError := map[string]bool{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					if ts, ok := spec.(*ast.TypeSpec); ok {
						declared[ts.Name.Name] = name
					}
				}
			case *ast.FuncDecl:
				if isErrorMethod(d) {
					withError[receiverName(d.Recv.List[0].Type)] = true
				}
			}
		}
	}
	types := map[string]string{}
	for name := range withError {
		types[name] = declared[name]
	}
	return types
}

// isErrorMethod reports whether d is a method Error() string.
func isErrorMethod(d *ast.FuncDecl) bool {
	if d.Recv == nil || len(d.Recv.List) != 1 || d.Name.Name != "Error" || d.Type.Params.NumFields() != 0 ||
		d.Type.Results.NumFields() != 1 {
		return false
	}
	id, ok := d.Type.Results.List[0].Type.(*ast.Ident)
	return ok && id.Name == "string"
}

// receiverName is the type name of a method's receiver, without * or type parameters.
func receiverName(expr ast.Expr) string {
	for {
		switch e := expr.(type) {
		case *ast.StarExpr:
			expr = e.X
		case *ast.IndexExpr:
			expr = e.X
		case *ast.IndexListExpr:
			expr = e.X
		case *ast.Ident:
			return e.Name
		default:
			return ""
		}
	}
}

// TestErrorTypesStateFactsNotAdvice: every error type of the package, found in its
// source so that a new one cannot be forgotten, says what happened and where, and
// gives no advice: what to do is the provider's lead to say (diagnostics.go).
func TestErrorTypesStateFactsNotAdvice(t *testing.T) {
	t.Parallel()
	found := errorTypesOfThePackage(t)
	if len(found) < 15 {
		t.Fatalf("found only %d error types in the package's source: the parse no longer finds them (%v)", len(found), found)
	}
	rowed := map[string]bool{}
	for _, e := range errorTypeRows() {
		typ := reflect.TypeOf(e)
		for typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		name := typ.Name()
		rowed[name] = true
		if _, ok := found[name]; !ok {
			t.Errorf("%s has a row but no Error() method in the package's source", name)
		}
		msg := e.Error()
		if m := adviceWords.FindString(msg); m != "" {
			t.Errorf("%s gives advice (%q); say it in the provider's lead instead:\n%s", name, m, msg)
		}
		if strings.TrimSpace(msg) == "" {
			t.Errorf("%s says nothing", name)
		}
	}
	var missing []string
	for name, file := range found {
		if !rowed[name] {
			missing = append(missing, name+" ("+file+")")
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("error type %s has no row in errorTypeRows: add one with representative fields", m)
	}
}

// TestErrorMessagesStateFactsNotAdvice: the messages the package writes with
// errors.New and fmt.Errorf give no advice either.
func TestErrorMessagesStateFactsNotAdvice(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			if builds := pkg.Name == "errors" && sel.Sel.Name == "New" || pkg.Name == "fmt" && sel.Sel.Name == "Errorf"; !builds {
				return true
			}
			text, ok := literalText(call.Args[0])
			if !ok {
				return true
			}
			checked++
			if m := adviceWords.FindString(text); m != "" {
				t.Errorf("%s: the message %q gives advice (%q); say it in the provider's lead instead",
					fset.Position(call.Pos()), text, m)
			}
			return true
		})
	}
	if checked < 50 {
		t.Fatalf("checked only %d messages: the walk no longer finds them", checked)
	}
}

// literalText is the text of a string literal or a concatenation of them.
func literalText(expr ast.Expr) (string, bool) {
	switch e := expr.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", false
		}
		x, ok := literalText(e.X)
		if !ok {
			return "", false
		}
		y, ok := literalText(e.Y)
		return x + y, ok
	case *ast.ParenExpr:
		return literalText(e.X)
	}
	return "", false
}

// platformAnswers are the platform's error answers, read from its bodies: APIError
// (problem+json, or any other body) and OAuthError (the token endpoint's, RFC 6749).
// Every mechanism may meet them, and the predicates read them.
var platformAnswers = map[string]bool{"APIError": true, "OAuthError": true}

// TestErrorTypesLiveByTheRule: an error type lives in the file of the mechanism that
// returns it, the one file whose code builds it; errors.go keeps the platform's error
// answers, the types that several files build, and every predicate (IsNotFound(err), …).
func TestErrorTypesLiveByTheRule(t *testing.T) {
	t.Parallel()
	found := errorTypesOfThePackage(t)
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	builtIn := map[string]map[string]bool{} // type → files whose code builds it
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CompositeLit:
				if id, ok := n.Type.(*ast.Ident); ok {
					if _, isError := found[id.Name]; isError {
						if builtIn[id.Name] == nil {
							builtIn[id.Name] = map[string]bool{}
						}
						builtIn[id.Name][name] = true
					}
				}
			case *ast.FuncDecl:
				if n.Recv == nil && strings.HasPrefix(n.Name.Name, "Is") && ast.IsExported(n.Name.Name) &&
					n.Type.Params.NumFields() == 1 && name != "errors.go" {
					t.Errorf("the predicate %s is in %s: predicates live in errors.go", n.Name.Name, name)
				}
			}
			return true
		})
	}
	for typ, declared := range found {
		var in []string
		for file := range builtIn[typ] {
			in = append(in, file)
		}
		sort.Strings(in)
		want := "errors.go"
		switch {
		case len(in) == 0:
			t.Errorf("%s (%s) is built nowhere in the package's code", typ, declared)
			continue
		case len(in) == 1 && !platformAnswers[typ]:
			want = in[0]
		}
		if declared != want {
			t.Errorf("%s is declared in %s and built in %s: it belongs in %s", typ, declared, strings.Join(in, ", "), want)
		}
	}
}

// TestRedactURLShowsWhatCannotParse: an address that does not parse is shown with
// the character that stops it made visible, never hidden, and still without the
// user information, query or fragment that may hold a secret.
func TestRedactURLShowsWhatCannotParse(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"https://host.example/api\n", `https://host.example/api\n`},
		{"https://ho st.example/", `https://ho st.example/`},
		{"https://user:secret@host\t.example/x?token=abc", `https://host\t.example/x`},
		{"https://host.example/ok?x=1", "https://host.example/ok"},
	} {
		if got := redactURL(c.in); got != c.want {
			t.Errorf("redactURL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
