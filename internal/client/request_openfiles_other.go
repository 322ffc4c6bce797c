//go:build !unix

package client

// openFilesLimit is 0 where the process has no open-files limit to read (Windows):
// the connections per host are then capped at maxConnsPerHost only.
func openFilesLimit() uint64 { return 0 }
