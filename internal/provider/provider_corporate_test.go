package provider

// Corporate networks: a gateway in front of the platform that demands a client
// certificate (mutual TLS) and an access header, driven through Terraform.

import (
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/testca"
)

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
			// The apply is followed by the test framework's own empty plans.
			Steps: []resource.TestStep{{Config: provider(both), ConfigVariables: vars}},
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
	srv := emulatortest.Start(t, emulator.Options{RenderDelay: testRenderDelay, Faults: emulator.Faults{
		RequireHeader: &emulator.HeaderRequirement{Name: "Proxy-Authorization", Value: "Bearer gw-7f3a9c1e5b"},
	}})
	emu := srv.Emulator
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
