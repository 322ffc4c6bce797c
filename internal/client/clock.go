package client

import (
	"encoding/json"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// The platform's clock. Timestamps in the platform's answers (a score's createdAt, a
// view's expiresAt) are on its clock, which may be hours away from this machine's.
// Every answer of the platform carries a Date header (RFC 9110 §6.6.1); the
// difference between it and the moment the answer arrived is the offset between the
// two clocks. One helper serves every judgement made on the platform's clock: whether
// a score found after a lost publish answer can be the one this run created, and how
// long a view has left.

// ClockTolerance is the margin of every comparison on the platform's clock. The Date
// header has a resolution of one second and the estimate below centres it, so the
// offset is known to ±0.5 s plus half a round trip; two seconds covers that with room
// for a slow exchange, while a score published by another configuration minutes or
// even seconds before stays clearly older.
const ClockTolerance = 2 * time.Second

// platformClock holds the offset of the platform's clock, by host.
type platformClock struct {
	mu      sync.Mutex
	offsets map[string]time.Duration
}

// observe learns the offset of host's clock from the Date header of an answer that
// was requested at sent and arrived at received (this machine's clock). The Date is
// the platform's time truncated to the second, taken between the two: its middle is
// the best estimate.
func (k *platformClock) observe(host, date string, sent, received time.Time) {
	if date == "" || sent.IsZero() || received.IsZero() {
		return
	}
	t, err := http.ParseTime(date)
	if err != nil {
		return
	}
	local := sent.Add(received.Sub(sent) / 2)
	offset := t.Add(500 * time.Millisecond).Sub(local)
	if offset > -time.Second && offset < time.Second {
		// Within the Date header's resolution the two clocks cannot be told apart:
		// take them as one, rather than add up to half a second of noise.
		offset = 0
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.offsets == nil {
		k.offsets = map[string]time.Duration{}
	}
	k.offsets[host] = offset
}

// offset returns the learned offset of host's clock (platform minus local).
func (k *platformClock) offset(host string) (time.Duration, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	d, ok := k.offsets[host]
	return d, ok
}

// PlatformClockOffset is how far the clock of the score API's host (publishing_url)
// is from this machine's (platform minus local), as learned from the Date headers of
// its answers; known is false while none carried a Date.
func (c *Client) PlatformClockOffset() (offset time.Duration, known bool) {
	host := ""
	if base, err := c.PublishingURL(); err == nil {
		if u, err := url.Parse(base); err == nil {
			host = hostKey(u)
		}
	}
	return c.clock.offset(host)
}

// PlatformTime converts local, a moment on this machine's clock, to the clock of the
// score API's host (publishing_url), as learned from the Date headers of its answers.
// known is false while no answer of that host carried a Date: local is then returned
// as it is.
func (c *Client) PlatformTime(local time.Time) (t time.Time, known bool) {
	d, ok := c.PlatformClockOffset()
	return local.Add(d), ok
}

// flexTime decodes an RFC 3339 time, tolerating null and the empty string.
type flexTime struct{ time.Time }

// UnmarshalJSON accepts an RFC 3339 string, "" or null.
func (t *flexTime) UnmarshalJSON(b []byte) error {
	var s *string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if s == nil || *s == "" {
		t.Time = time.Time{}
		return nil
	}
	v, err := time.Parse(time.RFC3339Nano, *s)
	if err != nil {
		return err
	}
	t.Time = v.UTC()
	return nil
}
