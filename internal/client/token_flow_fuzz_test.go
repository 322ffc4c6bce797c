package client

// The fuzz targets of token_flow.go: the token flow's answers (discovery, the password
// grant, the token information and extension), through the whole pipeline, the
// reading of a refused grant, and the check of basic_token.

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"
)

// FuzzDiscoveryAnswer fuzzes the token flow's discovery: GET /auth and the identity
// providers' list (HAL links, one or many, templated, relative or absolute). Whatever
// they say, no request goes to another host than the platform's (the basic
// credential and the password go with the grant).
func FuzzDiscoveryAnswer(f *testing.F) {
	for _, b := range answersOf(f, kindLinks) {
		f.Add(false, b)
		f.Add(true, b)
	}
	for _, b := range hostileBodies() {
		f.Add(false, b)
	}
	f.Add(false, []byte(`{"_links": {"auth:identity-providers": {"href": "//evil.example/idp"}, `+
		`"auth:token": [{"name": "current", "href": "https://evil.example/t{?x}", "templated": true}]}}`))
	f.Add(true, []byte(`{"_embedded": {"auth:identity-provider": {"kind": "oauth", "_links": {"auth:ropc-default": `+
		`{"href": "http://127.0.0.1:9@evil.example/ropc"}}}}}`))
	emu := emulator.New(emulator.Options{RenderDelay: -1})
	f.Fuzz(func(t *testing.T, providers bool, body []byte) {
		route := "/auth"
		if providers {
			route = "/auth/identity-providers"
		}
		tr := &fuzzedRoute{route: route, status: http.StatusOK, contentType: "application/hal+json", body: body}
		c, done := fuzzClient(t, emu, tr)
		within(t, "discovering the token flow", body, func() {
			_, _ = c.GrantAccessToken(context.Background())
		})
		done()
	})
}

// FuzzGrantAnswer fuzzes the password grant's answer, a success or a refusal (400,
// 401) in any form: a token it takes is not empty and expires in the future when it
// says when; an error it reports holds neither the password nor the client secret.
func FuzzGrantAnswer(f *testing.F) {
	for _, a := range readingAnswers(f) {
		switch {
		case a.kind == kindToken:
			f.Add(uint8(0), a.contentType, a.body)
		case a.kind == kindError && a.status == http.StatusBadRequest:
			f.Add(uint8(1), a.contentType, a.body)
		case a.kind == kindError && a.status == http.StatusUnauthorized:
			f.Add(uint8(2), a.contentType, a.body)
		}
	}
	for _, b := range hostileBodies() {
		f.Add(uint8(0), "application/json", b)
	}
	f.Add(uint8(0), "application/json", []byte(`{"access_token": "t", "expires_in": 9223372036854775807}`))
	f.Add(uint8(0), "application/json", []byte(`{"access_token": "t", "expires_in": "1E+18"}`))
	f.Add(uint8(1), "text/plain", []byte("invalid_grant: the password "+emulatortest.Password+" is wrong"))
	emu := emulator.New(emulator.Options{RenderDelay: -1})
	statuses := []int{http.StatusOK, http.StatusBadRequest, http.StatusUnauthorized}
	f.Fuzz(func(t *testing.T, status uint8, contentType string, body []byte) {
		tr := &fuzzedRoute{route: "/auth/oauth2/ropc/default", status: statuses[int(status)%len(statuses)],
			contentType: contentType, body: body}
		c, done := fuzzClient(t, emu, tr)
		var tok *AccessToken
		var err error
		start := time.Now()
		within(t, "the password grant", body, func() { tok, err = c.GrantAccessToken(context.Background()) })
		done()
		if err != nil {
			for _, secret := range []string{emulatortest.Password, emulatortest.ClientSecret} {
				if strings.Contains(err.Error(), secret) {
					t.Fatalf("the error holds a secret: %v", err)
				}
			}
			return
		}
		if tok.Token == "" {
			t.Fatal("a grant without a token was taken")
		}
		if !tok.ExpiresAt.IsZero() && !tok.ExpiresAt.After(start) {
			t.Fatalf("the token granted now expires at %v, before it was granted (%v)", tok.ExpiresAt, start)
		}
	})
}

