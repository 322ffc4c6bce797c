// Package testparallel sets how many of a package's parallel tests run at once, for
// packages whose tests mostly wait. It imports nothing of the project's, so that any
// test package can use it.
package testparallel

import (
	"flag"
	"strconv"
)

// Default sets go test's -parallel to n unless the command line set it; call it
// from TestMain after flag.Parse. Tests that mostly wait (for terraform processes, for a
// runner's delays, for a platform's) would otherwise run one per core, go test's
// default, and leave the cores idle while they wait.
func Default(n int) {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", strconv.Itoa(n))
	}
}
