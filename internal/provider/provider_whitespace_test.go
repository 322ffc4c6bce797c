package provider

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

// whitespaceRule is what a setting does with a line break at its end: removed, where
// its grammar cannot hold one (the run works), or sent as given and named (the login
// it belongs to is refused, and the lead's first sentence says why).
type whitespaceRule struct {
	removed bool
	// read is the data source whose read uses the setting.
	read string
}

// whitespaceRules holds a rule for every string setting of the provider schema:
// TestProviderSettingsWithSurroundingWhitespace fails for a setting without one.
var whitespaceRules = map[string]whitespaceRule{
	"admin_url":          {removed: true, read: "mediaplatform_external_authentication"},
	"platform_url":       {removed: true, read: "mediaplatform_health"},
	"publishing_url":     {removed: true, read: "mediaplatform_health"},
	"registry_url":       {removed: true, read: "mediaplatform_health"},
	"basic_token":        {removed: true, read: "mediaplatform_health"},
	"publishing_service": {removed: true, read: "mediaplatform_health"},
	"request_timeout":    {removed: true, read: "mediaplatform_health"},
	"refresh_strategy":   {removed: true, read: "mediaplatform_health"},
	"render_wait":        {removed: true, read: "mediaplatform_health"},
	"ca_cert_pem":        {removed: true, read: "mediaplatform_health"},
	"client_cert_pem":    {removed: true, read: "mediaplatform_health"},
	"client_key_pem":     {removed: true, read: "mediaplatform_health"},
	"admin_username":     {read: "mediaplatform_external_authentication"},
	"admin_password":     {read: "mediaplatform_external_authentication"},
	"client_id":          {read: "mediaplatform_health"},
	"client_secret":      {read: "mediaplatform_health"},
	"username":           {read: "mediaplatform_health"},
	"password":           {read: "mediaplatform_health"},
}

// envVariablePattern finds a setting's environment variable in its description.
var envVariablePattern = regexp.MustCompile("Environment variable: `(MEDIAPLATFORM_[A-Z_]+)`")

// TestProviderSettingsWithSurroundingWhitespace gives every string setting of the
// provider schema a value that ends with a line break (its working value plus "\n"),
// from the configuration and from its environment variable, and reads a data source
// that uses it, in process through the plugin protocol. A setting whose grammar cannot
// hold a line break works as without it; a credential is sent as given, draws a
// warning naming it, and the refused login's lead names it first.
func TestProviderSettingsWithSurroundingWhitespace(t *testing.T) {
	for _, env := range client.EnvVariables() {
		t.Setenv(env, "")
	}
	schemas, err := providerserver.NewProtocol6(New("test")())().GetProviderSchema(t.Context(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, attr := range schemas.Provider.Block.Attributes {
		if !attr.ValueType().Is(tftypes.String) {
			continue
		}
		rule, ok := whitespaceRules[attr.Name]
		if !ok {
			t.Errorf("the string setting %s has no whitespace rule: decide whether a line break at its end is removed "+
				"or sent and named, and add it to whitespaceRules", attr.Name)
			continue
		}
		origins := []string{""}
		if m := envVariablePattern.FindStringSubmatch(attr.Description); m != nil {
			origins = append(origins, m[1])
		}
		for _, env := range origins {
			from := "configuration"
			if env != "" {
				from = env
			}
			t.Run(attr.Name+" from the "+from, func(t *testing.T) {
				checkTrailingLineBreak(t, schemas, attr.Name, env, rule)
			})
		}
	}
}

func checkTrailingLineBreak(t *testing.T, schemas *tfprotov6.GetProviderSchemaResponse, name, env string, rule whitespaceRule) {
	emu := newTestEmulator(t)
	cfg := emu.config()
	settings := map[string]string{
		"admin_url": cfg.AdminURL, "admin_username": cfg.AdminUsername, "admin_password": cfg.AdminPassword,
		"platform_url": cfg.PlatformURL, "client_id": cfg.ClientID, "client_secret": cfg.ClientSecret,
		"username": cfg.Username, "password": cfg.Password,
	}
	switch name {
	case "publishing_url":
		settings[name] = emu.publishingURL()
	case "registry_url":
		settings[name] = strings.TrimRight(cfg.PlatformURL, "/") + "/apis/registry;version=0/serviceroots"
	case "basic_token":
		settings[name] = base64.StdEncoding.EncodeToString([]byte(cfg.ClientID + ":" + cfg.ClientSecret))
		delete(settings, "client_id")
		delete(settings, "client_secret")
	case "publishing_service":
		settings[name] = client.DefaultPublishingService
	case "request_timeout":
		settings[name] = "20s"
	case "refresh_strategy":
		settings[name] = client.RefreshIndividual
	case "render_wait":
		settings[name] = client.RenderWaitIndividual
	case "ca_cert_pem":
		tlsEmu, caPEM := newTLSTestEmulator(t)
		tlsCfg := tlsEmu.config()
		settings["admin_url"], settings["platform_url"] = tlsCfg.AdminURL, tlsCfg.PlatformURL
		settings[name] = caPEM
	case "client_cert_pem", "client_key_pem":
		settings["client_cert_pem"], settings["client_key_pem"] = clientPair(t)
	}
	if _, ok := settings[name]; !ok {
		t.Fatalf("the test has no working value for %s", name)
	}
	value := settings[name] + "\n"
	if env != "" {
		t.Setenv(env, value)
		delete(settings, name)
	} else {
		settings[name] = value
	}

	var tp trackedProviders
	t.Cleanup(func() { tp.closeClients(t) })
	srv, err := tp.factories()["mediaplatform"]()
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	config := schemaValue(t, schemas.Provider, settings)
	validate, err := srv.ValidateProviderConfig(ctx, &tfprotov6.ValidateProviderConfigRequest{Config: config})
	if err != nil {
		t.Fatal(err)
	}
	if text := diagnosticsText(validate.Diagnostics); text != "" {
		t.Fatalf("validation of %s ending with a line break: %s", name, text)
	}
	configure, err := srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{TerraformVersion: "1.11.4", Config: config})
	if err != nil {
		t.Fatal(err)
	}
	warned := strings.Contains(diagnosticsText(configure.Diagnostics), "`"+name+"`")
	for _, d := range configure.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			t.Fatalf("configuring with %s ending with a line break: %s", name, diagnosticsText(configure.Diagnostics))
		}
	}
	read, err := srv.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{
		TypeName: rule.read, Config: schemaValue(t, schemas.DataSourceSchemas[rule.read], nil),
	})
	if err != nil {
		t.Fatal(err)
	}
	text := diagnosticsText(read.Diagnostics)
	if rule.removed {
		if text != "" {
			t.Errorf("%s ending with a line break, whose grammar cannot hold one, failed the read of %s: %s", name, rule.read, text)
		}
		if warned {
			t.Errorf("a warning names %s, whose line break is removed: %s", name, diagnosticsText(configure.Diagnostics))
		}
		return
	}
	if !warned {
		t.Errorf("no warning names %s ending with a line break: %q", name, diagnosticsText(configure.Diagnostics))
	}
	named := "`" + name + "`"
	if env != "" {
		named += " (from " + env + ")"
	}
	want := named + " ends with a line break, sent as part of it, and the login was refused"
	if len(read.Diagnostics) == 0 {
		t.Fatalf("the platform took %s with a line break at its end: the test proves nothing", name)
	}
	if detail := read.Diagnostics[0].Detail; !strings.HasPrefix(detail, want) {
		t.Errorf("the lead of the refused login does not start with %q:\n%s", want, detail)
	}
}

