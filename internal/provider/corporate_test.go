package provider

// Corporate networks: a gateway in front of the platform that demands a client
// certificate (mutual TLS) and an access header, driven through Terraform.

import (
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/testca"
)

// gatewayHeader is the access header the test gateway demands.
const gatewayHeader, gatewaySecret = "CF-Access-Client-Secret", "gw-7f3a9c1e5b"

// newGatewayEmulator serves an emulator over TLS behind a gateway that demands a
// client certificate of ca and the access header, and returns it with its server
// certificate (for ca_cert_pem).
func newGatewayEmulator(t *testing.T, ca *testca.CA) (*testEmulator, string) {
	return newGatewayEmulatorRendering(t, ca, testRenderDelay)
}

// newGatewayEmulatorRendering is newGatewayEmulator with scores that render for
// renderDelay a state.
func newGatewayEmulatorRendering(t *testing.T, ca *testca.CA, renderDelay time.Duration) (*testEmulator, string) {
	return newGatewayEmulatorWith(t, ca, emulator.Options{RenderDelay: renderDelay})
}

// newGatewayEmulatorWith is newGatewayEmulator with the emulator's other options.
func newGatewayEmulatorWith(t *testing.T, ca *testca.CA, opts emulator.Options) (*testEmulator, string) {
	t.Helper()
	if externalPlatform != nil {
		t.Skip("needs the emulator's control surface: a gateway demanding a client certificate and a header")
	}
	opts.Faults.ClientCACertPEM = ca.PEM
	opts.Faults.RequireHeader = &emulator.HeaderRequirement{Name: gatewayHeader, Value: gatewaySecret}
	emu := emulator.New(opts)
	srv := httptest.NewUnstartedServer(emu)
	srv.TLS = emu.TLSConfig(nil)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	serverPEM := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
	return servedTestEmulator(t, emu, srv.URL), serverPEM
}

// TestAccCorporate_gateway drives client_cert_pem, client_key_pem and request_headers
// through Terraform against a gateway that demands both: with them the configuration
// applies, re-plans empty and destroys; without the certificate, with one of another
// authority, or without the header, the first sentence names the setting to fix.
func TestAccCorporate_gateway(t *testing.T) {
	t.Parallel()
	ca := testca.New(t, "gateway CA")
	cert, key := ca.Issue(t, "terraform-ci", time.Now().Add(24*time.Hour))
	strangerCert, strangerKey := testca.New(t, "another CA").Issue(t, "terraform-ci", time.Now().Add(24*time.Hour))
	emu, serverPEM := newGatewayEmulator(t, ca)
	vars := config.Variables{
		"server_ca": config.StringVariable(serverPEM), "client_cert": config.StringVariable(cert),
		"client_key": config.StringVariable(key), "stranger_cert": config.StringVariable(strangerCert),
		"stranger_key": config.StringVariable(strangerKey),
	}
	provider := func(arguments string) string {
		return `
variable "server_ca" { type = string }
variable "client_cert" { type = string }
variable "client_key" {
  type      = string
  sensitive = true
}
variable "stranger_cert" { type = string }
variable "stranger_key" {
  type      = string
  sensitive = true
}
` + providerConfigPlus(emu, "ca_cert_pem = var.server_ca\n"+arguments) + tlsTestResources
	}
	headers := fmt.Sprintf("request_headers = { %q = %q }\n", gatewayHeader, gatewaySecret)
	both := "client_cert_pem = var.client_cert\n  client_key_pem = var.client_key\n  " + headers

	t.Run("with the certificate and the header", func(t *testing.T) {
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testProviderFactories(t),
			Steps: []resource.TestStep{
				{Config: provider(both), ConfigVariables: vars},
				{
					Config: provider(both), ConfigVariables: vars,
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				},
			},
		})
	})
	for _, tc := range []struct {
		name, arguments string
		want            *regexp.Regexp
	}{
		{"without a client certificate", headers, errorPattern("refused the TLS handshake because it demands a client "+
			"certificate and none was sent", "Set client_cert_pem and client_key_pem")},
		{"with a certificate of another authority", "client_cert_pem = var.stranger_cert\n  client_key_pem = var.stranger_key\n  " +
			headers, errorPattern("refused the client certificate in client_cert_pem")},
		{"without the header", "client_cert_pem = var.client_cert\n  client_key_pem = var.client_key\n",
			errorPattern("The gateway or web application firewall at", "asked for credentials with an HTML page (HTTP 401)", "set it in request_headers")},
		{"with a wrong header", "client_cert_pem = var.client_cert\n  client_key_pem = var.client_key\n  " +
			fmt.Sprintf("request_headers = { %q = \"wrong\" }\n", gatewayHeader),
			errorPattern("The gateway or web application firewall at", "refused the request with an HTML page (HTTP 403)", "check the names and values in request_headers")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testProviderFactories(t),
				Steps:                    []resource.TestStep{{Config: provider(tc.arguments), ConfigVariables: vars, ExpectError: tc.want}},
			})
		})
	}
}

