package provider

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
)

type ctxKey struct{}

// recordingResources records the context each ReadResource got.
type recordingResources struct {
	protocolServer
	got    context.Context
	during struct {
		value    any
		err      error
		deadline bool
	}
}

func (s *recordingResources) ReadResource(ctx context.Context, _ *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	s.got = ctx
	s.during.value = ctx.Value(ctxKey{})
	s.during.err = ctx.Err()
	_, s.during.deadline = ctx.Deadline()
	return &tfprotov6.ReadResourceResponse{}, nil
}

// TestCallContext: during the call the framework sees the call's context (values,
// deadline, cancellation); after it, a context that is done and holds nothing, so
// that what the framework keeps of it does not keep the call's context alive.
func TestCallContext(t *testing.T) {
	rec := &recordingResources{}
	s := releaseContexts{rec}
	ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), ctxKey{}, "value"), time.Hour)
	defer cancel()
	if _, err := s.ReadResource(ctx, &tfprotov6.ReadResourceRequest{}); err != nil {
		t.Fatal(err)
	}
	if rec.during.value != "value" || rec.during.err != nil || !rec.during.deadline {
		t.Errorf("during the call: value %v, err %v, deadline %v; want the call's", rec.during.value, rec.during.err, rec.during.deadline)
	}
	got := rec.got
	if got.Value(ctxKey{}) != nil || !errors.Is(got.Err(), context.Canceled) {
		t.Errorf("after the call: value %v, err %v; want none, context.Canceled", got.Value(ctxKey{}), got.Err())
	}
	select {
	case <-got.Done():
	default:
		t.Error("after the call the context is not done")
	}
	if _, ok := got.Deadline(); ok {
		t.Error("after the call the context has a deadline")
	}

	// A context derived during the call is cancelled with the call's.
	callCtx, stop := context.WithCancel(context.Background())
	c := newCallContext(callCtx)
	derived, cancelDerived := context.WithCancel(c)
	defer cancelDerived()
	stop()
	select {
	case <-derived.Done():
	case <-time.After(5 * time.Second):
		t.Error("a context derived from the call's was not cancelled with it")
	}
	c.release()
}

// TestCallContextsAreReleased makes 3,000 calls through the real protocol stack
// (terraform-plugin-go's gRPC server, the framework's server) and measures what stays
// live: the framework keeps every call's cancel function until the provider stops,
// which without releaseContexts keeps about 13 KB a call (40 MB here).
func TestCallContextsAreReleased(t *testing.T) {
	for _, name := range []string{"TF_LOG", "TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_PROVIDER"} {
		t.Setenv(name, "OFF")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reattach := make(chan *plugin.ReattachConfig, 1)
	closed := make(chan struct{})
	go func() {
		_ = tf6server.Serve("registry.terraform.io/mediaplatform/mediaplatform", func() tfprotov6.ProviderServer {
			s, err := wrapServer(providerserver.NewProtocol6(New("test")())())
			if err != nil {
				panic(err)
			}
			return s
		}, tf6server.WithDebug(ctx, reattach, closed), tf6server.WithoutLogStderrOverride())
	}()
	var rc *plugin.ReattachConfig
	select {
	case rc = <-reattach:
	case <-time.After(30 * time.Second):
		t.Fatal("the provider server did not start")
	}
	conn, err := grpc.NewClient("unix:"+rc.Addr.String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// The generated client of tfplugin6 is internal to terraform-plugin-go: the call is
	// made with the message types it registers.
	reqType, err := protoregistry.GlobalTypes.FindMessageByName("tfplugin6.ValidateResourceConfig.Request")
	if err != nil {
		t.Fatal(err)
	}
	respType, err := protoregistry.GlobalTypes.FindMessageByName("tfplugin6.ValidateResourceConfig.Response")
	if err != nil {
		t.Fatal(err)
	}
	call := func() {
		req, resp := dynamicpb.NewMessage(reqType.Descriptor()), dynamicpb.NewMessage(respType.Descriptor())
		if err := conn.Invoke(context.Background(), "/tfplugin6.Provider/ValidateResourceConfig", req, resp); err != nil {
			t.Fatal(err)
		}
	}
	live := func() int64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return int64(ms.HeapAlloc)
	}
	for range 100 {
		call()
	}
	before := live()
	const calls = 3000
	for range calls {
		call()
	}
	grown := live() - before
	t.Logf("live heap grew by %d KB over %d calls", grown>>10, calls)
	if grown > 4<<20 {
		t.Errorf("the live heap grew by %d KB over %d calls (%d bytes a call): the calls' contexts are kept", grown>>10, calls, grown/calls)
	}
}
