//go:build unix

// Package testnet gives tests addresses on this machine's loopback.
package testnet

import (
	"net"
	"strconv"
	"syscall"
	"testing"
)

// ClosedAddress returns a loopback address (host:port) that refuses every connection
// until the test ends: its port is bound and never listened on, so a connection is
// refused (the kernel answers it with a reset), and no server of the test process can
// be given the port while the test runs. A port listened on and closed again can be:
// the kernel hands freed ports to the next listener, and a test beside this one then
// receives the requests meant to be refused (the leads test's token grants reached
// another test's emulator, which then had tokens live at its end).
func ClosedAddress(t testing.TB) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatalf("a socket for a closed address: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Close(fd) })
	// Without SO_REUSEADDR: no other socket may bind the port while this one holds it.
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatalf("binding a closed address: %v", err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatalf("the closed address's port: %v", err)
	}
	in4, ok := sa.(*syscall.SockaddrInet4)
	if !ok {
		t.Fatalf("the closed address is %T, not IPv4", sa)
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(in4.Port))
}
