package acctest

import (
	"os"
	"os/signal"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/stopsignals"
)

// CommandsHearStops has the commands this process starts from now on (terraform, the
// provider binary, the runners' models) begin with the default action of every signal
// in stopsignals.Stops; call it from TestMain. A process started with SIGHUP or SIGINT
// ignored (under nohup; a shell's background job) passes the ignoring on through exec
// (the Go runtime handles the other signals whatever their action at start, and a
// handled signal starts at its default in a command), and the tests that stop
// Terraform with that signal would meet a Terraform it cannot reach: a clean-clone
// .ci/run started under nohup failed with "terraform still runs a minute after
// hangup". So each ignored one is caught here, and dropped: this process goes on
// ignoring it, as it was started to.
func CommandsHearStops() {
	var ignored []os.Signal
	for _, s := range stopsignals.Stops {
		if signal.Ignored(s) {
			ignored = append(ignored, s)
		}
	}
	if len(ignored) == 0 {
		return
	}
	// Nobody reads the channel: once it holds one, Notify drops the rest.
	signal.Notify(make(chan os.Signal, 1), ignored...)
}
