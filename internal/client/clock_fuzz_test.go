package client

// The fuzz targets of clock.go: the platform's timestamps (flexTime, in every offset
// form) and its clock (the Date header).

import (
	"regexp"
	"testing"
	"time"
)

// fuzzTimestamp finds the timestamps in an answer, for the seeds of FuzzTimestamp.
var fuzzTimestamp = regexp.MustCompile(`"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][^"]*"`)

// FuzzTimestamp fuzzes a timestamp member of an answer (flexTime): RFC 3339 in every
// form its §5.6 note allows, ISO 8601's offset without a colon. A time it reads is in
// UTC, and reads the same once written in RFC 3339.
func FuzzTimestamp(f *testing.F) {
	stamps := map[string]bool{}
	for _, a := range readingAnswers(f) {
		for _, m := range fuzzTimestamp.FindAll(a.body, -1) {
			stamps[string(m)] = true
		}
	}
	for s := range stamps {
		f.Add([]byte(s))
	}
	for _, s := range []string{`"2026-11-23T22:45:52Z"`, `"2026-11-23 22:45:52.123000+00:00"`, `"2026-11-23t22:45:52z"`,
		`"2026-11-24T00:45:52+02:00"`, `"2026-11-24T00:45:52+0200"`, `"2026-11-24T00:45:52+02"`, `"2026-11-23T22:45:52-00:00"`,
		`"0000-01-01T00:00:00+23:59"`, `"9999-12-31T23:59:59.999999999-23:59"`, `"2026-02-30T25:61:61Z"`, `1764000000`,
		`null`, `""`, `"2026-11-23T22:45:52+99:99"`, "\"2026-11-23T22:45:52\xffZ\"", `"2026-11-23T22:45:52.` + "1234567890123" + `Z"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		t.Parallel() // the seed runs: pure decoding, each on its own input (no effect when fuzzing)
		var ft flexTime
		within(t, "flexTime", b, func() { _ = ft.UnmarshalJSON(b) })
		if ft.IsZero() {
			return
		}
		if ft.Location() != time.UTC {
			t.Fatalf("%q reads as %v, not in UTC", b, ft.Time)
		}
		if ft.Year() < 0 || ft.Year() > 9999 {
			return // in UTC beyond RFC 3339's years (0000-01-01T00:00:00+23:59)
		}
		again, ok := parseTime(ft.Format(time.RFC3339Nano))
		if !ok || !again.Equal(ft.Time) {
			t.Fatalf("%q reads as %v, which written in RFC 3339 reads as %v (%v)", b, ft.Time, again, ok)
		}
	})
}

// FuzzPlatformDate fuzzes the Date header the platform's clock is learned from: a
// date it takes gives an offset that reads back the same.
func FuzzPlatformDate(f *testing.F) {
	for _, a := range readingAnswers(f) {
		if a.date != "" {
			f.Add(a.date)
			break
		}
	}
	for _, s := range []string{"Sat, 28 Nov 2026 03:40:02 GMT", "Saturday, 28-Nov-26 03:40:02 GMT", "Sat Nov 28 03:40:02 2026",
		"Mon, 01 Jan 0001 00:00:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT", "", "yesterday", "Sat, 28 Nov 2026 03:40:02 PST"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, date string) {
		var k platformClock
		now := time.Now()
		within(t, "observing the platform's clock", date, func() { k.observe("platform.example", date, now, now) })
		if _, known := k.offset("platform.example"); known && date == "" {
			t.Fatal("an answer without a Date set the platform's clock")
		}
	})
}
