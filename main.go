// Command terraform-provider-mediaplatform serves the mediaplatform Terraform provider.
package main

import (
	"context"
	"flag"
	"log"
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
