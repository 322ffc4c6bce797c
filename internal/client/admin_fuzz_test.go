package client

// The fuzz targets of admin.go: the administrator API's answers (the login's session
// token, the session check, the external authentication settings).

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// FuzzSettingsAnswer fuzzes the external authentication settings (GET and PUT
// /externalauth): numbered server sets with gaps, every slot listed, members left out,
// ports as strings or numbers, members the client does not model. Settings it reads
// are read the same from the document the client would write back.
func FuzzSettingsAnswer(f *testing.F) {
	for _, b := range answersOf(f, kindSettings) {
		f.Add(b)
	}
	for _, b := range hostileBodies() {
		f.Add(b)
	}
	f.Add([]byte(`{"server07": "dc7", "port07": 1, "server3": "dc3", "port3": "1E+3", "enabled3": "", "server0": null, ` +
		`"domainName": "", "externalAuthenticationEnabled": null, "searchBase": {"a": [1]}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var s *ExternalAuthentication
		var err error
		within(t, "parseExternalAuthentication", body, func() { s, err = parseExternalAuthentication(body) })
		if err != nil {
			return
		}
		written, err := json.Marshal(s.document())
		if err != nil {
			t.Fatalf("the settings read cannot be written back: %v", err)
		}
		again, err := parseExternalAuthentication(written)
		if err != nil {
			t.Fatalf("the settings written back do not read: %v (%s)", err, written)
		}
		if again.DomainName != s.DomainName || again.Enabled != s.Enabled || !reflect.DeepEqual(again.Servers, s.Servers) {
			t.Fatalf("the settings read differently once written back: %+v, then %+v", s, again)
		}
	})
}

// FuzzLoginAnswer fuzzes the administrator login's answer (sessionToken): {"token":
// …}, a JSON string, the bare token. A token it takes is one printable word, fit for
// a header; its errors quote nothing of the answer.
func FuzzLoginAnswer(f *testing.F) {
	for _, b := range answersOf(f, kindLogin) {
		f.Add(b, "")
	}
	for _, b := range hostileBodies() {
		f.Add(b, "")
		f.Add(b, "header-token")
	}
	f.Add([]byte(`"tok\u0000en"`), "")
	f.Add([]byte("  secret-token\r\n"), "")
	f.Add([]byte(""), "secret-token")
	f.Add([]byte(""), "two words")
	f.Fuzz(func(t *testing.T, body []byte, header string) {
		var token string
		var err error
		h := http.Header{}
		if header != "" {
			h.Set("token", header)
		}
		within(t, "sessionToken", body, func() { token, err = sessionToken(body, h) })
		if err != nil {
			for _, text := range []string{strings.TrimSpace(string(body)), strings.TrimSpace(header)} {
				if len(text) >= 8 && strings.Contains(err.Error(), text) {
					t.Fatalf("the error quotes the answer: %v", err)
				}
			}
			return
		}
		if token == "" || len(token) > 4096 || strings.ContainsFunc(token, func(r rune) bool { return r <= ' ' || r >= 0x7f }) {
			t.Fatalf("the login answer %q (header %q) gave the token %q, which is not one printable word", body, header, token)
		}
	})
}

// FuzzSessionAnswer fuzzes GET /checksession's answer (Session).
func FuzzSessionAnswer(f *testing.F) {
	for _, b := range answersOf(f, kindSession) {
		f.Add(b)
	}
	for _, b := range hostileBodies() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var s Session
		within(t, "decoding a session", body, func() { _ = decodeAnswer(body, "", &s) })
	})
}
