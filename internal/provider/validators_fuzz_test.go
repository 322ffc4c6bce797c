package provider

// The fuzz targets of validators.go: every validator that parses a string, run as the
// schema runs it (ValidateString). The project's rule is that the provider and the
// emulator accept exactly the same values: where the emulator checks the same
// value, each target asks an emulator in this process (no socket) too, and fails when
// the two disagree.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/contracttest"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/fuzzlimit"
)

// validates runs v on s as the schema does, within a second, and reports whether it
// accepted s.
func validates(t *testing.T, v validator.String, s string) bool {
	t.Helper()
	req := validator.StringRequest{Path: path.Root("attribute"), ConfigValue: types.StringValue(s)}
	var resp validator.StringResponse
	start := time.Now()
	v.ValidateString(context.Background(), req, &resp)
	if d := time.Since(start); d > fuzzlimit.Limit() {
		t.Fatalf("validating %q took %v (more than 1 s)", s, d)
	}
	if resp.Diagnostics.HasError() && !strings.Contains(resp.Diagnostics.Errors()[0].Detail(), "attribute") {
		t.Fatalf("the error for %q does not name the attribute: %s", s, resp.Diagnostics.Errors()[0].Detail())
	}
	return !resp.Diagnostics.HasError()
}

// fuzzEmulator is an emulator served in this process, with a platform token and an
// administrator session of the default accounts, and a score to create views of.
type fuzzEmulator struct {
	emu            *emulator.Emulator
	publishing     string // the publishing service's path
	token, session string
}

const fuzzEmulatorBase = "http://127.0.0.1:9" // never dialled: requests are served in process

func newFuzzEmulator(tb testing.TB) *fuzzEmulator {
	tb.Helper()
	e := &fuzzEmulator{emu: emulator.New(emulator.Options{RenderDelay: -1})}
	e.publishing = strings.TrimPrefix(e.emu.PublishingURL(fuzzEmulatorBase), fuzzEmulatorBase)
	basic := base64.StdEncoding.EncodeToString([]byte(emulatortest.ClientID + ":" + emulatortest.ClientSecret))
	status, body := e.call(http.MethodPost, "/auth/oauth2/ropc/default", http.Header{
		"Authorization": {"Basic " + basic}, "Content-Type": {"application/x-www-form-urlencoded"}},
		[]byte(url.Values{"grant_type": {"password"}, "username": {emulatortest.Username}, "password": {emulatortest.Password}}.Encode()))
	var grant struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(body, &grant); status != http.StatusOK || err != nil || grant.AccessToken == "" {
		tb.Fatalf("the password grant answered %d %s", status, body)
	}
	e.token = grant.AccessToken
	status, body = e.call(http.MethodPost, emulator.AdminPath+"/login", http.Header{"Content-Type": {"application/x-www-form-urlencoded"}},
		[]byte(url.Values{"user": {emulatortest.AdminUsername}, "pass": {emulatortest.AdminPassword}, "r": {"createsession"}}.Encode()))
	var login struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal(body, &login); status != http.StatusOK || err != nil || login.Token == "" {
		tb.Fatalf("the administrator login answered %d %s", status, body)
	}
	e.session = login.Token
	if status, body := e.publish(tb, map[string]any{"scoreUrl": "https://cdn.example/views.sib", "scoreId": "fuzz-views"}); status != http.StatusCreated && status != http.StatusOK {
		tb.Fatalf("publishing the score of the views answered %d %s", status, body)
	}
	return e
}

