package provider

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

// causeAdvice is what advice looks like, as the client's errors_test.go looks for it:
// the client's errors state facts, so none of it may come from the cause.
var causeAdvice = regexp.MustCompile(`(?i)\b(check|raise|lower|increase|decrease|make sure|ensure|try|consider|should|` +
	`please|fix|correct|import|delete the|run (it )?again|ask|you|your|contact|verify)\b|` +
	`(^|[.;:,(]\s*|\b(and|or|then)\s+)set\s+\S|\?`)

// leadCase is a client error of one cause and the advice its lead gives (or, for the
// causes whose lead only explains, what it explains).
type leadCase struct {
	name string
	err  error
	want string
}

// leadCases are the causes causeLead tells apart, one row for each of its branches.
func leadCases() []leadCase {
	transport := errors.New("read tcp 127.0.0.1:50000->127.0.0.1:8443: connection reset by peer")
	network := func(kind string, mod func(*client.NetworkError)) error {
		e := &client.NetworkError{Method: http.MethodGet, Path: "/scores", Host: "platform.test:8443",
			Setting: "publishing_url", Kind: kind, Timeout: 30 * time.Second, Attempts: 2, MaxRetries: 3,
			Proxy: "proxy.test:3128", ProxyVar: "HTTPS_PROXY", ProxyStatus: "403 Forbidden", Err: transport}
		if mod != nil {
			mod(e)
		}
		return e
	}
	tls := func(p *client.TLSProblem) error {
		return network(client.NetworkTLS, func(e *client.NetworkError) { e.TLS = p })
	}
	api := func(status int, code string, mod func(*client.APIError)) error {
		e := &client.APIError{Status: status, Code: code, Message: "the platform's message", Method: http.MethodGet,
			Path: "/scores", Host: "platform.test:8443", Setting: "publishing_url"}
		if mod != nil {
			mod(e)
		}
		return e
	}
	html := func(e *client.APIError) { e.HTML, e.Code, e.Message = true, "", "" }
	now := time.Now()
	return []leadCase{
		{"interrupted", fmt.Errorf("GET /scores: %w", context.Canceled), "run the command again"},
		{"a redirect to another host", &client.RedirectError{Method: http.MethodPost, Path: "/scores", Status: http.StatusFound,
			Target: "https://elsewhere.test/scores", Credentialed: true, Setting: "publishing_url"},
			"the request carries credentials, so the provider sent nothing there. If that is the platform's own address, set publishing_url to it"},
		{"a credentialed redirect on the same host", &client.RedirectError{Method: http.MethodGet, Path: "/scores",
			Status: http.StatusMovedPermanently, Target: "https://platform.test/v3/scores", Credentialed: true, SameOrigin: true,
			Setting: "publishing_url"}, "If the platform moved the API there, set publishing_url to its new address"},
		{"a redirect to the login page again", &client.RedirectError{Method: http.MethodGet, Path: "/api/v1/externalauth",
			Status: http.StatusFound, Target: "https://platform.test/api/v1/login", Credentialed: true, SameOrigin: true,
			LoginPage: true, Setting: "admin_url"}, "No provider setting changes this: ask the platform's operators"},
		{"a redirect without credentials to another host", &client.RedirectError{Method: http.MethodGet, Path: "/auth",
			Status: http.StatusMovedPermanently, Target: "https://elsewhere.test/auth/", Setting: "platform_url"},
			"a request without credentials, to another host"},
		{"a redirect loop without credentials", &client.RedirectError{Method: http.MethodGet, Path: "/auth",
			Status: http.StatusFound, Target: "https://platform.test/auth", SameOrigin: true, Followed: 5, Setting: "platform_url"},
			"No provider setting ends it"},
		{"a link to a foreign host", &client.ForeignHostError{Href: "https://elsewhere.test/auth/tokens/current",
			Platform: "https://platform.test"}, "check that platform_url is the platform's address"},
		{"a link naming the platform otherwise", &client.ForeignHostError{Href: "http://localhost:8080/auth/tokens/current",
			Platform: "http://127.0.0.1:8080", Host: "localhost:8080"},
			`The platform's token flow links to the host localhost:8080, which platform_url (http://127.0.0.1:8080) does not name, so no credentials went there; if localhost:8080 is the platform under another name, add "localhost:8080" to platform_hosts`},
		{"a 2xx that is not the platform's", &client.ForeignAnswerError{Method: http.MethodGet, Path: "/scores/x",
			Status: http.StatusOK, What: "an HTML page", Setting: "publishing_url"}, "check the address"},
		{"a count that cannot be true", &client.CountError{Count: 12, Params: "offset", Detail: "the list holds 3"},
			"the platform ignored a parameter of the count"},
		{"pages that do not advance", &client.PagingError{Offset: 200, Detail: "the page lists only scores already listed"},
			"stopped reading them instead of looping"},
		{"a list that changed too fast", &client.ListChangedError{Offset: 400, Listed: 380, Pages: 30, StepBacks: 12},
			"Run again, or narrow the listing"},
		{"NO_PROXY past the proxy", network(client.NetworkDNS, func(e *client.NetworkError) {
			e.Bypassed, e.BypassedProxyVar = "platform.test", "HTTPS_PROXY"
		}), "remove that entry from NO_PROXY"},
		{"a proxy wanting a login", network(client.NetworkProxyRefused, func(e *client.NetworkError) {
			e.ProxyStatus = "407 Proxy Authentication Required"
		}), "put the proxy's user and password in HTTPS_PROXY"},
		{"a proxy refusing its login", network(client.NetworkProxyRefused, func(e *client.NetworkError) {
			e.ProxyStatus, e.ProxyLogin = "407 Proxy Authentication Required", true
		}), "check the user and password in HTTPS_PROXY"},
		{"a proxy's policy", network(client.NetworkProxyRefused, nil), "ask its operators to allow it"},
		{"nothing listening", network(client.NetworkRefused, nil), "check publishing_url"},
		{"no such host", network(client.NetworkDNS, nil), "check publishing_url and the DNS"},
		{"silence", network(client.NetworkTimeout, nil), "raise request_timeout"},
		{"a stale connection", network(client.NetworkStaleConnection, nil), "run the command again"},
		{"plain HTTP", network(client.NetworkPlainHTTP, nil), "write publishing_url with http://"},
		{"an unreachable proxy", network(client.NetworkProxy, nil), "check HTTPS_PROXY and that the proxy runs"},
		{"another connection failure", network(client.NetworkOther, nil), "check publishing_url"},
		{"a certificate for other names", tls(&client.TLSProblem{Kind: client.TLSOtherNames, Host: "platform.test",
			Names: []string{"other.test"}}), "set publishing_url to an address with one of those names"},
		{"a certificate not valid yet", tls(&client.TLSProblem{Kind: client.TLSExpired, NotBefore: now.Add(time.Hour),
			NotAfter: now.Add(48 * time.Hour), Now: now}), "Check this machine's clock"},
		{"an expired certificate", tls(&client.TLSProblem{Kind: client.TLSExpired, NotBefore: now.Add(-48 * time.Hour),
			NotAfter: now.Add(-time.Hour), Now: now}), "the platform must renew its certificate"},
		{"an authority not in ca_cert_pem", tls(&client.TLSProblem{Kind: client.TLSAuthority, CASet: true}),
			"set ca_cert_pem to the certificate of the authority"},
		{"an untrusted authority", tls(&client.TLSProblem{Kind: client.TLSAuthority}), "set ca_cert_pem"},
		{"a client certificate demanded", tls(&client.TLSProblem{Kind: client.TLSClientCertMissing, Alert: "certificate required"}),
			"Set client_cert_pem and client_key_pem"},
		{"a client certificate refused", tls(&client.TLSProblem{Kind: client.TLSClientCertRejected, Alert: "bad certificate"}),
			"check that it is the certificate its gateway trusts"},
		{"another certificate problem", tls(nil), "check the platform's certificate"},
		{"a wrong address", &client.AddressError{Setting: "publishing_url", Address: "https://platform.test/x",
			Path: "/scores", Err: api(http.StatusNotFound, "", html)}, "Correct publishing_url and run again"},
		{"a missing setting", &client.MissingSettingError{Setting: "admin_url", EnvVar: client.EnvAdminURL},
			"Set it in the provider configuration or in the environment variable " + client.EnvAdminURL},
		{"a missing setting that admin_url derives", &client.MissingSettingError{Setting: "publishing_url",
			EnvVar: client.EnvPublishingURL, Or: "admin_url", OrEnvVar: client.EnvAdminURL},
			"or set admin_url (" + client.EnvAdminURL + ") to derive it"},
		{"a missing setting that basic_token replaces", &client.MissingSettingError{Setting: "client_id",
			EnvVar: client.EnvClientID, Or: "basic_token", OrEnvVar: client.EnvBasicToken},
			"or set basic_token (" + client.EnvBasicToken + ") instead"},
		{"a connection this machine's open-files limit refused", network(client.NetworkLocal, func(e *client.NetworkError) {
			e.OpenFiles, e.ConnsPerHost, e.Proxy, e.ProxyVar = 64, 16, "", ""
			e.Err = &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("socket", syscall.EMFILE)}
		}), "This machine, not the network, refused a connection to platform.test:8443 (from publishing_url): the process " +
			"may open only 64 files at once, and Terraform ran more operations at once than it allows. Raise the limit " +
			"(`ulimit -n 4096`; a container's or CI agent's `nofile`, a service's `LimitNOFILE`) or run with a lower `-parallelism`"},
		{"a request that waited for a busy connection", network(client.NetworkLocal, func(e *client.NetworkError) {
			e.OpenFiles, e.ConnsPerHost, e.Waited, e.Proxy, e.ProxyVar = 64, 16, true, "", ""
		}), "This machine, not the network, held the request to platform.test:8443 (from publishing_url) until it ended: " +
			"all 16 connections the provider opens to one host stayed busy (the process may open only 64 files at once), and " +
			"nothing was sent. Run with a lower `-parallelism`"},
		{"a refused password that ends with a line break", &client.OAuthError{Status: http.StatusBadRequest, ErrorCode: "invalid_grant",
			Spaced: []client.SpacedSetting{{Setting: "password", EnvVar: client.EnvPassword, What: "ends with a line break"}}},
			"`password` (from " + client.EnvPassword + ") ends with a line break, sent as part of it, and the login was refused"},
		{"a refused application credential", &client.OAuthError{Status: http.StatusUnauthorized, ErrorCode: "invalid_client"},
			"client_secret, or basic_token, are wrong or unknown to the platform; check them"},
		{"a refused user", &client.OAuthError{Status: http.StatusBadRequest, ErrorCode: "invalid_grant"},
			"check username and password"},
		{"another OAuth error", &client.OAuthError{Status: http.StatusBadRequest, ErrorCode: "unauthorized_client"},
			"Check username, password and the application credential"},
		{"a refused user in another form", &client.OAuthError{Status: http.StatusBadRequest},
			"refused the login of the platform user `username` (HTTP 400 to the password grant): username or password is wrong"},
		{"a refused login in another form, 401", &client.OAuthError{Status: http.StatusUnauthorized},
			"check username and password, and the application credential (client_id/client_secret or basic_token)"},
		{"a refused administrator login in another form", &client.AdminLoginRefusedError{Err: &client.APIError{Status: http.StatusUnauthorized, Message: "Unauthorized"}},
			"The administrator API login (admin_username/admin_password) was refused"},
		{"a Retry-After past the budget", &client.RetryAfterError{Wait: time.Hour, Left: time.Minute, Status: http.StatusTooManyRequests},
			"Run again once that wait (1h0m0s) is over"},
		{"a proxy's login page", api(http.StatusProxyAuthRequired, "", func(e *client.APIError) {
			html(e)
			e.Proxy, e.ProxyVar = "proxy.test:3128", "HTTP_PROXY"
		}), "put the proxy's user and password in HTTP_PROXY"},
		{"a gateway's refusal", api(http.StatusUnauthorized, "", html), "set it in request_headers"},
		{"a gateway's refusal of the headers sent", api(http.StatusForbidden, "", func(e *client.APIError) {
			html(e)
			e.HeadersSet = true
		}), "check the names and values in request_headers"},
		{"another HTML page", api(http.StatusBadGateway, "", html), "check publishing_url"},
		{"a moved token service", &client.TokenServiceMovedError{Method: http.MethodPost, Path: "/auth/oauth2/ropc/default",
			Link: "auth:ropc-default", Status: http.StatusGone, Err: api(http.StatusGone, "", nil)},
			"Run again once the platform's upgrade is complete, or ask its operators"},
		{"a refused administrator login", api(http.StatusUnauthorized, "admin/INVALID_CREDENTIALS", nil),
			"Check admin_username and admin_password"},
		{"a refused administrator session", api(http.StatusUnauthorized, "admin/UNAUTHORIZED", nil),
			"Check admin_username and admin_password, and that admin_url addresses the administrator API"},
		{"a refused access token", api(http.StatusUnauthorized, "publishing/UNAUTHORIZED", nil),
			"Check username, password and the application credential"},
		{"an administrator without the right", api(http.StatusForbidden, "admin/FORBIDDEN", nil),
			"Set admin_username and admin_password to an account with administrator rights"},
		{"a forbidden operation", api(http.StatusForbidden, "publishing/FORBIDDEN", nil),
			"the credentials are valid but not allowed to do this"},
		{"the rate limit", api(http.StatusTooManyRequests, "", nil), "Run again later, or with a lower -parallelism"},
		{"a failing platform", api(http.StatusInternalServerError, "", nil), "Run again later; if it persists, ask the platform's operators"},
	}
}

