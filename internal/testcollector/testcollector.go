// Package testcollector sets how often a test process collects its garbage.
package testcollector

import (
	"os"
	"runtime/debug"
)

// percent is the collector's target for a test process: a collection once the heap
// has grown to five times the data live after the last one (GOGC=400), not twice.
const percent = 400

// CollectLess has this test process collect garbage at GOGC=400 unless GOGC or
// GOMEMLIMIT is set (the developer's choice, kept); call it from TestMain, before
// acctest.CommandsWithoutCollector, which sets GOGC in the environment for the commands
// the process starts. Those commands keep their own setting: this changes only the
// process that calls it. The test processes of the acceptance runs and of the client's
// tests allocate steadily (in-process emulators and providers, the JSON of every
// terraform show) over a heap of some tens of MB, on machines where the tests are
// bound by CPU. Measured 2026-11-29, TestAccAnswerMembers alone (-test.cpuprofile,
// two runs each): the test process spent 6.8 and 7.9 CPU-s at the default target, the
// background mark workers 13-14 % of it; 5.5 and 5.6 at GOGC=400, the workers 5 %.
func CollectLess() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(percent)
}
