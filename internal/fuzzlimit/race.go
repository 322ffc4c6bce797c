//go:build race

package fuzzlimit

// raceSlowdown is how much the race detector slows the code it instruments (the Go
// documentation gives 2–20x for execution time; the seeds measured here about 5x).
const raceSlowdown = 10
