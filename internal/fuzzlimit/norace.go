//go:build !race

package fuzzlimit

// raceSlowdown is 1 without the race detector.
const raceSlowdown = 1
