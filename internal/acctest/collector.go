package acctest

import "os"

// commandCollector is the collector setting the commands a test process starts
// inherit (CommandsWithoutCollector): no collection until a process's memory reaches
// the limit.
var commandCollector = map[string]string{"GOGC": "off", "GOMEMLIMIT": "1GiB"}

// CommandsWithoutCollector has the commands this process starts from now on (terraform
// above all, and the provider binary it starts) run without Go's garbage collector
// until their memory reaches 1 GiB; call it from TestMain. A terraform command lives a
// fraction of a second and allocates some 60 MB: the collector, starting from a 4 MB
// heap, spends about 40 % of its CPU time (plan, show and apply of the acceptance tests:
// 46 CPU-seconds for 1,052 commands with the default, 26 without), and the acceptance
// tests are bound by CPU on a 2-core machine. Peak memory rose from 77 to 82 MB a
// command. The test process itself keeps its own setting (the environment is read at a
// process's start). A GOGC or GOMEMLIMIT already set is the developer's and is kept.
func CommandsWithoutCollector() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	for name, value := range commandCollector {
		_ = os.Setenv(name, value)
	}
}
