//go:build unix

// Command pprofprovider is the provider binary with profiling, for the benchmark:
// the same server as the repository's main package (provider.Serve), writing a CPU profile and an allocation
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
	if err := provider.Serve(context.Background(), "bench", false); err != nil {
		log.Print(err)
	}
}