// FuzzTokenInfoAnswer fuzzes the token information resource (its expiry in every
// form, its extend and removal links), read after a grant and used by an extension
// and a removal: no request goes to another host than the platform's, and an
// extended token never expires before it was extended.
func FuzzTokenInfoAnswer(f *testing.F) {
	for _, b := range answersOf(f, kindTokenInfo) {
		f.Add(b)
	}
	for _, b := range hostileBodies() {
		f.Add(b)
	}
	f.Add([]byte(`{"expiresIn": 9223372036854775807, "_links": {"auth-token:extend": {"href": "extension"}, ` +
		`"auth-token:removal": {"href": "https://evil.example/remove"}}}`))
	f.Add([]byte(`{"iamToken": {"expiresAt": "0001-01-01 00:00:00z"}, "expiresAt": "9999-12-31T23:59:59.999999999-23:59"}`))
	emu := emulator.New(emulator.Options{RenderDelay: -1})
	f.Fuzz(func(t *testing.T, body []byte) {
		tr := &fuzzedRoute{route: "/auth/tokens/current", status: http.StatusOK, contentType: "application/hal+json", body: body}
		c, done := fuzzClient(t, emu, tr)
		within(t, "the token information", body, func() {
			ctx := context.Background()
			tok, err := c.GrantAccessToken(ctx)
			if err != nil {
				return
			}
			start := time.Now()
			if next, err := c.ExtendAccessToken(ctx, tok); err == nil {
				if !next.ExpiresAt.IsZero() && next.ExpiresAt.Before(start) && next.lifetime > 0 {
					t.Fatalf("the token extended now expires at %v, before it was extended (%v)", next.ExpiresAt, start)
				}
				tok = next
			}
			_ = c.RemoveAccessToken(ctx, tok)
		})
		done()
	})
}

// FuzzOAuthRefusal fuzzes the reading of a refused grant (parseOAuthError): RFC 6749's
// error body, RFC 9457, {"error": {…}}, text, HTML, in any status.
func FuzzOAuthRefusal(f *testing.F) {
	for _, a := range readingAnswers(f) {
		if a.kind == kindError {
			f.Add(a.status, a.contentType, a.body)
		}
	}
	for _, b := range hostileBodies() {
		f.Add(400, "application/json", b)
	}
	f.Add(401, "application/json", []byte(`{"error": ["invalid_client"], "error_description": 7}`))
	u, _ := url.Parse("https://platform.example/auth/oauth2/ropc/default")
	f.Fuzz(func(t *testing.T, status int, contentType string, body []byte) {
		resp := &response{status: status, header: http.Header{"Content-Type": {contentType}}, body: body, url: u}
		within(t, "parseOAuthError", body, func() {
			if e := parseOAuthError(resp, parseAPIError(http.MethodPost, resp)); e != nil {
				_ = e.Error()
			}
		})
	})
}

// FuzzCheckBasicToken fuzzes the check of basic_token: a value it passes decodes, as
// sent, to client_id:client_secret with no line break after the secret, and no
// message quotes the value.
func FuzzCheckBasicToken(f *testing.F) {
	for _, s := range []string{"dGVycmFmb3JtOnRlcnJhZm9ybS1zZWNyZXQ=", "Basic dGVycmFmb3JtOnRlcnJhZm9ybS1zZWNyZXQ=\n",
		"terraform:terraform-secret", "dGVycmFmb3JtOnNlY3JldAo=", "dGVycmFm\nb3Jt", "dGVycmFmb3Jt", "YQ", "", " basic  x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var problem, warning string
		within(t, "checking basic_token", s, func() { problem, warning = CheckBasicToken(s) })
		if len(s) >= 6 && strings.Contains(problem+warning, s) {
			t.Errorf("the check quotes the value: %q, %q", problem, warning)
		}
		if problem != "" || warning != "" {
			return
		}
		decoded, err := base64.StdEncoding.DecodeString(sentBasicToken(s))
		if _, secret, ok := strings.Cut(string(decoded), ":"); err != nil || !ok || strings.HasSuffix(secret, "\n") ||
			strings.ContainsAny(sentBasicToken(s), " \t\r\n") {
			t.Errorf("the check passed %q, which the platform cannot take (%v)", s, err)
		}
	})
}
