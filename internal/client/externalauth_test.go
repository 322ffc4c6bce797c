package client

// The external authentication settings of the administrator API.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulator"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/emulatortest"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/faultproxy"
)

func TestExternalAuthenticationMapping(t *testing.T) {
	t.Parallel()
	s, err := parseExternalAuthentication([]byte(`{"domainName":"CORP","externalAuthenticationEnabled":true,
	  "server0":"dc1","port0":"389","enabled0":true,"server1":"dc2","port1":"636","enabled1":false,
	  "server10":"dc11","port10":636,"enabled10":true}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []AuthServer{{"dc1", 389, true}, {"dc2", 636, false}, {"dc11", 636, true}}
	if s.DomainName != "CORP" || !s.Enabled || fmt.Sprint(s.Servers) != fmt.Sprint(want) {
		t.Errorf("parsed %+v", s)
	}
	doc := ExternalAuthentication{DomainName: "D", Servers: []AuthServer{{"a", 1, true}, {"b", 65535, false}}}.document()
	b, _ := json.Marshal(doc)
	if string(b) != `{"domainName":"D","enabled0":true,"enabled1":false,"externalAuthenticationEnabled":false,"port0":"1","port1":"65535","server0":"a","server1":"b"}` {
		t.Errorf("document %s", b)
	}
}

// TestSettingsWithEveryServerSlot: a platform that lists all eight server slots, the
// unused ones empty, holds only the servers it was given (an empty slot is no server).
func TestSettingsWithEveryServerSlot(t *testing.T) {
	t.Parallel()
	env, c := readingEnv(t, "allServerSlots")
	want := []AuthServer{{"dc1.corp.example", 636, true}}
	put, err := c.PutExternalAuthentication(env.ctx, ExternalAuthentication{DomainName: "CORP", Enabled: true, Servers: want})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.GetExternalAuthentication(env.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for what, s := range map[string]*ExternalAuthentication{"the PUT's answer": put, "a GET": got} {
		if fmt.Sprint(s.Servers) != fmt.Sprint(want) {
			t.Errorf("%s: servers %v, want %v", what, s.Servers, want)
		}
		if len(s.Extra) != 0 {
			t.Errorf("%s: the empty slots are taken for members the client does not model: %v", what, s.Extra)
		}
	}
}

// TestSettingsWithoutEmptyMembers: an answer that leaves out the members whose value
// is false, zero or empty (omitempty, protojson) reads as those values: a disabled
// server stays disabled, settings switched off stay off.
func TestSettingsWithoutEmptyMembers(t *testing.T) {
	t.Parallel()
	env, c := readingEnv(t, "omitEmptyAdminMembers")
	want := ExternalAuthentication{DomainName: "CORP", Enabled: false,
		Servers: []AuthServer{{"dc1.corp.example", 389, true}, {"dc2.corp.example", 636, false}}}
	put, err := c.PutExternalAuthentication(env.ctx, want)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.GetExternalAuthentication(env.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for what, s := range map[string]*ExternalAuthentication{"the PUT's answer": put, "a GET": got} {
		if s.DomainName != want.DomainName || s.Enabled || fmt.Sprint(s.Servers) != fmt.Sprint(want.Servers) {
			t.Errorf("%s: {%s %t %v}, want {%s %t %v}", what, s.DomainName, s.Enabled, s.Servers, want.DomainName, want.Enabled, want.Servers)
		}
	}
	if _, err := c.CheckSession(env.ctx); err != nil {
		t.Errorf("the session check: %v", err)
	}
}

// TestSettingsZeroValues: an absent, null or empty member is its type's zero value,
// and a slot without an address is no server, wherever it stands.
func TestSettingsZeroValues(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		doc  string
		want string
	}{
		{`{}`, `{ false []}`},
		{`{"domainName":null,"externalAuthenticationEnabled":null}`, `{ false []}`},
		{`{"domainName":"CORP","externalAuthenticationEnabled":"","server0":"dc1"}`, `{CORP false [{dc1 0 false}]}`},
		{`{"domainName":"CORP","server0":"dc1","port0":null,"enabled0":null}`, `{CORP false [{dc1 0 false}]}`},
		{`{"domainName":"CORP","server0":"dc1","port0":"","enabled0":""}`, `{CORP false [{dc1 0 false}]}`},
		{`{"domainName":"CORP","server0":"dc1","port0":"389","enabled0":true,"server1":"","port1":"","enabled1":false}`,
			`{CORP false [{dc1 389 true}]}`},
		{`{"domainName":"CORP","server0":null,"port0":"389","enabled0":true,"server1":"dc2","enabled1":true}`,
			`{CORP false [{dc2 0 true}]}`},
	} {
		s, err := parseExternalAuthentication([]byte(tc.doc))
		if err != nil {
			t.Errorf("%s: %v", tc.doc, err)
			continue
		}
		if got := fmt.Sprintf("{%s %t %v}", s.DomainName, s.Enabled, s.Servers); got != tc.want {
			t.Errorf("%s: read as %s, want %s", tc.doc, got, tc.want)
		}
	}
}

// TestSettingsKeepMembersTheClientDoesNotModel: members of the settings that the
// client does not model are read into Extra and written back as read, so that a PUT
// (which replaces the whole document) does not reset them.
func TestSettingsKeepMembersTheClientDoesNotModel(t *testing.T) {
	t.Parallel()
	env, c := readingEnv(t, "settingsExtraFields")
	got, err := c.GetExternalAuthentication(env.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Extra["searchBase"]) != `"dc=corp,dc=example"` || string(got.Extra["connectTimeoutSeconds"]) != "30" {
		t.Fatalf("members beyond the contract's: %s", got.Extra)
	}
	got.DomainName, got.Enabled = "CORP", true
	got.Servers = []AuthServer{{"dc1.corp.example", 389, true}}
	put, err := c.PutExternalAuthentication(env.ctx, *got)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(put.Extra) != fmt.Sprint(got.Extra) || len(put.Servers) != 1 {
		t.Errorf("after the PUT: servers %v, members %s, want the members %s kept", put.Servers, put.Extra, got.Extra)
	}
	// A member the client models is written from its field, never from Extra.
	doc := ExternalAuthentication{DomainName: "D", Extra: map[string]json.RawMessage{
		"domainName": json.RawMessage(`"stale"`), "server3": json.RawMessage(`"stale"`), "x": json.RawMessage(`1`)}}.document()
	b, _ := json.Marshal(doc)
	if string(b) != `{"domainName":"D","externalAuthenticationEnabled":false,"x":1}` {
		t.Errorf("document %s", b)
	}
}

func TestEmulatorAdmin(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c := env.client()
	ctx := env.ctx

	s, err := c.GetExternalAuthentication(ctx)
	if err != nil || s.DomainName != "" || s.Enabled || len(s.Servers) != 0 {
		t.Fatalf("initial settings %+v %v", s, err)
	}
	want := ExternalAuthentication{DomainName: "CORP", Enabled: true, Servers: []AuthServer{
		{Address: "dc1.corp.example", Port: 389, Enabled: true},
		{Address: "dc2.corp.example", Port: 636, Enabled: false},
	}}
	put, err := c.PutExternalAuthentication(ctx, want)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.GetExternalAuthentication(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*ExternalAuthentication{put, got} {
		if s.DomainName != want.DomainName || s.Enabled != want.Enabled || fmt.Sprint(s.Servers) != fmt.Sprint(want.Servers) {
			t.Errorf("settings %+v, want %+v", s, want)
		}
	}
	// PUT replaces: fewer servers remove the others.
	got, err = c.PutExternalAuthentication(ctx, ExternalAuthentication{DomainName: "CORP"})
	if err != nil || len(got.Servers) != 0 || got.Enabled {
		t.Fatalf("replace: %+v %v", got, err)
	}
	_, err = c.PutExternalAuthentication(ctx, ExternalAuthentication{DomainName: ""})
	if !IsBadArgument(err) {
		t.Errorf("empty domain: %v", err)
	}
	_, err = c.PutExternalAuthentication(ctx, ExternalAuthentication{DomainName: "X", Servers: []AuthServer{{Address: "h", Port: 70000, Enabled: true}}})
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 400 || apiErr.Params["field"] != "port0" {
		t.Errorf("bad port: %v", err)
	}
	sess, err := c.CheckSession(ctx)
	if err != nil || !sess.Valid || sess.User != "admin" {
		t.Errorf("session %+v %v", sess, err)
	}

	viewer := env.client(func(c *Config) {
		c.AdminUsername, c.AdminPassword = emulatortest.ViewerUsername, emulatortest.ViewerPassword
	})
	if _, err := viewer.GetExternalAuthentication(ctx); !IsForbidden(err) {
		t.Errorf("viewer: %v", err)
	}

	before := env.stats().Logins["admin"]
	wrong := env.client(func(c *Config) { c.AdminPassword = "not-the-password" })
	_, err = wrong.GetExternalAuthentication(ctx)
	if !IsUnauthorized(err) || !strings.Contains(err.Error(), "administrator login") || !strings.Contains(err.Error(), "failed") {
		t.Errorf("wrong password: %v", err)
	}
	if n := env.stats().Requests["POST /api/v1/login"]; n != 3 {
		t.Errorf("login requests %d, want 3 (admin, viewer, one failed)", n)
	}
	if env.stats().Logins["admin"] != before {
		t.Error("a failed login was counted as a login")
	}
}

// TestSettingsNumbersInEveryForm: a port in the settings, a string on the wire, is
// read in every integer form, and a port that is no number is absent, not an
// unreadable answer.
func TestSettingsNumbersInEveryForm(t *testing.T) {
	t.Parallel()
	for form, want := range map[string]int{
		`"636"`: 636, `636`: 636, `6.36E+2`: 636, `"6.36E+2"`: 636, `636.0`: 636, `"ldaps"`: 0, `true`: 0, `6.5`: 0,
	} {
		s, err := parseExternalAuthentication([]byte(`{"domainName": "CORP", "externalAuthenticationEnabled": true, "server0": "dc1", "port0": ` + form + `, "enabled0": true}`))
		if err != nil || len(s.Servers) != 1 || s.Servers[0].Port != want {
			t.Errorf("port0 %s: %+v, %v; want port %d", form, s, err, want)
		}
	}
}

// TestEmptySettingsAnswer: a PUT of the settings answered 204 with no body is read
// back, so the stored settings are what the caller gets.
func TestEmptySettingsAnswer(t *testing.T) {
	t.Parallel()
	env, c := readingEnv(t, "emptySettingsAnswer")
	got, err := c.PutExternalAuthentication(env.ctx, ExternalAuthentication{DomainName: "CORP", Enabled: true,
		Servers: []AuthServer{{Address: "dc1.corp.example", Port: 636, Enabled: true}}})
	if err != nil || got.DomainName != "CORP" || len(got.Servers) != 1 || got.Servers[0].Port != 636 {
		t.Fatalf("settings stored with an empty answer: %+v, %v", got, err)
	}
}

func TestExternalAuthenticationNotFoundIsAnAddressError(t *testing.T) {
	t.Parallel()
	env := newEmuEnv(t, emulator.Options{})
	c, p := env.proxiedClient()
	p.Add(faultproxy.Fault{Path: `/externalauth$`, Respond: &faultproxy.Answer{
		Status: 404, Header: http.Header{"Content-Type": {"application/problem+json"}},
		Body: `{"code":"admin/NOT_FOUND","message":"not here","status":404}`,
	}})
	_, err := c.GetExternalAuthentication(env.ctx)
	if IsNotFound(err) || !IsAddressError(err) || !strings.Contains(err.Error(), "admin_url") {
		t.Errorf("GET: %v", err)
	}
	_, err = c.PutExternalAuthentication(env.ctx, ExternalAuthentication{DomainName: "CORP"})
	if IsNotFound(err) || !IsAddressError(err) {
		t.Errorf("PUT: %v", err)
	}
}

// TestSettingsBooleansInEveryForm: a boolean of the settings is read from true or
// false, or a string holding one in any case (rule 22); any other value is absent,
// so false (rule 1), and never makes the settings unreadable.
func TestSettingsBooleansInEveryForm(t *testing.T) {
	t.Parallel()
	for form, want := range map[string]bool{
		`true`: true, `false`: false, `"true"`: true, `"false"`: false, `"TRUE"`: true, `"False"`: false,
		`" true "`: true, `"yes"`: false, `1`: false, `"1"`: false, `{}`: false, `[]`: false, `null`: false, `""`: false,
	} {
		s, err := parseExternalAuthentication([]byte(`{"domainName": "CORP", "externalAuthenticationEnabled": ` + form +
			`, "server0": "dc1", "port0": "636", "enabled0": ` + form + `}`))
		if err != nil || s.Enabled != want || len(s.Servers) != 1 || s.Servers[0].Enabled != want {
			t.Errorf("booleans %s: %+v, %v; want %t", form, s, err, want)
		}
	}
	for form, want := range map[string]bool{`true`: true, `"TRUE"`: true, `"false"`: false, `"valid"`: false} {
		var sess Session
		if err := json.Unmarshal([]byte(`{"valid": `+form+`, "user": "admin"}`), &sess); err != nil || sess.Valid != want || sess.User != "admin" {
			t.Errorf("session valid %s: %+v, %v; want %t", form, sess, err, want)
		}
	}
}

// TestSettingsWithStringBooleans: on a platform that answers its booleans as strings
// (switch stringAdminBooleans), the settings written are the settings read, by the
// PUT's answer and by a GET.
func TestSettingsWithStringBooleans(t *testing.T) {
	t.Parallel()
	env, c := readingEnv(t, "stringAdminBooleans")
	for _, enabled := range []bool{true, false} {
		want := ExternalAuthentication{DomainName: "CORP", Enabled: enabled,
			Servers: []AuthServer{{"dc1.corp.example", 636, true}, {"dc2.corp.example", 389, false}}}
		put, err := c.PutExternalAuthentication(env.ctx, want)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.GetExternalAuthentication(env.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(got.Raw), `"enabled0":"true"`) {
			t.Fatalf("the platform wrote no string boolean: %s", got.Raw)
		}
		for what, s := range map[string]*ExternalAuthentication{"the PUT's answer": put, "a GET": got} {
			if s.DomainName != want.DomainName || s.Enabled != want.Enabled || fmt.Sprint(s.Servers) != fmt.Sprint(want.Servers) {
				t.Errorf("%s: {%s %t %v}, want {%s %t %v}", what, s.DomainName, s.Enabled, s.Servers, want.DomainName, want.Enabled, want.Servers)
			}
		}
	}
}

// TestSettingsAbsenceByWhatThePlatformShows: an enabledN the answer leaves out is read
// by what the platform has shown: true (contract §A's default) where it writes a false
// switch, false where it writes a true enabledN and no false, and otherwise the default
// left unconfirmed (Unshown), as is an absent externalAuthenticationEnabled; what a
// PUT's answer leaves out is what was sent, and the family it shows is kept.
func TestSettingsAbsenceByWhatThePlatformShows(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body string
		enabled    []bool
		unshown    []string
	}{
		{"falses written", `{"domainName":"C","externalAuthenticationEnabled":true,"server0":"a","port0":"389","server1":"b","port1":"636","enabled1":false}`,
			[]bool{true, false}, nil},
		{"switch false written", `{"domainName":"C","externalAuthenticationEnabled":false,"server0":"a","port0":"389"}`, []bool{true}, nil},
		{"trues written", `{"domainName":"C","externalAuthenticationEnabled":true,"server0":"a","port0":"389","enabled0":true,"server1":"b","port1":"636"}`,
			[]bool{true, false}, nil},
		{"nothing shown", `{"domainName":"C","server0":"a","port0":"389"}`, []bool{true}, []string{"externalAuthenticationEnabled", "enabled0"}},
	} {
		s, err := (&settingsPresence{}).read(parseExternalAuthentication([]byte(tc.body)))
		if err != nil {
			t.Fatal(err)
		}
		var got []bool
		for _, srv := range s.Servers {
			got = append(got, srv.Enabled)
		}
		if !reflect.DeepEqual(got, tc.enabled) || !reflect.DeepEqual(s.Unshown, tc.unshown) {
			t.Errorf("%s: enabled %v, unshown %q; want %v, %q", tc.name, got, s.Unshown, tc.enabled, tc.unshown)
		}
	}
	var p settingsPresence
	stored, err := parseExternalAuthentication([]byte(`{"domainName":"C","server0":"a","port0":"389","server1":"b","port1":"636","enabled1":false}`))
	if err != nil {
		t.Fatal(err)
	}
	p.learn(ExternalAuthentication{DomainName: "C", Enabled: true, Servers: []AuthServer{{"a", 389, true}, {"b", 389, false}}}, stored)
	if !stored.Enabled || !stored.Servers[0].Enabled || stored.Unshown != nil {
		t.Errorf("a PUT's answer without the switch and enabled0 does not read as sent: %+v", stored)
	}
	if !p.switchUnreported || !p.omitsTrue || p.omitsFalse {
		t.Errorf("learned unreported %t, omitsTrue %t, omitsFalse %t from an answer that left out a switch and an enabledN sent true", p.switchUnreported, p.omitsTrue, p.omitsFalse)
	}
	s, _ := p.read(parseExternalAuthentication([]byte(`{"domainName":"C","server0":"a","port0":"389"}`)))
	if !s.Servers[0].Enabled || !s.Shown("enabled0") {
		t.Errorf("on a platform that leaves out true enabledN, an absent one reads %+v", s)
	}
}
