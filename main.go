// Command terraform-provider-mediaplatform serves the mediaplatform Terraform provider.
package main

import (
	"context"
	"flag"
	"log"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/earlysignals"
	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/provider"
)

// version is set by the release build (goreleaser ldflags).
var version = "dev"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()
	if debug {
		earlysignals.Restore()
	}

	if err := provider.Serve(context.Background(), version, debug); err != nil {
		log.Fatal(err)
	}
}
