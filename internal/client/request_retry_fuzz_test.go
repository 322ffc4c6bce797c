package client

// The fuzz target of request_retry.go: Retry-After, in seconds or as an HTTP date.

import (
	"net/http"
	"testing"
	"time"
)

// FuzzRetryAfter fuzzes the Retry-After header of a 429 or 503 (and the Date it is
// judged against): a wait it reads is never negative.
func FuzzRetryAfter(f *testing.F) {
	for _, a := range readingAnswers(f) {
		if a.retryAfter != "" || a.kind == kindError {
			f.Add(a.retryAfter, a.date)
		}
	}
	f.Add("120", "Sat, 28 Nov 2026 03:40:02 GMT")
	f.Add("Sat, 28 Nov 2026 03:42:02 GMT", "Sat, 28 Nov 2026 03:40:02 GMT")
	f.Add("Saturday, 28-Nov-26 03:42:02 GMT", "")
	f.Add("Sat Nov 28 03:42:02 2026", "garbage")
	f.Add("99999999999", "")
	f.Add("9300000000", "")
	f.Add("-1", "")
	f.Add(" 1.5 ", "")
	f.Fuzz(func(t *testing.T, retryAfterValue, date string) {
		h := http.Header{"Retry-After": {retryAfterValue}, "Date": {date}}
		var d time.Duration
		var ok bool
		within(t, "retryAfter", retryAfterValue, func() { d, ok = retryAfter(h) })
		if ok && d < 0 {
			t.Fatalf("Retry-After %q (Date %q) reads as the negative wait %v", retryAfterValue, date, d)
		}
	})
}
