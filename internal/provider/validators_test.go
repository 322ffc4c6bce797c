package provider

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// runStringValidator returns the error detail the validator reports for value ("" when valid).
func runStringValidator(t *testing.T, v validator.String, value types.String) string {
	t.Helper()
	req := validator.StringRequest{Path: path.Root("attr"), PathExpression: path.MatchRoot("attr"), ConfigValue: value}
	resp := &validator.StringResponse{}
	v.ValidateString(context.Background(), req, resp)
	if !resp.Diagnostics.HasError() {
		return ""
	}
	return resp.Diagnostics.Errors()[0].Detail()
}

type validatorCase struct {
	value   string
	wantErr string // "" for a valid value; otherwise a fragment of the detail
}

func testStringValidator(t *testing.T, v validator.String, cases []validatorCase) {
	t.Helper()
	// Null and unknown values are left to Required and to apply time.
	for _, value := range []types.String{types.StringNull(), types.StringUnknown()} {
		if got := runStringValidator(t, v, value); got != "" {
			t.Errorf("%s: got error %q, want none", value, got)
		}
	}
	for _, c := range cases {
		got := runStringValidator(t, v, types.StringValue(c.value))
		switch {
		case c.wantErr == "" && got != "":
			t.Errorf("%q: got error %q, want none", c.value, got)
		case c.wantErr != "" && got == "":
			t.Errorf("%q: got no error, want one containing %q", c.value, c.wantErr)
		case c.wantErr != "" && !strings.Contains(got, c.wantErr):
			t.Errorf("%q: got error %q, want one containing %q", c.value, got, c.wantErr)
		}
		if got != "" && !strings.Contains(got, "attr") {
			t.Errorf("%q: error %q does not name the attribute", c.value, got)
		}
	}
}

func TestAbsoluteURLValidator(t *testing.T) {
	t.Parallel()
	testStringValidator(t, absoluteURL(), []validatorCase{
		{value: "https://host/api/v1"},
		{value: "http://127.0.0.1:8080"},
		{value: "https://cdn.example/scores/a.sib?x=1"},
		{value: "ftp://host/x", wantErr: `scheme "ftp"`},
		{value: "/relative/path", wantErr: `scheme ""`},
		{value: "host/path", wantErr: `scheme ""`},
		{value: "https://", wantErr: "no host"},
		{value: "https:///path", wantErr: "no host"},
		{value: "https://host:port/x", wantErr: "does not parse"},
		{value: "", wantErr: `scheme ""`},
	})
}

func TestScoreAliasValidator(t *testing.T) {
	t.Parallel()
	testStringValidator(t, scoreAlias(), []validatorCase{
		{value: "myGreatScore"},
		{value: "a"},
		{value: "Score_1.final-v2"},
		{value: strings.Repeat("a", 128)},
		{value: strings.Repeat("a", 129), wantErr: "1 to 128"},
		{value: "", wantErr: "1 to 128"},
		{value: "with space", wantErr: `got "with space"`},
		{value: "slash/alias", wantErr: `got "slash/alias"`},
		{value: "é", wantErr: `got "é"`},
		{value: "4f0c8a3e-1b2c-4d5e-8f90-123456789abc", wantErr: "is a UUID"},
		// Not a UUID: one character short.
		{value: "4f0c8a3e-1b2c-4d5e-8f90-123456789ab"},
	})
}

func TestScoreReferenceValidator(t *testing.T) {
	t.Parallel()
	testStringValidator(t, scoreReference(), []validatorCase{
		{value: "myGreatScore"},
		{value: "4f0c8a3e-1b2c-4d5e-8f90-123456789abc"},
		{value: "", wantErr: "score UUID or a score alias"},
		{value: "bad alias", wantErr: `got "bad alias"`},
		{value: "{4f0c8a3e-1b2c-4d5e-8f90-123456789abc}", wantErr: "got"},
	})
}

func TestPageListValidator(t *testing.T) {
	t.Parallel()
	testStringValidator(t, pageList(), []validatorCase{
		{value: "1"},
		{value: "1-3,5,8-9"},
		{value: "2-2"},
		{value: "10,1"},
		{value: "", wantErr: "empty"},
		{value: "0", wantErr: `"0" is not a page number`},
		{value: "3-1", wantErr: "starts after it ends"},
		{value: "1-", wantErr: `"1-" is not`},
		{value: "-1", wantErr: `"-1" is not`},
		{value: "1,,2", wantErr: `"" is not`},
		{value: "1, 2", wantErr: `" 2" is not`},
		{value: "1-2-3", wantErr: `"1-2-3" is not`},
		{value: "a", wantErr: `"a" is not`},
		{value: "+1", wantErr: `"+1" is not`},
		{value: "99999999999999999999", wantErr: "is not a page number"},
	})
}

func TestLanguageTagValidator(t *testing.T) {
	t.Parallel()
	testStringValidator(t, languageTag(), []validatorCase{
		{value: "en"},
		{value: "fr-CA"},
		{value: "zh-Hant-TW"},
		{value: "de-CH-1996"},
		{value: "", wantErr: "BCP 47"},
		{value: "not a tag", wantErr: `"not a tag"`},
		{value: "en_US_", wantErr: `"en_US_"`},
		{value: "toolonglanguage", wantErr: `"toolonglanguage"`},
		{value: "fr_CA", wantErr: "separated by '-'"},
	})
}

