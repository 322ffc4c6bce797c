package client

import (
	"encoding/json"
	"testing"
	"time"
)

// TestSessionTimesInEveryForm: /checksession's expiresAt is read in every RFC 3339
// form (a space for the T, as Python writes it), and one that cannot be read is no
// expiry, never an unreadable answer.
func TestSessionTimesInEveryForm(t *testing.T) {
	t.Parallel()
	want := time.Date(2026, 11, 23, 22, 45, 52, 123000000, time.UTC)
	for body, at := range map[string]time.Time{
		`{"valid": true, "user": "admin", "expiresAt": "2026-11-23 22:45:52.123000+00:00"}`: want,
		`{"valid": true, "user": "admin", "expiresAt": "2026-11-23T22:45:52.123Z"}`:         want,
		`{"valid": true, "user": "admin", "expiresAt": "tomorrow"}`:                         {},
		`{"valid": true, "user": "admin"}`:                                                  {},
	} {
		var s Session
		if err := json.Unmarshal([]byte(body), &s); err != nil || !s.Valid || s.User != "admin" || !s.ExpiresAt.Equal(at) {
			t.Errorf("%s: %+v, %v", body, s, err)
		}
	}
}

// TestFlexInt: an integer as a number or a string holding one (protojson's int64);
// anything else reads as 0, as if absent.
func TestFlexInt(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]flexInt{`900`: 900, `"900"`: 900, `" 900 "`: 900, `null`: 0, `""`: 0, `"soon"`: 0, `true`: 0} {
		var n flexInt
		if err := json.Unmarshal([]byte(body), &n); err != nil || n != want {
			t.Errorf("%s: %d, %v", body, n, err)
		}
	}
	var grant struct {
		ExpiresIn flexInt `json:"expires_in"`
	}
	if err := json.Unmarshal([]byte(`{"expires_in": "900"}`), &grant); err != nil || grant.ExpiresIn != 900 {
		t.Errorf("a grant's expires_in as a string: %d, %v", grant.ExpiresIn, err)
	}
}
