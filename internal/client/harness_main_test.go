package client

import (
	"flag"
	"os"
	"runtime"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/testcollector"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/testparallel"
)

// waitingTestsPerCore is how many of the package's parallel tests each core runs at
// once unless -parallel says otherwise. Most of them wait on real seconds: a rate
// limit's window, a Retry-After, a command's steps, a held answer. At go test's
// default of one test per core the package took 71 s under the race detector on a
// 2-core machine, for 103 s of tests; at two per core 44 s, at three 31 s, and at four
// or eight no less (29-34 s). Three, then: more only adds to the contention that the
// tests whose point is a race against the clock (TestCloseUnderASharedRateLimit) meet.
const waitingTestsPerCore = 3

// TestMain runs the package's tests, waitingTestsPerCore to a core, collecting less
// (testcollector).
func TestMain(m *testing.M) {
	flag.Parse()
	testparallel.Default(waitingTestsPerCore * runtime.GOMAXPROCS(0))
	testcollector.CollectLess()
	os.Exit(m.Run())
}
