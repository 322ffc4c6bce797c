package fuzzlimit

import (
	"testing"
	"time"
)

// TestLimit: an ordinary test run (not fuzzing) gets the second scaled for a slow
// machine and, under the race detector, for it too.
func TestLimit(t *testing.T) {
	if got, want := Limit(), time.Duration(slowMachine*raceSlowdown)*time.Second; got != want {
		t.Fatalf("Limit() = %v, want %v", got, want)
	}
}
