package provider

import (
	"bytes"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"
)

// Emulator routes of the token flow (contract B).
const (
	grantRoute     = "POST /auth/oauth2/ropc/default"
	tokenInfoRoute = "GET /auth/tokens/current"
	extendRoute    = "POST /auth/tokens/current/extension"
	removalRoute   = "DELETE /auth/tokens/current"
)

var accessTokenPattern = regexp.MustCompile(`^\S{16,}$`)

// captureToken returns a known-value check that accepts an access token and stores
// it in *into.
func captureToken(into *string) knownvalue.Check {
	return knownvalue.StringFunc(func(v string) error {
		if !accessTokenPattern.MatchString(v) {
			return fmt.Errorf("access_token %q does not match %s", v, accessTokenPattern)
		}
		*into = v
		return nil
	})
}

// tokenStatus returns the status of the platform's token information for token:
// 200 while the token is live, 401 once it is removed or expired.
func tokenStatus(t *testing.T, emu *testEmulator, token string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, emu.platformURL()+"/auth/tokens/current", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

// expectEveryTokenRemoved checks that each password grant of the run was matched by
// a removal. The client reads a token's information before removing it and skips
// the removal of a token already dead, so equal counts also mean that no token had
// expired before Terraform closed it. No configuration of these tests makes the
// provider take a token for itself, so no token may be left alive.
func expectEveryTokenRemoved(t *testing.T, emu *emulator.Emulator) {
	t.Helper()
	stats := emu.Stats()
	grants, removals := stats.Logins["oauth"], stats.Requests[removalRoute]
	t.Logf("password grants %d, removals %d, extensions %d, live tokens %d",
		grants, removals, stats.Requests[extendRoute], stats.LiveTokens)
	if grants < 2 {
		t.Errorf("password grants: %d, want at least 2 (one per plan and apply)", grants)
	}
	if removals != grants {
		t.Errorf("token removals: %d, want one per grant (%d): %v", removals, grants, stats.Requests)
	}
	if stats.LiveTokens != 0 {
		t.Errorf("live tokens after the run: %d, want 0", stats.LiveTokens)
	}
}

func TestAccEphemeralAccessToken_echo(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	var token string
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   ephemeralVersionChecks,
		ProtoV6ProviderFactories: ephemeralTestFactories(t),
		Steps: []resource.TestStep{{
			Config: emu.providerConfig() + `
ephemeral "mediaplatform_access_token" "test" {}
provider "echo" {
  data = ephemeral.mediaplatform_access_token.test
}
resource "echo" "test" {}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("echo.test", echoData("access_token"), captureToken(&token)),
				statecheck.ExpectKnownValue("echo.test", echoData("token_type"), knownvalue.StringExact("Bearer")),
				statecheck.ExpectKnownValue("echo.test", echoData("expires_at"), expiresIn(15*time.Minute)),
			},
		}},
	})
	if token == "" {
		t.Fatal("no access token was echoed")
	}
	// The token handed to the run is dead once the run is over.
	if status := tokenStatus(t, emu, token); status != http.StatusUnauthorized {
		t.Errorf("token information for the echoed token after the run: status %d, want 401", status)
	}
	if ctl := emu.optionalControl(t, "that every token granted was removed"); ctl != nil {
		expectEveryTokenRemoved(t, ctl)
	}
}

// TestAccEphemeralAccessToken_renewal hands the token to a tool that runs longer than
// the token lifetime: Terraform extends the token while the tool runs and removes it
// afterwards.
func TestAccEphemeralAccessToken_renewal(t *testing.T) {
	t.Parallel()
	const lifetime = 6 * time.Second // renewed 4 s after the grant
	emu := newTestEmulatorWith(t, "a 6 s token lifetime", emulator.Options{RenderDelay: testRenderDelay, TokenLifetime: lifetime})
	ctl := emu.control(t, "token extension counts")
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   ephemeralVersionChecks,
		ProtoV6ProviderFactories: testProviderFactories(t),
		Steps: []resource.TestStep{{
			Config: emu.providerConfig() + fmt.Sprintf(`
ephemeral "mediaplatform_access_token" "test" {}
resource "terraform_data" "tool" {
  provisioner "local-exec" {
    command     = "test -n \"$MEDIAPLATFORM_TOKEN\" && sleep %d"
    environment = {
      MEDIAPLATFORM_TOKEN = ephemeral.mediaplatform_access_token.test.access_token
    }
  }
}
`, int((lifetime+2*time.Second).Seconds())),
		}},
	})
	if n := ctl.Stats().Requests[extendRoute]; n < 1 {
		t.Errorf("token extensions: %d, want at least 1 while the tool ran", n)
	}
	// The tool outlived the token's first lifetime: had the token not been extended,
	// it would have been dead at close and its removal skipped.
	expectEveryTokenRemoved(t, ctl)
}

// TestAccEphemeralAccessToken_wrongCredentials fails the run with the platform
// login's error.
func TestAccEphemeralAccessToken_wrongCredentials(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	ctl := emu.control(t, "live token counts, and an account a wrong password cannot lock")
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   ephemeralVersionChecks,
		ProtoV6ProviderFactories: ephemeralTestFactories(t),
		Steps: []resource.TestStep{{
			Config: providerConfigWith(emu, emulatortest.AdminPassword, "wrong-password") + `
ephemeral "mediaplatform_access_token" "test" {}
provider "echo" {
  data = ephemeral.mediaplatform_access_token.test
}
resource "echo" "test" {}
`,
			ExpectError: errorPattern("Unable to obtain access token", "The platform refused the user's credentials (OAuth error invalid_grant)"),
		}},
	})
	if n := ctl.Stats().LiveTokens; n != 0 {
		t.Errorf("live tokens: %d, want 0", n)
	}
}

// TestEphemeralAccessToken_protocol drives Open, Renew and Close through the plugin
// protocol, as Terraform does, and checks each against the emulator.
func TestEphemeralAccessToken_protocol(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	emu := newTestEmulator(t)
	cfg := emu.config()
	ctl := emu.optionalControl(t, "grant, extension and removal counts")
	srv, err := providerserver.NewProtocol6WithError(New("test")())()
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || len(schemas.Diagnostics) > 0 {
		t.Fatalf("GetProviderSchema: %v %v", err, schemas.Diagnostics)
	}
	settings := map[string]string{
		"platform_url": cfg.PlatformURL, "client_id": cfg.ClientID, "client_secret": cfg.ClientSecret,
		"basic_token": cfg.BasicToken, "username": cfg.Username, "password": cfg.Password,
	}
	maps.DeleteFunc(settings, func(_, v string) bool { return v == "" })
	configure, err := srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{
		TerraformVersion: "1.11.4",
		Config:           schemaValue(t, schemas.Provider, settings),
	})
	if err != nil || len(configure.Diagnostics) > 0 {
		t.Fatalf("ConfigureProvider: %v %v", err, diagnosticsText(configure.Diagnostics))
	}
	const typeName = "mediaplatform_access_token"
	tokenSchema := schemas.EphemeralResourceSchemas[typeName]

	before := time.Now()
	open, err := srv.OpenEphemeralResource(ctx, &tfprotov6.OpenEphemeralResourceRequest{
		TypeName: typeName, Config: schemaValue(t, tokenSchema, nil),
	})
	if err != nil || len(open.Diagnostics) > 0 {
		t.Fatalf("Open: %v %v", err, diagnosticsText(open.Diagnostics))
	}
	result := resultStrings(t, tokenSchema, open.Result)
	token := result["access_token"]
	if !accessTokenPattern.MatchString(token) || result["token_type"] != "Bearer" {
		t.Fatalf("Open result: token %q, type %q", token, result["token_type"])
	}
	expiresAt, err := time.Parse(time.RFC3339, result["expires_at"])
	if err != nil {
		t.Fatalf("expires_at: %v", err)
	}
	// The default lifetime is 900 s: renew when 300 s are left.
	if want := expiresAt.Add(-300 * time.Second); open.RenewAt.Before(want.Add(-2*time.Second)) || open.RenewAt.After(want.Add(time.Second)) {
		t.Errorf("RenewAt %s, want about %s (expires_at %s, opened %s)", open.RenewAt, want, expiresAt, before)
	}
	if status := tokenStatus(t, emu, token); status != http.StatusOK {
		t.Errorf("token information after Open: status %d, want 200", status)
	}
	if ctl != nil {
		if stats := ctl.Stats(); stats.Logins["oauth"] != 1 || stats.LiveTokens != 1 {
			t.Errorf("after Open: grants %d, live tokens %d; want 1, 1", stats.Logins["oauth"], stats.LiveTokens)
		}
	}
	for _, secret := range []string{cfg.Password, cfg.ClientSecret, cfg.BasicToken} {
		if secret == "" {
			continue
		}
		if bytes.Contains(open.Private, []byte(secret)) {
			t.Errorf("the private data holds the credential %q", secret)
		}
	}

	renew, err := srv.RenewEphemeralResource(ctx, &tfprotov6.RenewEphemeralResourceRequest{TypeName: typeName, Private: open.Private})
	if err != nil || len(renew.Diagnostics) > 0 {
		t.Fatalf("Renew: %v %v", err, diagnosticsText(renew.Diagnostics))
	}
	if ctl != nil {
		if n := ctl.Stats().Requests[extendRoute]; n != 1 {
			t.Errorf("extensions after Renew: %d, want 1", n)
		}
	}
	if renew.RenewAt.Before(open.RenewAt) || time.Until(renew.RenewAt) < 590*time.Second {
		t.Errorf("RenewAt after Renew %s, want about 600 s from now and not before %s", renew.RenewAt, open.RenewAt)
	}
	private := renew.Private
	if private == nil {
		private = open.Private
	}

	closeResp, err := srv.CloseEphemeralResource(ctx, &tfprotov6.CloseEphemeralResourceRequest{TypeName: typeName, Private: private})
	if err != nil || len(closeResp.Diagnostics) > 0 {
		t.Fatalf("Close: %v %v", err, diagnosticsText(closeResp.Diagnostics))
	}
	if status := tokenStatus(t, emu, token); status != http.StatusUnauthorized {
		t.Errorf("token information after Close: status %d, want 401", status)
	}
	if ctl != nil {
		if stats := ctl.Stats(); stats.LiveTokens != 0 || stats.Requests[removalRoute] != 1 {
			t.Errorf("after Close: live tokens %d, removals %d; want 0, 1", stats.LiveTokens, stats.Requests[removalRoute])
		}
	}

	// A dead token cannot be renewed, and the error says so.
	renew, err = srv.RenewEphemeralResource(ctx, &tfprotov6.RenewEphemeralResourceRequest{TypeName: typeName, Private: private})
	if err != nil {
		t.Fatal(err)
	}
	if text := diagnosticsText(renew.Diagnostics); !strings.Contains(text, "Unable to renew access token") ||
		!strings.Contains(text, "already expired or was removed") || !strings.Contains(text, "UNAUTHORIZED") {
		t.Errorf("Renew of a removed token: diagnostics %q", text)
	}
	// Closing twice is harmless: a dead token counts as removed.
	closeResp, err = srv.CloseEphemeralResource(ctx, &tfprotov6.CloseEphemeralResourceRequest{TypeName: typeName, Private: private})
	if err != nil || len(closeResp.Diagnostics) > 0 {
		t.Errorf("second Close: %v %v", err, diagnosticsText(closeResp.Diagnostics))
	}
}

func TestEphemeralAccessTokenRenewAt(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		expiresAt, want time.Time
	}{
		{now.Add(900 * time.Second), now.Add(600 * time.Second)},
		{now.Add(3 * time.Second), now.Add(2 * time.Second)},
		{now.Add(-time.Second), now},
		{time.Time{}, time.Time{}},
	} {
		if got := accessTokenRenewAt(c.expiresAt, now); !got.Equal(c.want) {
			t.Errorf("accessTokenRenewAt(%s) = %s, want %s", c.expiresAt, got, c.want)
		}
	}
}