// TestAccCorporate_headersStayOnThePlatform: the request headers reach the platform's
// host on every request, and never a second host its answers point to (the token
// flow's links rewritten to it: refused before anything is sent there).
func TestAccCorporate_headersStayOnThePlatform(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var secondHits int
	second := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		mu.Lock()
		secondHits++
		mu.Unlock()
	}))
	t.Cleanup(second.Close)
	emu, proxy := newProxiedTestEmulator(t, "a link to a second host")
	proxy.Add(faultproxy.Fault{Method: http.MethodGet, Path: `/auth$`, Respond: &faultproxy.Answer{
		Status: http.StatusOK, Header: http.Header{"Content-Type": {"application/hal+json"}},
		Body: fmt.Sprintf(`{"_links":{"auth:identity-providers":[{"href":%q}],"auth:token":[{"href":%q,"name":"current"}]}}`,
			second.URL+"/auth/identity-providers", second.URL+"/auth/tokens/current"),
	}})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: providerConfigPlus(emu, fmt.Sprintf("request_headers = { %q = %q }", gatewayHeader, gatewaySecret)) + `
resource "mediaplatform_score" "test" {
  score_url = "https://cdn.example/scores/headers.sib"
}
`,
			ExpectError: regexp.MustCompile(`not on the platform`),
		}},
	})
	mu.Lock()
	defer mu.Unlock()
	if secondHits != 0 {
		t.Errorf("the second host got %d requests", secondHits)
	}
	if n := proxy.Count(http.MethodGet, `/auth$`); n == 0 {
		t.Error("the platform's /auth was never asked: the test proves nothing")
	}
}

// TestAccCorporate_badInputAtPlan: what cannot work is refused at plan time naming
// the attribute, before any request: a certificate that is not PEM, a key without a
// certificate, a key of another certificate, a header the provider sets itself.
func TestAccCorporate_badInputAtPlan(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	ca := testca.New(t, "CA")
	cert, ownKey := ca.Issue(t, "a", time.Now().Add(time.Hour))
	_, otherKey := ca.Issue(t, "b", time.Now().Add(time.Hour))
	block, _ := pem.Decode([]byte(ownKey))
	//nolint:staticcheck // the legacy encryption is what `openssl ... -des3` and old tools write
	encrypted, err := x509.EncryptPEMBlock(rand.Reader, "EC PRIVATE KEY", block.Bytes, []byte("passphrase"), x509.PEMCipherAES256)
	if err != nil {
		t.Fatal(err)
	}
	certDER, _ := pem.Decode([]byte(cert))
	vars := config.Variables{
		"cert": config.StringVariable(cert), "key": config.StringVariable(otherKey),
		"encrypted_key": config.StringVariable(string(pem.EncodeToMemory(encrypted))),
		"escaped_key":   config.StringVariable(strings.ReplaceAll(strings.TrimSpace(ownKey), "\n", `\n`)),
		"bare_base64":   config.StringVariable(base64.StdEncoding.EncodeToString(certDER.Bytes)),
	}
	for _, tc := range []struct {
		name, arguments string
		want            *regexp.Regexp
	}{
		{"not PEM", `client_cert_pem = "MIIB…"`, errorPattern("client_cert_pem value must be PEM-encoded certificates")},
		// Only the variable a value came from is named: here neither came from one.
		{"a key without a certificate", "client_key_pem = var.key", errorPattern(
			"The client certificate (client_cert_pem) and its key (client_key_pem) cannot be used: client_key_pem is set without client_cert_pem")},
		{"a key of another certificate", "client_cert_pem = var.cert\n  client_key_pem = var.key",
			errorPattern("client_key_pem does not match the certificate in client_cert_pem (CN=a)")},
		{"the certificate's own key, encrypted", "client_cert_pem = var.cert\n  client_key_pem = var.encrypted_key",
			errorPattern("client_key_pem value must be a PEM-encoded private key; it holds an encrypted private key",
				"openssl pkey -in key.pem -out plain.pem")},
		{"a key with escaped line breaks", "client_cert_pem = var.cert\n  client_key_pem = var.escaped_key",
			errorPattern(`client_key_pem value must be a PEM-encoded private key; it holds the two characters \n where its lines should break`)},
		{"a certificate in base64 without its armour", "client_cert_pem = var.bare_base64\n  client_key_pem = var.key",
			errorPattern("it holds the base64 of a DER certificate without the PEM armour", "openssl x509 -inform DER")},
		// Refused by the attribute's validator, so Configure (and its generic "can never
		// work") never runs: the specific error is the only one.
		{"a file name as the CA", `ca_cert_pem = "certs/gateway-ca.pem"`,
			errorPattern("Error: Invalid attribute value", "Attribute ca_cert_pem value must be PEM-encoded certificates; it is a file name",
				`read the file with file("certs/gateway-ca.pem")`)},
		{"a header the provider sets", `request_headers = { Authorization = "Bearer x" }`,
			errorPattern(`request_headers["Authorization"] cannot be sent: the provider sets the header Authorization itself `+
				`(the platform's credential): give a gateway's credential in a header of its own, such as Proxy-Authorization.`,
				"give the gateway's credential in a header of its own instead", "Proxy-Authorization",
				"HTTPS_PROXY=http://user:password@proxy:port")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testProviderFactories(t),
				Steps: []resource.TestStep{{
					Config: `
variable "cert" { type = string }
variable "key" {
  type      = string
  sensitive = true
}
variable "encrypted_key" {
  type      = string
  sensitive = true
}
variable "escaped_key" {
  type      = string
  sensitive = true
}
variable "bare_base64" { type = string }
` + providerConfigPlus(emu, tc.arguments) + `data "mediaplatform_health" "test" {}`,
					ConfigVariables: vars, ExpectError: tc.want,
				}},
			})
		})
	}
	if ctl := emu.optionalControl(t, "that nothing was sent"); ctl != nil && ctl.Stats().TotalRequests() != 0 {
		t.Errorf("bad network settings still sent %d requests", ctl.Stats().TotalRequests())
	}
}

