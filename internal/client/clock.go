package client

import (
	"bytes"
	"encoding/json"
	"math/big"
	"net/http"
	"net/url"
	"strconv"
	"strings"
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
	// lowest is the lowest offset seen of each host, and first when the first request
	// that got an answer with a Date was sent (this machine's clock): see firstRequest.
	lowest map[string]time.Duration
	first  time.Time
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
		k.offsets, k.lowest = map[string]time.Duration{}, map[string]time.Duration{}
	}
	k.offsets[host] = offset
	if low, ok := k.lowest[host]; !ok || offset < low {
		k.lowest[host] = offset
	}
	if k.first.IsZero() || sent.Before(k.first) {
		k.first = sent
	}
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

// FirstRequestOnPlatform is when this client sent its first request that an answer
// with a Date followed, on the clock of the score API's host (publishing_url), with
// the lowest offset seen of that clock: every score this client published was created
// after it, whichever way the platform's clock stepped since (stepped forward, the
// lower offset is the one the first request met; stepped back, it is the one a later
// publish met). Every request of the client follows an answer (a publish needs a
// token), so nothing this client sent came before. known is false while no answer
// carried a Date.
func (c *Client) FirstRequestOnPlatform() (t time.Time, known bool) {
	host := ""
	if base, err := c.PublishingURL(); err == nil {
		if u, err := url.Parse(base); err == nil {
			host = hostKey(u)
		}
	}
	c.clock.mu.Lock()
	defer c.clock.mu.Unlock()
	low, ok := c.clock.lowest[host]
	if !ok || c.clock.first.IsZero() {
		return time.Time{}, false
	}
	return c.clock.first.Add(low), true
}

// PlatformTime converts local, a moment on this machine's clock, to the clock of the
// score API's host (publishing_url), as learned from the Date headers of its answers.
// known is false while no answer of that host carried a Date: local is then returned
// as it is.
func (c *Client) PlatformTime(local time.Time) (t time.Time, known bool) {
	d, ok := c.PlatformClockOffset()
	return local.Add(d), ok
}

// flexTime decodes a timestamp of the platform. It takes RFC 3339 in every form the
// RFC allows (its §5.6 note: a space or a lowercase t between date and time, a
// lowercase z), ISO 8601's offset without a colon, and a time since the Unix epoch
// (epochTime): a JSON number or a string holding one, as Jackson writes a date by
// default (WRITE_DATES_AS_TIMESTAMPS) and Unix tools write seconds. It never fails: a
// value it cannot read (another form, another JSON type) is the zero time, as if
// absent, so that a timestamp the caller does not need never turns an answer, the
// proof of a write above all, into an unreadable one (rule "a write is recorded from
// what proves it"); a caller that needs the time reads the object back or reports it
// missing.
type flexTime struct{ time.Time }

// timeLayouts are the forms parseTime tries after normalising the separator and "z".
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999Z0700", "2006-01-02T15:04:05.999999999Z07"}

// parseTime reads a timestamp in any of the forms flexTime takes.
func parseTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if len(s) > 10 && (s[10] == ' ' || s[10] == 't') {
		s = s[:10] + "T" + s[11:]
	}
	if strings.HasSuffix(s, "z") {
		s = s[:len(s)-1] + "Z"
	}
	for _, layout := range timeLayouts {
		if v, err := time.Parse(layout, s); err == nil {
			return v.UTC(), true
		}
	}
	return epochTime(s)
}

// epochMillisAbove is where a time since the epoch turns from seconds to
// milliseconds (rule 21): 10^11 seconds is the year 5138, 10^11 milliseconds 1973.
const epochMillisAbove = 1e11

// epochTime reads the text of a JSON number as a time since the Unix epoch: in
// milliseconds when its magnitude is beyond 10^11, else in seconds, a fraction
// kept to the nanosecond (Jackson writes a java.time Instant as seconds with nine
// decimals). 0 is the zero time, as a number left at its default (rule 1); a time
// more than 10^11 seconds from the epoch (the year 5138) is not a time. It works on
// the digits: an exponent is bounded before the number is built.
func epochTime(s string) (time.Time, bool) {
	m := jsonNumber.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, false
	}
	if m[4] != "" {
		if e, err := strconv.Atoi(m[4]); err != nil || e > 40 || e < -40 {
			return time.Time{}, false
		}
	}
	v, ok := new(big.Rat).SetString(s)
	if !ok || v.Sign() == 0 {
		return time.Time{}, false
	}
	bound := new(big.Rat).SetInt64(epochMillisAbove)
	if new(big.Rat).Abs(v).Cmp(bound) > 0 {
		v.Quo(v, big.NewRat(1000, 1))
		if new(big.Rat).Abs(v).Cmp(bound) > 0 {
			return time.Time{}, false
		}
	}
	sec := new(big.Int).Quo(v.Num(), v.Denom()) // whole seconds, then the nanoseconds
	frac := new(big.Rat).Sub(v, new(big.Rat).SetInt(sec))
	frac.Mul(frac, big.NewRat(int64(time.Second), 1))
	nsec := new(big.Int).Quo(frac.Num(), frac.Denom())
	return time.Unix(sec.Int64(), nsec.Int64()).UTC(), true
}

// UnmarshalJSON reads a timestamp; anything else (null, "", another form or type) is
// the zero time.
func (t *flexTime) UnmarshalJSON(b []byte) error {
	t.Time = time.Time{}
	var s string
	if json.Unmarshal(b, &s) == nil {
		t.Time, _ = parseTime(s)
		return nil
	}
	t.Time, _ = epochTime(string(bytes.TrimSpace(b)))
	return nil
}