func TestDurationValidator(t *testing.T) {
	t.Parallel()
	testStringValidator(t, positiveDuration(), []validatorCase{
		{value: "30s"},
		{value: "10m"},
		{value: "1h30m"},
		{value: "250ms"},
		{value: "0s", wantErr: "not positive"},
		{value: "-5m", wantErr: "not positive"},
		{value: "10", wantErr: "does not parse"},
		{value: "ten minutes", wantErr: "does not parse"},
		{value: "", wantErr: "does not parse"},
	})
}

func TestDataSourceKnownScoreStatusValidator(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		value   types.String
		warning string
	}{
		{types.StringValue("idle"), ""},
		{types.StringValue("error"), ""},
		{types.StringNull(), ""},
		{types.StringUnknown(), ""},
		{types.StringValue("Idle"), `"Idle", which is not a score status the provider knows (pending, rendering, idle, error)`},
		{types.StringValue("archived"), `"archived"`},
	} {
		resp := &validator.StringResponse{}
		knownScoreStatus().ValidateString(ctx, validator.StringRequest{Path: path.Root("status"), ConfigValue: tc.value}, resp)
		if resp.Diagnostics.HasError() {
			t.Errorf("%s: errors %v, want at most a warning", tc.value, resp.Diagnostics)
		}
		warnings := resp.Diagnostics.Warnings()
		switch {
		case tc.warning == "" && len(warnings) != 0:
			t.Errorf("%s: unexpected warning %v", tc.value, warnings)
		case tc.warning != "" && (len(warnings) != 1 || !strings.Contains(warnings[0].Detail(), tc.warning)):
			t.Errorf("%s: warnings %v, want one containing %q", tc.value, warnings, tc.warning)
		}
	}
}

// TestBasicTokenValidator_atPlan: a basic_token that is not Base64 (pasted unencoded,
// wrapped by `base64`, URL-safe) is refused when the configuration is validated, naming
// the attribute, before any request; one whose decoded secret ends with `echo`'s line
// break, or that holds no ':', is warned of. No message quotes the credential.
func TestBasicTokenValidator_atPlan(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	withToken := func(token string) string {
		cfg := emu.config()
		cfg.ClientID, cfg.ClientSecret, cfg.BasicToken = "", "", token
		return providerBlock(cfg)
	}
	pair := emu.config().ClientID + ":" + emu.config().ClientSecret
	encoded := base64.StdEncoding.EncodeToString([]byte(pair))
	for _, c := range []struct {
		token string
		want  []string
	}{
		{pair, []string{"Error: Invalid attribute value", "at basic_token", "basic_token", "holds a ':'", "not yet encoded"}},
		{encoded[:8] + "\n" + encoded[8:], []string{"Error:", "at basic_token", "a line break inside it", "base64 -w0"}},
		{strings.TrimRight(encoded, "=") + "-_", []string{"Error:", "at basic_token", "URL-safe Base64"}},
		{"not*base64", []string{"Error:", "at basic_token", "is not Base64"}},
		{"bm90 YmFzZTY0", []string{"Error:", "at basic_token", "a space or a tab inside it"}},
		{base64.StdEncoding.EncodeToString([]byte(pair + "\n")),
			[]string{"Warning:", "at basic_token", "its secret ends with a line break", "printf"}},
		{base64.StdEncoding.EncodeToString([]byte(strings.Replace(pair, ":", "", 1))),
			[]string{"Warning:", "at basic_token", "holds no ':'"}},
		{"Basic " + encoded + "\n", nil},
	} {
		diags, _ := protocolRun(t, withToken(c.token))
		text := planDiagnosticsText(diags)
		switch {
		case c.want == nil && text != "":
			t.Errorf("a working basic_token drew diagnostics:\n%s", text)
		case c.want != nil && !errorPattern(c.want...).MatchString(text):
			t.Errorf("basic_token %q: want %q, got:\n%s", c.token, c.want, text)
		}
		if strings.Contains(text, emu.config().ClientSecret) || (len(c.token) > 8 && strings.Contains(text, c.token)) {
			t.Errorf("a diagnostic quotes the credential:\n%s", text)
		}
	}
	expectNoRequests(t, emu)
}

// TestScoreURLValidator_surroundingWhitespace: a score_url with whitespace at either
// end, in the resource and in the filters, is refused at plan naming score_url and
// what it starts or ends with, the value shown with the whitespace visible, as the
// provider's address settings show an address that cannot be parsed; not as "first
// path segment in URL cannot contain colon".
func TestScoreURLValidator_surroundingWhitespace(t *testing.T) {
	t.Parallel()
	emu := newTestEmulator(t)
	for _, header := range []string{`resource "mediaplatform_score" "test"`, `data "mediaplatform_scores" "test"`} {
		testRejectedBeforeRequests(t, emu, blockConfig(emu, header), []rejectedConfig{
			{`score_url = " https://cdn.example/a.sib"`,
				[]string{"score_url", `" https://cdn.example/a.sib" starts with a space`, "trimspace("}},
			{`score_url = "https://cdn.example/a.sib\n"`,
				[]string{"score_url", `"https://cdn.example/a.sib\n" ends with a line break`, "trimspace("}},
			{`score_url = "\thttps://cdn.example/a.sib "`,
				[]string{"score_url", `"\thttps://cdn.example/a.sib " starts with a tab and ends with a space`}},
		})
	}
}
