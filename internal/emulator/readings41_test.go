package emulator

// The reading exponentIntegers (issue 41 item 6): integers written with an exponent.

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func TestExponentForm(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"100": "1E+2", "250": "2.5E+2", "1200": "1.2E+3", "10": "1E+1", "-3000": "-3E+3",
		"389": "389.0E0", "0": "0.0E0", "-7": "-7.0E0",
		"1.5": "1.5", "1E+2": "1E+2", "99999999999999999999": "99999999999999999999",
	} {
		if got := exponentForm(in); got != want {
			t.Errorf("exponentForm(%s) = %s, want %s", in, got, want)
		}
	}
	body := `{"a": 100, "b": "100 and \"200\" \\", "c": [5, -20, 1.5, true, null], "d": {"e": 0}}`
	want := `{"a": 1E+2, "b": "100 and \"200\" \\", "c": [5.0E0, -2E+1, 1.5, true, null], "d": {"e": 0.0E0}}`
	if got := string(exponentIntegers([]byte(body))); got != want {
		t.Errorf("exponentIntegers:\n got %s\nwant %s", got, want)
	}
}

// TestReadingExponentIntegers: under the reading, the count and a problem's status are
// written with an exponent, as the same numbers.
func TestReadingExponentIntegers(t *testing.T) {
	t.Parallel()
	api := newScoreAPI(t, Options{}, false)
	api.publish(t, `{"scoreUrl":"https://cdn.example/exp.sib"}`)
	api.withReadings("exponentIntegers")
	count := api.do(t, http.MethodPost, "/scores/count", `{}`)
	if count.status != http.StatusOK || !strings.Contains(string(count.body), `"count":1.0E0`) {
		t.Errorf("count: %d %s", count.status, count.body)
	}
	var doc map[string]any
	if err := json.Unmarshal(count.body, &doc); err != nil || doc["count"] != 1.0 {
		t.Errorf("count is not JSON holding 1: %v %v", doc, err)
	}
	missing := api.do(t, http.MethodGet, "/scores/nothing-here", "")
	if missing.status != http.StatusNotFound || !strings.Contains(string(missing.body), `"status":404.0E0`) {
		t.Errorf("problem: %d %s", missing.status, missing.body)
	}
}
