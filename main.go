// Command terraform-provider-mediaplatform serves the mediaplatform Terraform provider.
package main

import (
	"context"
	"flag"
	"log"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/provider"
)

// version is set by the release build (goreleaser ldflags).
var version = "dev"

// closeTimeout bounds the logout at the end of the process. Terraform stops a provider
// with a graceful shutdown and kills it about 2 s later, so the logout must finish
// well within that.
const closeTimeout = 1500 * time.Millisecond

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()
	if !debug {
		quietUnreadLogs()
	}

	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: "registry.terraform.io/mediaplatform/mediaplatform",
		Debug:   debug,
	})

	// Serve returns when Terraform shuts the provider down: log out the administrator
	// sessions and remove the platform tokens this process acquired.
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	closeErr := provider.CloseAll(ctx)
	cancel()
	if err != nil {
		log.Fatal(err)
	}
	if closeErr != nil {
		log.Printf("[WARN] closing the platform sessions: %v", closeErr)
	}
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