// TestCorporate_expiredCertificateWarns: an expired client certificate gives a
// warning with its date, naming client_cert_pem.
func TestCorporate_expiredCertificateWarns(t *testing.T) {
	t.Parallel()
	ca := testca.New(t, "CA")
	notAfter := time.Now().Add(-time.Hour).Truncate(time.Second)
	cert, key := ca.Issue(t, "old", notAfter)
	cfg := client.Config{ClientCertPEM: cert, ClientKeyPEM: key}
	var diags diag.Diagnostics
	p := &mediaplatformProvider{}
	if !p.networkSettings(&cfg, providerModel{ClientCertPEM: types.StringValue(cert), ClientKeyPEM: types.StringValue(key)}, nil, &diags) {
		t.Fatalf("an expired certificate was refused: %v", diags)
	}
	if len(diags) != 1 || diags[0].Summary() != "Client certificate expired" ||
		!strings.Contains(diags[0].Detail(), "client_cert_pem (CN=old) expired at "+notAfter.UTC().Format(time.RFC3339)) {
		t.Errorf("diagnostics %v", diags)
	}
}

// TestAccCorporateGuide_stoppedByItsTimeLimit runs the guide "Corporate networks" as a user does: its
// configuration with the certificate files and the service token from variables, and
// its CI script, behind a gateway that demands both. The first run is stopped by its
// time limit (timeout's SIGTERM to the process group) while scores render; the state
// then holds every score the platform holds and no token is left; the second run
// finishes without a duplicate.
func TestAccCorporateGuide_stoppedByItsTimeLimit(t *testing.T) {
	newWorkspace := cliWorkspaces(t)
	t.Parallel()
	ca := testca.New(t, "gateway CA")
	cert, key := ca.Issue(t, "terraform-ci", time.Now().Add(24*time.Hour))
	emu, serverPEM := newGatewayEmulatorRendering(t, ca, 2*time.Second)
	ctl := emu.control(t, "a gateway")
	guide := filepath.Join("..", "..", "examples", "guides", "corporate-networks")
	example, err := os.ReadFile(filepath.Join(guide, "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join(guide, "ci-apply.sh"))
	if err != nil {
		t.Fatal(err)
	}
	w := newWorkspace(t, emu, "")
	writeFile(t, filepath.Join(w.dir, "main.tf"), string(example))
	writeFile(t, filepath.Join(w.dir, "versions.tf"), `terraform {
  required_providers {
    mediaplatform = {
      source = "mediaplatform/mediaplatform"
    }
  }
}
`)
	writeFile(t, filepath.Join(w.dir, "ci-apply.sh"), string(script))
	for name, content := range map[string]string{"ca.pem": serverPEM, "client.pem": cert, "client-key.pem": key} {
		writeFile(t, filepath.Join(w.dir, name), content)
	}
	var scores []string
	for i := range 12 {
		scores = append(scores, fmt.Sprintf("%q = %q", fmt.Sprintf("ci-%02d", i), accScoreURL(fmt.Sprintf("ci-%02d", i))))
	}
	cfg := emu.config()
	w.env = []string{
		// The example's addresses are the gateway's, from its address alone.
		"TF_VAR_gateway=" + emu.URL,
		"MEDIAPLATFORM_ADMIN_USERNAME=" + cfg.AdminUsername, "MEDIAPLATFORM_ADMIN_PASSWORD=" + cfg.AdminPassword,
		"MEDIAPLATFORM_CLIENT_ID=" + cfg.ClientID, "MEDIAPLATFORM_CLIENT_SECRET=" + cfg.ClientSecret,
		"MEDIAPLATFORM_USERNAME=" + cfg.Username, "MEDIAPLATFORM_PASSWORD=" + cfg.Password,
		"TF_VAR_ca_cert_file=ca.pem", "TF_VAR_client_cert_file=client.pem", "TF_VAR_client_key_file=client-key.pem",
		"TF_VAR_access_client_id=terraform-ci", "TF_VAR_access_client_secret=" + gatewaySecret,
		"TF_VAR_scores={" + strings.Join(scores, ", ") + "}",
		"PATH=" + filepath.Dir(w.terraform) + string(os.PathListSeparator) + os.Getenv("PATH"),
	}
	ciApply := func(limit string) (string, int) {
		cmd := w.command("version") // the workspace's environment
		cmd.Args = []string{"bash", "ci-apply.sh"}
		cmd.Path, err = exec.LookPath("bash")
		if err != nil {
			t.Skip("bash is not on PATH")
		}
		cmd.Env = append(cmd.Env, "APPLY_TIME_LIMIT="+limit)
		out, err := cmd.CombinedOutput()
		code := 0
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			code = exitErr.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}

	out, code := ciApply("4")
	if code != 124 || !strings.Contains(out, "stopped at its time limit") {
		t.Fatalf("the first run was not stopped by its time limit (exit %d):\n%s", code, out)
	}
	held := ctl.Stats().Scores
	list := strings.Fields(w.run("state", "list"))
	if len(list) != held {
		t.Errorf("after the time limit the platform holds %d scores and the state %d:\n%s", held, len(list), out)
	}
	deadline := time.Now().Add(5 * time.Second)
	for ctl.Stats().LiveTokens != 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := ctl.Stats().LiveTokens; n != 0 {
		t.Errorf("after the time limit %d platform tokens are live", n)
	}
	t.Logf("stopped at its time limit with %d of 12 scores published, all in the state", held)
	if out, code = ciApply("120"); code != 0 {
		t.Fatalf("the second run failed (exit %d):\n%s", code, out)
	}
	if n := ctl.Stats().Scores; n != 12 {
		t.Errorf("after the second run the platform holds %d scores, want 12", n)
	}
	w.run("destroy", "-auto-approve")
}

// TestAccCorporate_pemAsPasted: PEM as people paste it works against a gateway that
// demands the client certificate: the certificate and the CA inline in indented
// <<EOT heredocs (every line keeps the indentation), the key with Windows line ends
// and a trailing blank line.
func TestAccCorporate_pemAsPasted(t *testing.T) {
	t.Parallel()
	ca := testca.New(t, "gateway CA")
	cert, key := ca.Issue(t, "terraform-ci", time.Now().Add(24*time.Hour))
	emu, serverPEM := newGatewayEmulator(t, ca)
	heredoc := func(pemText string) string {
		return "<<EOT\n      " + strings.ReplaceAll(strings.TrimSpace(pemText), "\n", "\n      ") + "\n    EOT"
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: `
variable "client_key" {
  type      = string
  sensitive = true
}
` + providerConfigPlus(emu, fmt.Sprintf("ca_cert_pem = %s\n  client_cert_pem = %s\n  client_key_pem = var.client_key\n  "+
				"request_headers = { %q = %q }\n", heredoc(serverPEM), heredoc(cert), gatewayHeader, gatewaySecret)) +
				`data "mediaplatform_health" "test" {}`,
			ConfigVariables: config.Variables{"client_key": config.StringVariable(strings.ReplaceAll(key, "\n", "\r\n") + "\r\n")},
		}, {
			// The guide's fix for a secret that kept its line breaks escaped.
			Config: `
variable "client_key" {
  type      = string
  sensitive = true
}
` + providerConfigPlus(emu, fmt.Sprintf("ca_cert_pem = %s\n  client_cert_pem = %s\n  client_key_pem = replace(var.client_key, \"\\\\n\", \"\\n\")\n  "+
				"request_headers = { %q = %q }\n", heredoc(serverPEM), heredoc(cert), gatewayHeader, gatewaySecret)) +
				`data "mediaplatform_health" "test" {}`,
			ConfigVariables: config.Variables{"client_key": config.StringVariable(strings.ReplaceAll(strings.TrimSpace(key), "\n", `\n`))},
		}},
	})
}

