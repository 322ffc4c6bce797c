// Command terraform-provider-mediaplatform serves the mediaplatform Terraform provider.
package main

import (
	"context"
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/provider"
)

// version is set by the release build (goreleaser ldflags).
var version = "dev"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()

	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: "registry.terraform.io/mediaplatform/mediaplatform",
		Debug:   debug,
	})
	if err != nil {
		log.Fatal(err)
	}
}
