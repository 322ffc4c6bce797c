package provider

import (
	"context"
	"log"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
)

// Address is the provider's registry address.
const Address = "registry.terraform.io/mediaplatform/mediaplatform"

// closeTimeout bounds the logout at the end of the process. Terraform stops a provider
// with a graceful shutdown and kills it about 2 s later, so the logout must finish
// well within that.
const closeTimeout = 1500 * time.Millisecond

// Serve runs the provider as a Terraform plugin until Terraform shuts it down, then
// logs out the administrator sessions and removes the platform tokens the process
// acquired (the specification's required sequence). With debug, it serves a debugger
// session instead and leaves the log levels alone.
func Serve(ctx context.Context, version string, debug bool) error {
	if !debug {
		quietUnreadLogs()
	}
	err := providerserver.Serve(ctx, New(version), providerserver.ServeOpts{Address: Address, Debug: debug})

	closeCtx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	if closeErr := CloseAll(closeCtx); closeErr != nil {
		// Not a failure of the run: the sessions and tokens expire on their own.
		log.Printf("[WARN] closing the platform sessions: %v", closeErr)
	}
	return err
}

// quietUnreadLogs switches the plugin libraries' and the provider's logs off when no
// TF_LOG variable asks for them. Terraform then discards every provider log line, yet
// the libraries would still format and send a TRACE line for each call: profiles put
// that at about a quarter of the provider's CPU time in a large refresh
// (BENCHMARKS.md). With any TF_LOG variable set, the levels stay as the user chose.
func quietUnreadLogs() {
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "TF_LOG=") || strings.HasPrefix(kv, "TF_LOG_PROVIDER") || strings.HasPrefix(kv, "TF_LOG_SDK") {
			return
		}
	}
	for _, name := range []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_PROVIDER_MEDIAPLATFORM"} {
		_ = os.Setenv(name, "OFF")
	}
}
