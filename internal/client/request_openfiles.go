//go:build unix

package client

import "syscall"

// openFilesLimit is the number of files (sockets included) this process may hold
// open at once: its soft RLIMIT_NOFILE (`ulimit -n`, a container's or a service's
// nofile), or 0 when it cannot be read or is practically unlimited.
func openFilesLimit() uint64 {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0
	}
	return finiteLimit(rl.Cur)
}

// finiteLimit is a limit as the platform's Rlimit holds it (uint64 on Linux and
// macOS, int64 on FreeBSD), or 0 for none (RLIM_INFINITY, or a negative value).
func finiteLimit[T int64 | uint64](v T) uint64 {
	if v < 0 || uint64(v) >= 1<<62 {
		return 0
	}
	return uint64(v)
}
