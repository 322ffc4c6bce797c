package emulator

import (
	"net/http"
	"testing"
	"time"
)

// TestFaultsRateLimitWithoutRetryAfter: with rateLimitWithoutRetryAfter, a request past
// the limit is answered 429 with no Retry-After (RFC 6585 makes it optional), and the
// stats count each refusal.
func TestFaultsRateLimitWithoutRetryAfter(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	et.control(http.MethodPost, "faults", `{"rateLimitPerSecond": 1, "rateLimitWithoutRetryAfter": true}`).wantStatus(t, 200)
	login := map[string][]string{"user": {DefaultAdminName}, "pass": {DefaultAdminPassword}, "r": {"createsession"}}
	et.adminForm(login).wantStatus(t, 200)
	for range 2 {
		res := et.adminForm(login)
		res.wantProblem(t, 429, "admin/TOO_MANY_REQUESTS", "")
		if v, ok := res.header["Retry-After"]; ok {
			t.Errorf("Retry-After = %q, want none", v)
		}
	}
	var st Stats
	et.control(http.MethodGet, "stats", "").decode(t, &st)
	if st.RateLimited != 2 {
		t.Errorf("stats count %d requests refused by the rate limit, want 2", st.RateLimited)
	}
}

// TestFaultsRateLimitWindow: with rateLimitWindowSeconds, the limit counts requests per
// window of that length, and its 429 asks for the whole window with Retry-After; a
// window out of range is refused, naming the field.
func TestFaultsRateLimitWindow(t *testing.T) {
	t.Parallel()
	et := newEmuTester(t, Options{})
	et.control(http.MethodPost, "faults", `{"rateLimitPerSecond": 1, "rateLimitWindowSeconds": 3601}`).wantStatus(t, 400)
	et.control(http.MethodPost, "faults", `{"rateLimitPerSecond": 1, "rateLimitWindowSeconds": 60}`).wantStatus(t, 200)
	login := map[string][]string{"user": {DefaultAdminName}, "pass": {DefaultAdminPassword}, "r": {"createsession"}}
	et.adminForm(login).wantStatus(t, 200)
	res := et.adminForm(login)
	res.wantProblem(t, 429, "admin/TOO_MANY_REQUESTS", "")
	if got := res.header.Get("Retry-After"); got != "60" {
		t.Errorf("Retry-After = %q, want 60 (the window)", got)
	}
}

// TestFaultsRateLimitOnAGivenClock: with Options.RateLimitClock, the limit's windows
// pass on that clock, not on the wall: a request past the limit is refused until the
// clock has moved on by the window, whatever the wall says.
func TestFaultsRateLimitOnAGivenClock(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	et := newEmuTester(t, Options{RateLimitClock: clock.Now})
	et.control(http.MethodPost, "faults", `{"rateLimitPerSecond": 1, "rateLimitWindowSeconds": 60}`).wantStatus(t, 200)
	login := map[string][]string{"user": {DefaultAdminName}, "pass": {DefaultAdminPassword}, "r": {"createsession"}}
	et.adminForm(login).wantStatus(t, 200)
	et.adminForm(login).wantProblem(t, 429, "admin/TOO_MANY_REQUESTS", "")
	clock.Advance(59 * time.Second)
	et.adminForm(login).wantProblem(t, 429, "admin/TOO_MANY_REQUESTS", "")
	clock.Advance(time.Second)
	et.adminForm(login).wantStatus(t, 200)
}
