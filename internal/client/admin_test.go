package client

// The administrator API: its login and the external authentication settings.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestAdminLoginFailureIsNotRetried(t *testing.T) {
	t.Parallel()
	f := newFakePlatform(t)
	cfg := f.config()
	cfg.AdminPassword = "wrong-admin-pass"
	c := newTestClient(t, cfg)
	_, err := c.GetExternalAuthentication(context.Background())
	if err == nil || !strings.Contains(err.Error(), "administrator login") || !IsUnauthorized(err) {
		t.Fatalf("got %v", err)
	}
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Code != "admin/INVALID_CREDENTIALS" {
		t.Errorf("code: %v", err)
	}
	if n := f.count("POST /api/v1/login"); n != 1 {
		t.Errorf("logins %d, want 1", n)
	}
	if strings.Contains(err.Error(), "wrong-admin-pass") {
		t.Errorf("message leaks the password: %v", err)
	}
}

func TestExternalAuthenticationMapping(t *testing.T) {
	t.Parallel()
	s, err := parseExternalAuthentication([]byte(`{"domainName":"CORP","externalAuthenticationEnabled":true,
	  "server0":"dc1","port0":"389","server1":"dc2","port1":"636","enabled1":false,"server10":"dc11","port10":636}`))
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
