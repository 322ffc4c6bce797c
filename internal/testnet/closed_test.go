//go:build unix

package testnet

import (
	"context"
	"errors"
	"net"
	"syscall"
	"testing"
)

// TestClosedAddressRefusesAndIsNotGivenAway: a connection to the address is refused,
// and listeners asking for any port are never given its port while the test runs.
func TestClosedAddressRefusesAndIsNotGivenAway(t *testing.T) {
	addr := ClosedAddress(t)
	_, err := (&net.Dialer{}).DialContext(context.Background(), "tcp", addr)
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("dialling %s: %v, want connection refused", addr, err)
	}
	if l, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", addr); err == nil {
		_ = l.Close()
		t.Fatalf("a listener was given %s, which the closed address holds", addr)
	}
	for range 2000 {
		l, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		got := l.Addr().String()
		_ = l.Close()
		if got == addr {
			t.Fatalf("a listener asking for any port was given %s, which the closed address holds", addr)
		}
	}
}