// clientPair returns a self-signed client certificate and its key, as PEM.
func clientPair(t *testing.T) (certPEM, keyPEM string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "terraform"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}))
}

// TestUnparsableAddressIsShown: an address that cannot be parsed, from the
// environment, is shown in the error with the character that stops it made visible.
func TestUnparsableAddressIsShown(t *testing.T) {
	for _, env := range client.EnvVariables() {
		t.Setenv(env, "")
	}
	t.Setenv(client.EnvPlatformURL, "https://platform\n.example/")
	srv, err := providerserver.NewProtocol6WithError(New("test")())()
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := srv.GetProviderSchema(t.Context(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	configure, err := srv.ConfigureProvider(t.Context(), &tfprotov6.ConfigureProviderRequest{
		TerraformVersion: "1.11.4", Config: schemaValue(t, schemas.Provider, nil),
	})
	if err != nil {
		t.Fatal(err)
	}
	text := diagnosticsText(configure.Diagnostics)
	if want := `The environment variable MEDIAPLATFORM_PLATFORM_URL is "https://platform\n.example/"`; !strings.Contains(text, want) {
		t.Errorf("the error does not show the address with its line break visible (%s):\n%s", want, text)
	}
}

// TestProviderBasicTokenSecretWithLineBreakLeads: a basic_token encoded from
// `echo id:secret | base64` is sent (a secret may end with a line break), and when the
// platform refuses it, the lead names it first, as it names a password ending with one.
func TestProviderBasicTokenSecretWithLineBreakLeads(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	cfg := emu.config()
	cfg.BasicToken = base64.StdEncoding.EncodeToString([]byte(cfg.ClientID + ":" + cfg.ClientSecret + "\n"))
	cfg.ClientID, cfg.ClientSecret = "", ""
	diags, _ := protocolRun(t, providerBlock(cfg)+`data "mediaplatform_health" "test" {}`)
	var lead string
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			lead = d.Detail
			break
		}
	}
	want := "`basic_token` holds a secret that ends with a line break, sent as part of it, and the login was refused"
	if !strings.HasPrefix(lead, want) {
		t.Errorf("the refused login's lead does not start with %q:\n%s", want, planDiagnosticsText(diags))
	}
}