// TestAccCorporate_gatewayCredentialBesideAuthorization: a gateway that takes its
// credential in Proxy-Authorization, as the refusal of Authorization in
// request_headers advises, gets it while the provider keeps its own Authorization.
func TestAccCorporate_gatewayCredentialBesideAuthorization(t *testing.T) {
	t.Parallel()
	if externalPlatform != nil {
		t.Skip("needs the emulator's control surface: a gateway demanding Proxy-Authorization")
	}
	emu := emulator.New(emulator.Options{RenderDelay: testRenderDelay, Faults: emulator.Faults{
		RequireHeader: &emulator.HeaderRequirement{Name: "Proxy-Authorization", Value: "Bearer gw-7f3a9c1e5b"},
	}})
	srv := httptest.NewServer(emu)
	t.Cleanup(srv.Close)
	target := servedTestEmulator(t, emu, srv.URL)
	score := fmt.Sprintf(`resource "mediaplatform_score" "test" {
  score_url = %q
}
`, accScoreURL(accName()))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{
			{
				Config:      target.providerConfig() + score,
				ExpectError: errorPattern("The gateway or web application firewall at", "HTTP 401", "request_headers"),
			},
			{Config: providerConfigPlus(target, `request_headers = { "Proxy-Authorization" = "Bearer gw-7f3a9c1e5b" }`) + score},
		},
	})
	if n := emu.Stats().Scores; n != 0 {
		t.Errorf("after destroy the platform holds %d scores", n)
	}
}

