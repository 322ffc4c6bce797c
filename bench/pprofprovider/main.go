//go:build unix

// Command pprofprovider is the provider binary with profiling, for the benchmark:
// the same server as the repository's main package, writing a CPU profile and an allocation
// profile (at exit, after a GC) of every provider process into $MEDIAPLATFORM_PPROF_DIR. The
// benchmark builds it with `go run ./bench -profile DIR`.
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/mediaplatform/terraform-provider-mediaplatform/internal/provider"
)

func main() {
	dir := os.Getenv("MEDIAPLATFORM_PPROF_DIR")
	if dir != "" {
		name := filepath.Join(dir, fmt.Sprintf("provider-%d", os.Getpid()))
		f, err := os.Create(name + ".cpu.pprof")
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
			h, err := os.Create(name + ".allocs.pprof")
			if err != nil {
				return
			}
			runtime.GC()
			_ = pprof.Lookup("allocs").WriteTo(h, 0)
			h.Close()
		}()
	}
	err := providerserver.Serve(context.Background(), provider.New("bench"), providerserver.ServeOpts{
		Address: "registry.terraform.io/mediaplatform/mediaplatform",
	})
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	_ = provider.CloseAll(ctx)
	cancel()
	if err != nil {
		log.Print(err)
	}
}
