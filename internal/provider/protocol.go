package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// protocolServer is every protocol service the provider offers: the framework's
// server implements them all, and a wrapper must forward them all, or Terraform is
// told that list resources or actions are not implemented.
type protocolServer interface {
	tfprotov6.ProviderServer
	tfprotov6.ListResourceServer
	tfprotov6.ActionServer
}

// wrapServer puts the provider's protocol wrappers in front of the framework's
// protocol server: nullArguments, encodedResults, tighterCollection and releaseContexts.
func wrapServer(server tfprotov6.ProviderServer) (tfprotov6.ProviderServer, error) {
	full, ok := server.(protocolServer)
	if !ok {
		return nil, fmt.Errorf("the protocol server %T lacks list resource or action support", server)
	}
	return nullArguments{encodedResults{tighterCollection{releaseContexts{full}}}}, nil
}

// msgpackNull is the MessagePack encoding of a null value, of any type.
var msgpackNull = []byte{0xc0}

// nullArguments is the protocol server in front of the framework's. OpenTofu leaves a
// null function argument out of the call (no value at all: nil once decoded) where
// Terraform sends an encoded null; the framework fails on the missing value, so
// without this `localized_label(null, …)` fails on OpenTofu. It turns a missing or
// empty argument into an encoded null, once, for every function.
type nullArguments struct {
	protocolServer
}

// CallFunction encodes empty arguments as null, then calls the function.
func (s nullArguments) CallFunction(ctx context.Context, req *tfprotov6.CallFunctionRequest) (*tfprotov6.CallFunctionResponse, error) {
	if req != nil {
		for i, arg := range req.Arguments {
			if arg == nil || (len(arg.MsgPack) == 0 && len(arg.JSON) == 0) {
				req.Arguments[i] = &tfprotov6.DynamicValue{MsgPack: msgpackNull}
			}
		}
	}
	return s.protocolServer.CallFunction(ctx, req)
}
