package provider

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// The framework's protocol server (terraform-plugin-framework v1.19,
// internal/proto6server) registers a cancel function for the context of every call
// it serves and keeps them all until Terraform stops the provider, so that a stop
// can cancel every call still running. Each of those functions holds the call's
// context whole: the gRPC stream, the loggers terraform-plugin-go and
// terraform-plugin-log attach to it and their fields, about 11 KB a call. A plan of
// 1,000 scores makes four calls a score and ended with 44 to 62 MB of them live in
// the provider (`GODEBUG=gctrace=1`), growing with the size of the configuration.
//
// releaseContexts hands the framework a callContext instead: the call's context as
// long as the call runs, and nothing once it has returned. The framework's cancel
// functions then hold a few dozen bytes a call. Only the calls a configuration makes
// per resource, data source, function call or ephemeral resource are wrapped: the
// calls made once per process keep their context (the configuration's is the
// context of the work shared by many calls, client.SetBackground), and the
// streaming calls (ListResource, InvokeAction) go on after their method returns.

// callContext is a call's context until release, then a context that is done
// (context.Canceled) and holds no values.
type callContext struct {
	parent atomic.Pointer[context.Context]
}

// releasedDone is the Done channel of a released callContext.
var releasedDone = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

func newCallContext(ctx context.Context) *callContext {
	c := &callContext{}
	c.parent.Store(&ctx)
	return c
}

// release lets go of the call's context.
func (c *callContext) release() { c.parent.Store(nil) }

func (c *callContext) Deadline() (time.Time, bool) {
	if p := c.parent.Load(); p != nil {
		return (*p).Deadline()
	}
	return time.Time{}, false
}

func (c *callContext) Done() <-chan struct{} {
	if p := c.parent.Load(); p != nil {
		return (*p).Done()
	}
	return releasedDone
}

func (c *callContext) Err() error {
	if p := c.parent.Load(); p != nil {
		return (*p).Err()
	}
	return context.Canceled
}

func (c *callContext) Value(key any) any {
	if p := c.parent.Load(); p != nil {
		return (*p).Value(key)
	}
	return nil
}

// inCallContext runs call with a callContext of ctx and releases it once call returns.
func inCallContext[Req, Resp any](ctx context.Context, req Req, call func(context.Context, Req) (Resp, error)) (Resp, error) {
	c := newCallContext(ctx)
	defer c.release()
	return call(c, req)
}

// releaseContexts is in front of the framework's protocol server: see above.
type releaseContexts struct {
	protocolServer
}

func (s releaseContexts) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	return inCallContext(ctx, req, s.protocolServer.ValidateResourceConfig)
}

func (s releaseContexts) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	return inCallContext(ctx, req, s.protocolServer.UpgradeResourceState)
}

func (s releaseContexts) UpgradeResourceIdentity(ctx context.Context, req *tfprotov6.UpgradeResourceIdentityRequest) (*tfprotov6.UpgradeResourceIdentityResponse, error) {
	return inCallContext(ctx, req, s.protocolServer.UpgradeResourceIdentity)
}

func (s releaseContexts) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	return inCallContext(ctx, req, s.protocolServer.ReadResource)
}

func (s releaseContexts) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	return inCallContext(ctx, req, s.protocolServer.PlanResourceChange)
}

func (s releaseContexts) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	return inCallContext(ctx, req, s.protocolServer.ApplyResourceChange)
}

func (s releaseContexts) ImportResourceState(ctx context.Context, req *tfprotov6.ImportResourceStateRequest) (*tfprotov6.ImportResourceStateResponse, error) {
	return inCallContext(ctx, req, s.protocolServer.ImportResourceState)
}

func (s releaseContexts) MoveResourceState(ctx context.Context, req *tfprotov6.MoveResourceStateRequest) (*tfprotov6.MoveResourceStateResponse, error) {
	return inCallContext(ctx, req, s.protocolServer.MoveResourceState)
}

func (s releaseContexts) GenerateResourceConfig(ctx context.Context, req *tfprotov6.GenerateResourceConfigRequest) (*tfprotov6.GenerateResourceConfigResponse, error) {
	return inCallContext(ctx, req, s.protocolServer.GenerateResourceConfig)
}

func (s releaseContexts) ValidateDataResourceConfig(ctx context.Context, req *tfprotov6.ValidateDataResourceConfigRequest) (*tfprotov6.ValidateDataResourceConfigResponse, error) {
	return inCallContext(ctx, req, s.protocolServer.ValidateDataResourceConfig)
}

func (s releaseContexts) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	return inCallContext(ctx, req, s.protocolServer.ReadDataSource)
}

func (s releaseContexts) CallFunction(ctx context.Context, req *tfprotov6.CallFunctionRequest) (*tfprotov6.CallFunctionResponse, error) {
	return inCallContext(ctx, req, s.protocolServer.CallFunction)
}

func (s releaseContexts) ValidateEphemeralResourceConfig(ctx context.Context, req *tfprotov6.ValidateEphemeralResourceConfigRequest) (*tfprotov6.ValidateEphemeralResourceConfigResponse, error) {
	return inCallContext(ctx, req, s.protocolServer.ValidateEphemeralResourceConfig)
}

func (s releaseContexts) OpenEphemeralResource(ctx context.Context, req *tfprotov6.OpenEphemeralResourceRequest) (*tfprotov6.OpenEphemeralResourceResponse, error) {
	return inCallContext(ctx, req, s.protocolServer.OpenEphemeralResource)
}

func (s releaseContexts) RenewEphemeralResource(ctx context.Context, req *tfprotov6.RenewEphemeralResourceRequest) (*tfprotov6.RenewEphemeralResourceResponse, error) {
	return inCallContext(ctx, req, s.protocolServer.RenewEphemeralResource)
}

func (s releaseContexts) CloseEphemeralResource(ctx context.Context, req *tfprotov6.CloseEphemeralResourceRequest) (*tfprotov6.CloseEphemeralResourceResponse, error) {
	return inCallContext(ctx, req, s.protocolServer.CloseEphemeralResource)
}

func (s releaseContexts) ValidateListResourceConfig(ctx context.Context, req *tfprotov6.ValidateListResourceConfigRequest) (*tfprotov6.ValidateListResourceConfigResponse, error) {
	return inCallContext(ctx, req, s.protocolServer.ValidateListResourceConfig)
}

func (s releaseContexts) ValidateActionConfig(ctx context.Context, req *tfprotov6.ValidateActionConfigRequest) (*tfprotov6.ValidateActionConfigResponse, error) {
	return inCallContext(ctx, req, s.protocolServer.ValidateActionConfig)
}

func (s releaseContexts) PlanAction(ctx context.Context, req *tfprotov6.PlanActionRequest) (*tfprotov6.PlanActionResponse, error) {
	return inCallContext(ctx, req, s.protocolServer.PlanAction)
}
