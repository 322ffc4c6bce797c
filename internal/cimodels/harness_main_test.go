package cimodels

// The models of how CI runners, containers and the guides' recipes stop a run of
// Terraform: the CI runners (suite_ci_runners_test.go), containers and wrappers
// (suite_ci_containers_test.go), the guide's recipe ci-apply.sh (suite_ci_recipe_test.go),
// the guides' GitHub Actions jobs (suite_ci_jobs_test.go) and the corporate-networks
// guide (suite_corporate_guide_test.go). The TestAcc… models run the real CLI and the
// provider binary (make testrunners, after the acceptance tests); the others run the
// stand-in terraform and need no Terraform (make test).

import (
	"flag"
	"os"
	"testing"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/acctest"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/testcollector"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/testparallel"
)

// modelsAtOnce is how many models run at once unless -parallel says otherwise: all of
// them. A model mostly waits (on a runner's delays, a grace period, a held answer: real
// seconds, which are what it asserts) and computes little: at go test's default of one
// test per core, the stand-in models took 84 s of make test on a 2-core machine, two
// at a time, for 16 s of the longest, and TestAccCIRunners waited 45 s for a slot.
const modelsAtOnce = 32

// TestMain runs the tests, or, run as terraform by a model of the CI signals, the
// stand-in terraform (acctest.TerraformStandIn).
func TestMain(m *testing.M) {
	if os.Getenv(acctest.StandInRecordVar) != "" {
		os.Exit(acctest.TerraformStandIn())
	}
	flag.Parse()
	acctest.RefuseSkippedAcc()
	testparallel.Default(modelsAtOnce)
	testcollector.CollectLess() // before CommandsWithoutCollector sets GOGC for the commands
	acctest.CommandsWithoutCollector()
	acctest.CommandsHearStops()
	code := m.Run()
	acctest.RemoveProviderBuild()
	os.Exit(code)
}
