package client

// The fuzz target of externalauth.go: the external authentication settings as the
// administrator API answers them.

import (
	"encoding/json"
	"reflect"
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
