package client

// The fuzz targets of session.go: the administrator API's answers to the login (its
// session token) and to the session check.

import (
	"net/http"
	"strings"
	"testing"
)

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