// TestCauseLeadAdvisesForEveryCause: for each cause, the diagnostic leads with the
// advice of its cause, and the advice is given there once: the client's error, quoted
// as the cause, states facts.
func TestCauseLeadAdvisesForEveryCause(t *testing.T) {
	t.Parallel()
	for _, tc := range leadCases() {
		var diags diag.Diagnostics
		addClientError(&diags, "Unable to read score", "Score \"x\" could not be read.", tc.err)
		if len(diags) != 1 {
			t.Fatalf("%s: %d diagnostics", tc.name, len(diags))
		}
		detail := diags[0].Detail()
		lead, rest, ok := strings.Cut(detail, "\n\nScore \"x\" could not be read.")
		if !ok || lead == "" {
			t.Errorf("%s: the diagnostic does not lead with its cause:\n%s", tc.name, detail)
			continue
		}
		if !errorPattern(tc.want).MatchString(lead) {
			t.Errorf("%s: the lead does not say %q:\n%s", tc.name, tc.want, lead)
		}
		_, cause, _ := strings.Cut(rest, "Cause: ")
		if cause != tc.err.Error() {
			t.Errorf("%s: the cause is %q, want the client's error %q", tc.name, cause, tc.err.Error())
		}
		if m := causeAdvice.FindString(cause); m != "" {
			t.Errorf("%s: the client's error advises too (%q), so the diagnostic says it twice:\n%s", tc.name, m, detail)
		}
	}
}

// TestCertificatePairLead: a certificate without its key, or a key without its
// certificate, is told to set both or neither; the client only says which is missing.
func TestCertificatePairLead(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ cert, key, want string }{
		{"", "KEY", " Set both client_cert_pem and client_key_pem, or neither."},
		{"CERT", "", " Set both client_cert_pem and client_key_pem, or neither."},
		{"CERT", "KEY", ""},
	} {
		if got := certificatePairLead(tc.cert, tc.key); got != tc.want {
			t.Errorf("cert %q, key %q: got %q, want %q", tc.cert, tc.key, got, tc.want)
		}
		if _, err := client.ClientCertificate(tc.cert, tc.key); tc.want != "" && (err == nil || causeAdvice.MatchString(err.Error())) {
			t.Errorf("cert %q, key %q: the client's error %v should state only what is missing", tc.cert, tc.key, err)
		}
	}
}
