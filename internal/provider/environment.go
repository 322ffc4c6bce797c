package provider

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/client"
)

// toolingEnv are MEDIAPLATFORM_* variables that the project's tools read (the
// acceptance tests against a real platform, the benchmarks), not the provider.
var toolingEnv = []string{"MEDIAPLATFORM_ACC_EXTERNAL", "MEDIAPLATFORM_PPROF_DIR", "MEDIAPLATFORM_BENCH_WRAP_TARGET",
	"MEDIAPLATFORM_BENCH_WRAP_RECORD", "MEDIAPLATFORM_SOAK_SECONDS", "MEDIAPLATFORM_SOAK_SEED"}

// unknownEnvPrefix is the prefix of the provider's environment variables.
const unknownEnvPrefix = "MEDIAPLATFORM_"

// unknownEnv returns the MEDIAPLATFORM_* variables set in environ that neither the
// provider nor its tools read (a misspelt name, say), each with the known variable
// closest to it, in name order.
func unknownEnv(environ []string) [][2]string {
	known := append(client.EnvVariables(), toolingEnv...)
	var out [][2]string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, unknownEnvPrefix) || slices.Contains(known, name) {
			continue
		}
		out = append(out, [2]string{name, closest(name, client.EnvVariables())})
	}
	slices.SortFunc(out, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	return out
}

// unknownEnvWarning is one line per unknown MEDIAPLATFORM_* variable, or "".
func unknownEnvWarning(environ []string) string {
	var lines []string
	for _, u := range unknownEnv(environ) {
		lines = append(lines, fmt.Sprintf("%s is set, but the provider reads no such variable: did you mean %s?", u[0], u[1]))
	}
	return strings.Join(lines, "\n")
}

// misspeltFor returns the unknown MEDIAPLATFORM_* variable whose closest known name
// is env (the variable of a setting reported missing), or "".
func misspeltFor(env string) string {
	for _, u := range unknownEnv(os.Environ()) {
		if u[1] == env {
			return u[0]
		}
	}
	return ""
}

// closest returns the name of names nearest to name by edit distance.
func closest(name string, names []string) string {
	best, bestDist := "", -1
	for _, n := range names {
		if d := editDistance(name, n); bestDist < 0 || d < bestDist {
			best, bestDist = n, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b (bytes: the names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
