// Package fuzzlimit holds the time one call of a fuzz target may take before the
// input counts as a defect (issue 53: "an input that takes more than a second is a
// defect"). While go test fuzzes (-test.fuzz), the limit is that second. When the
// seed corpora run as ordinary tests (make test: with the race detector, beside the
// other packages, on a machine that may be four times slower than a developer's),
// the same second is scaled by those factors, so that a seed fails for its input and
// not for the machine it ran on.
package fuzzlimit

import (
	"flag"
	"time"
)

// Second is the limit while fuzzing.
const Second = time.Second

// slowMachine is how much slower than a developer's a machine running the suite may be.
const slowMachine = 4

// Limit is how long one call of a fuzz target may take here.
func Limit() time.Duration {
	if f := flag.Lookup("test.fuzz"); f != nil && f.Value.String() != "" {
		return Second
	}
	return Second * slowMachine * raceSlowdown
}