// TestCorporate_checksNameTheVariableOnlyWhenItWasSet: networkSettings names a PEM
// setting's environment variable when the value came from it, and the argument alone
// when the configuration set it, or when neither did.
func TestCorporate_checksNameTheVariableOnlyWhenItWasSet(t *testing.T) {
	t.Parallel()
	_, key := testca.New(t, "CA").Issue(t, "a", time.Now().Add(time.Hour))
	for _, tc := range []struct {
		name string
		data providerModel
		cfg  client.Config
		want string
	}{
		{"a CA file name from the environment", providerModel{CACertPEM: types.StringNull()},
			client.Config{CACertPEM: "/etc/ssl/gateway-ca.pem"},
			`ca_cert_pem (from the environment variable MEDIAPLATFORM_CA_CERT_PEM) cannot be used: it is a file name, ` +
				`not the PEM text of a certificate: read the file with file("/etc/ssl/gateway-ca.pem")`},
		{"a CA file name in the configuration", providerModel{CACertPEM: types.StringValue("/etc/ssl/gateway-ca.pem")},
			client.Config{CACertPEM: "/etc/ssl/gateway-ca.pem"}, `ca_cert_pem cannot be used: it is a file name`},
		{"a key from the environment, no certificate", providerModel{ClientCertPEM: types.StringNull(), ClientKeyPEM: types.StringNull()},
			client.Config{ClientKeyPEM: key}, "The client certificate (client_cert_pem) and its key (client_key_pem (from the " +
				"environment variable MEDIAPLATFORM_CLIENT_KEY_PEM)) cannot be used: client_key_pem is set without client_cert_pem"},
		{"a key in the configuration, no certificate", providerModel{ClientCertPEM: types.StringNull(), ClientKeyPEM: types.StringValue(key)},
			client.Config{ClientKeyPEM: key}, "The client certificate (client_cert_pem) and its key (client_key_pem) cannot be used"},
	} {
		var diags diag.Diagnostics
		p := &mediaplatformProvider{}
		if p.networkSettings(&tc.cfg, tc.data, nil, &diags) || len(diags) != 1 || !strings.HasPrefix(diags[0].Detail(), tc.want) {
			t.Errorf("%s: got %v, want a detail starting %q", tc.name, diags, tc.want)
		}
	}
}