// call serves one request and returns the status and body of its answer.
func (e *fuzzEmulator) call(method, target string, h http.Header, body []byte) (int, []byte) {
	req := httptest.NewRequestWithContext(context.Background(), method, fuzzEmulatorBase+target, bytes.NewReader(body))
	for k, v := range h {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	e.emu.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes()
}

// platform calls the score API with the platform token and a JSON body.
func (e *fuzzEmulator) platform(tb testing.TB, method, target string, doc any) (int, []byte) {
	tb.Helper()
	var body []byte
	if doc != nil {
		var err error
		if body, err = json.Marshal(doc); err != nil {
			tb.Fatal(err)
		}
	}
	return e.call(method, e.publishing+target, http.Header{"Authorization": {"Bearer " + e.token},
		"Content-Type": {"application/json"}}, body)
}

// publish publishes a score and, when the emulator created it, deletes it again, so
// that the emulator's state stays the same from one input to the next.
func (e *fuzzEmulator) publish(tb testing.TB, doc map[string]any) (int, []byte) {
	tb.Helper()
	status, body := e.platform(tb, http.MethodPost, "/scores", doc)
	var created struct {
		Score struct {
			ID string `json:"id"`
		} `json:"score"`
	}
	if json.Unmarshal(body, &created) == nil && created.Score.ID != "" && doc["scoreId"] != "fuzz-views" {
		if st, b := e.platform(tb, http.MethodDelete, "/scores/"+created.Score.ID, nil); st >= 300 {
			tb.Fatalf("deleting the score just published answered %d %s", st, b)
		}
	}
	return status, body
}

// accepted reports whether status is the emulator accepting a value, and fails t
// when it is neither that nor a refusal of the value (400).
func accepted(t *testing.T, what string, status int, body []byte) bool {
	t.Helper()
	switch {
	case status >= 200 && status <= 299:
		return true
	case status == http.StatusBadRequest:
		return false
	}
	t.Fatalf("%s: the emulator answered %d %s, neither an acceptance nor a refusal", what, status, body)
	return false
}

// agree fails t when the provider and the emulator disagree about value.
func agree(t *testing.T, attribute, value string, provider, emulator bool) {
	t.Helper()
	if provider != emulator {
		t.Fatalf("%s %q: the provider's validator accepts it: %t; the emulator: %t", attribute, value, provider, emulator)
	}
}

// addGrammar adds the values of a contract grammar table as seeds.
func addGrammar(f *testing.F, values []contracttest.Value) {
	for _, v := range values {
		f.Add(v.Value)
	}
}

// FuzzScoreURL fuzzes score_url: the provider takes exactly the scoreUrl values the
// emulator takes.
func FuzzScoreURL(f *testing.F) {
	addGrammar(f, contracttest.ScoreURLs)
	f.Add("https://[fe80::1%25eth0]/a.sib")
	f.Add("https://cdn.example/a.sib\x00")
	f.Add("HTTPS://CDN.EXAMPLE/a%C3%A9.sib")
	f.Add("https://user:pw@cdn.example:0/a.sib?#")
	e := newFuzzEmulator(f)
	v := scoreURL()
	f.Fuzz(func(t *testing.T, s string) {
		ok := validates(t, v, s)
		if !utf8.ValidString(s) {
			if ok {
				t.Fatalf("the score URL %q is not UTF-8, and the provider accepts it", s)
			}
			return // JSON cannot carry it as it is
		}
		status, body := e.publish(t, map[string]any{"scoreUrl": s})
		agree(t, "score_url", s, ok, accepted(t, "scoreUrl", status, body))
	})
}

// FuzzScoreAlias fuzzes score_id: the provider takes exactly the aliases the emulator
// takes; an alias is also a score reference.
func FuzzScoreAlias(f *testing.F) {
	addGrammar(f, contracttest.Aliases)
	e := newFuzzEmulator(f)
	v, ref := scoreAlias(), scoreReference()
	f.Fuzz(func(t *testing.T, s string) {
		ok := validates(t, v, s)
		if ok && !validates(t, ref, s) {
			t.Fatalf("the alias %q is no score reference", s)
		}
		if !utf8.ValidString(s) || s == "fuzz-views" {
			return
		}
		status, body := e.publish(t, map[string]any{"scoreUrl": "https://cdn.example/alias.sib", "scoreId": s})
		agree(t, "score_id", s, ok, accepted(t, "scoreId", status, body))
	})
}

// FuzzScoreReference fuzzes a score's id or alias (data source, view): a reference the
// provider takes reaches the emulator's score route (404 for a score that does not
// exist), never another route nor a refusal of the address. The one exception is the
// alias "count", which the contract's grammar allows and whose GET is the count's
// route (GET /scores/count, contract §V3): the fuzzer found it, the client reads the
// count's answer as "the answer holds no score", and whether the alias is reserved is
// the contract's to say.
func FuzzScoreReference(f *testing.F) {
	addGrammar(f, contracttest.Aliases)
	for _, s := range []string{"4f0c3c1e-9d2b-4c4e-8a59-0a1b2c3d4e5f", "count", ".", "..", "%2e", "a/..", "a?b", "a#b"} {
		f.Add(s)
	}
	e := newFuzzEmulator(f)
	v := scoreReference()
	f.Fuzz(func(t *testing.T, s string) {
		if !validates(t, v, s) || s == "fuzz-views" || s == "count" {
			return
		}
		status, body := e.platform(t, http.MethodGet, "/scores/"+url.PathEscape(s), nil)
		if status != http.StatusNotFound || !bytes.Contains(body, []byte("NOT_FOUND")) {
			t.Fatalf("the score reference %q reaches %d %s, not the score route's 404", s, status, body)
		}
	})
}

// FuzzServerAddress fuzzes a server's address in the external authentication
// settings: the provider takes exactly the addresses the emulator takes, but for the
// spellings it sends otherwise (wireAddress: an IPv6 address in brackets), which the
// emulator takes as sent.
func FuzzServerAddress(f *testing.F) {
	addGrammar(f, contracttest.ServerAddresses)
	for _, s := range contracttest.ServerAddressSpellings {
		f.Add(s.Value)
	}
	e := newFuzzEmulator(f)
	v := serverAddress()
	f.Fuzz(func(t *testing.T, s string) {
		ok := validates(t, v, s)
		if !utf8.ValidString(s) {
			if ok {
				t.Fatalf("the address %q is not UTF-8, and the provider accepts it", s)
			}
			return
		}
		put := func(address string) bool {
			doc, _ := json.Marshal(map[string]any{"domainName": "CORP", "externalAuthenticationEnabled": true,
				"server0": address, "port0": "389", "enabled0": true})
			status, body := e.call(http.MethodPut, emulator.AdminPath+"/externalauth",
				http.Header{"Token": {e.session}, "Content-Type": {"application/json"}}, doc)
			return accepted(t, "server0", status, body)
		}
		if sent := wireAddress(s); sent != s {
			if ok && !put(sent) {
				t.Fatalf("the address %q is sent as %q, which the emulator refuses", s, sent)
			}
			return
		}
		agree(t, "address", s, ok, put(s))
	})
}

// FuzzViewSettings fuzzes a view's pages, license_string and lang: the provider takes
// exactly the values the emulator takes.
func FuzzViewSettings(f *testing.F) {
	for _, s := range []string{"1", "1-3,5,8-9", "3-1", "0", "01", "1,", "1 -3", "+1", "99999999999999999999", "1-3-5", ""} {
		f.Add(uint8(0), s)
	}
	for _, v := range contracttest.LicenseStrings {
		f.Add(uint8(1), v.Value)
	}
	for _, s := range []string{"en", "fr-CA", "de-CH-1996", "zh-Hant-TW", "en_US", "x-private", "i-klingon", "EN", "e", "",
		"en-", "en-US-u-ca-gregory", strings.Repeat("a-", 500) + "a"} {
		f.Add(uint8(2), s)
	}
	e := newFuzzEmulator(f)
	settings := []struct {
		attribute, member string
		v                 validator.String
	}{{"pages", "pages", viewValidator(f, "pages")}, {"license_string", "licenseString", viewValidator(f, "license_string")},
		{"lang", "lang", viewValidator(f, "lang")}}
	f.Fuzz(func(t *testing.T, which uint8, s string) {
		setting := settings[int(which)%len(settings)]
		ok := validates(t, setting.v, s)
		if !utf8.ValidString(s) {
			return // JSON cannot carry it as it is
		}
		status, body := e.platform(t, http.MethodPost, "/scores/fuzz-views/view",
			map[string]any{"settings": map[string]any{setting.member: s}})
		agree(t, setting.attribute, s, ok, accepted(t, setting.member, status, body))
	})
}

// viewValidator returns the validator of attribute in mediaplatform_score_view's
// schema.
func viewValidator(tb testing.TB, attribute string) validator.String {
	tb.Helper()
	var resp resource.SchemaResponse
	NewScoreViewResource().Schema(context.Background(), resource.SchemaRequest{}, &resp)
	attr, ok := resp.Schema.Attributes[attribute].(schema.StringAttribute)
	if !ok || len(attr.Validators) != 1 {
		tb.Fatalf("mediaplatform_score_view has no string attribute %s with one validator", attribute)
	}
	return attr.Validators[0]
}

// FuzzAddress fuzzes the provider's address settings (admin_url, platform_url,
// publishing_url, registry_url): an address the provider takes at plan time is one
// the client takes.
func FuzzAddress(f *testing.F) {
	for _, s := range []string{"https://platform.example", "http://127.0.0.1:8080/api/v1", "https://[::1]:8443/", "https://:443",
		"https://user:pw@host/", "ftp://host", "host:443", "https://host/%zz", "https://ho st/", "http://[fe80::1%25en0]/",
		"https://host:99999/", "https://host:port/"} {
		f.Add(s)
	}
	v := absoluteURL()
	f.Fuzz(func(t *testing.T, s string) {
		if !validates(t, v, s) {
			return
		}
		for _, cfg := range []client.Config{{AdminURL: s}, {PlatformURL: s}, {PlatformURL: "https://p.example", PublishingURL: s},
			{PlatformURL: "https://p.example", RegistryURL: s}} {
			if _, err := client.New(cfg); err != nil {
				t.Fatalf("the address %q passes the plan, and the client refuses it: %v", s, err)
			}
		}
	})
}

// FuzzDuration fuzzes the duration settings (request_timeout, a view's expiry): a
// duration the provider takes is a positive Go duration.
func FuzzDuration(f *testing.F) {
	for _, s := range []string{"30s", "10m", "1h30m", "0s", "-1s", "1.5h", "1e3s", "9999999999h", "1", "", "1µs", ".5s", "1h-1m"} {
		f.Add(s)
	}
	v := positiveDuration()
	f.Fuzz(func(t *testing.T, s string) {
		if !validates(t, v, s) {
			return
		}
		if d, err := time.ParseDuration(s); err != nil || d <= 0 {
			t.Fatalf("the duration %q passes, and reads as %v (%v)", s, d, err)
		}
	})
}
