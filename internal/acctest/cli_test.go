package acctest

import (
	"slices"
	"strings"
	"testing"
)

// TestCleanEnv leaves out what would change Terraform or the provider: a developer's
// TF_* and MEDIAPLATFORM_* settings and the proxy variables in either case.
func TestCleanEnv(t *testing.T) {
	for _, kv := range []string{"TF_LOG=trace", "MEDIAPLATFORM_ADMIN_URL=https://x", "https_proxy=http://p", "NO_PROXY=*", "ACCTEST_KEPT=1"} {
		name, value, _ := strings.Cut(kv, "=")
		t.Setenv(name, value)
	}
	env := CleanEnv()
	for _, gone := range []string{"TF_LOG=trace", "MEDIAPLATFORM_ADMIN_URL=https://x", "https_proxy=http://p", "NO_PROXY=*"} {
		if slices.Contains(env, gone) {
			t.Errorf("CleanEnv kept %s", gone)
		}
	}
	if !slices.Contains(env, "ACCTEST_KEPT=1") {
		t.Error("CleanEnv dropped ACCTEST_KEPT=1")
	}
}
