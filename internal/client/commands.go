package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"
)

// Command lifecycle values.
const (
	LifecyclePending   = "pending"
	LifecycleRunning   = "running"
	LifecycleFinished  = "finished"
	LifecycleError     = "error"
	LifecycleSuspended = "suspended"
)

// lifecycles are the lifecycle values the specification names. A lifecycle is read
// in any case and kept in this spelling (namedValue); any other is unknown, and
// waited out.
var lifecycles = []string{LifecyclePending, LifecycleRunning, LifecycleFinished, LifecycleError, LifecycleSuspended}

// Error causes the specification names; read in any case and kept in this spelling.
const (
	CauseRuntimeError = "runtimeError"
	CauseTimeout      = "timeout"
	CauseCanceled     = "canceled"
	CauseRejected     = "rejected"
)

// Command is the command resource (command:command) of a long-running or
// bulk command.
type Command struct {
	// Version of the command structure, "1.0".
	Version string `json:"version"`
	// Command is the command's status.
	Command CommandInfo `json:"command"`
	// Payload holds command-specific information, if any.
	Payload *CommandPayload `json:"payload,omitempty"`
	// Links are the resource's links: self, command:cancel, curies and links
	// to affected resources.
	Links Links `json:"_links"`
	// Embedded holds embedded affected resources as returned.
	Embedded json.RawMessage `json:"_embedded,omitempty"`
	// Raw is the whole resource as the API returned it.
	Raw json.RawMessage `json:"-"`
}

// CommandInfo is the status of a command (the resource's "command" object).
type CommandInfo struct {
	ID string
	// Type is the command type name, e.g. "publishing:purge".
	Type string
	// Lifecycle is one of the Lifecycle values.
	Lifecycle string
	// Progress is the percentage done, 0 to 100 (nil when not given).
	Progress *int
	// State is the current execution step (nil when not given).
	State *CommandState
	// Created, Modified and Finished are zero when not given; Finished is set
	// once the lifecycle is finished or error.
	Created  time.Time
	Modified time.Time
	Finished time.Time
	// Creator is the account that started the command.
	Creator string
	// Host, ServiceName, ServiceVersion and ServiceInstance describe the
	// handling service.
	Host            string
	ServiceName     string
	ServiceVersion  string
	ServiceInstance string
	// Error describes the failure when the lifecycle is error.
	Error *CommandError
}

// CommandState is a command's current execution step.
type CommandState struct {
	// Text is the English text of the step.
	Text string
	// Code is the message code.
	Code string
	// Params are the parameters of a localized text; bulk commands carry
	// totalCount, successCount and failureCount here. The spec names the field
	// both "param" and "params"; either is read.
	Params map[string]any
}

// CommandError describes a failed command.
type CommandError struct {
	// Cause is one of runtimeError, timeout, canceled, rejected.
	Cause string `json:"cause,omitempty"`
	// HTTPCode is the status a synchronous call would return (0 when absent).
	HTTPCode int `json:"httpCode,omitempty"`
	// Text is the human-readable error text.
	Text string `json:"text"`
	// Code is the message code, shaped <namespace>/<NAME>.
	Code string `json:"code"`
	// Params are the parameters of a localized text.
	Params map[string]any `json:"params,omitempty"`
}

// CommandPayload is a command's additional information.
type CommandPayload struct {
	// Parameters are the parameters the command was started with
	// (command-parameters), as returned.
	Parameters json.RawMessage `json:"command-parameters,omitempty"`
	// Result holds one entry per entity for bulk commands.
	Result []BulkResult `json:"result,omitempty"`
	// Raw is the whole payload as returned (other command-specific fields).
	Raw json.RawMessage `json:"-"`
}

// BulkResult is the outcome of a bulk command for one entity.
type BulkResult struct {
	// Success says whether the action succeeded for this entity.
	Success bool
	// Data is the entity's result data (empty on failure).
	Data string
	// HTTPStatus, ErrorCode and ErrorMessage describe a failure.
	HTTPStatus   int
	ErrorCode    string
	ErrorMessage string
}

// BulkCounts are the counts a bulk command reports in its state params.
type BulkCounts struct {
	Total   int
	Success int
	Failure int
}

// UnmarshalJSON reads the resource and keeps it in Raw.
func (c *Command) UnmarshalJSON(b []byte) error {
	type plain Command
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*c = Command(p)
	c.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// UnmarshalJSON reads the wire form of the command status.
func (ci *CommandInfo) UnmarshalJSON(b []byte) error {
	var w struct {
		ID              string        `json:"id"`
		Type            string        `json:"type"`
		Lifecycle       string        `json:"lifecycle"`
		Progress        maybeInt      `json:"progress"`
		State           *CommandState `json:"state"`
		Created         flexTime      `json:"created"`
		Modified        flexTime      `json:"modified"`
		Finished        flexTime      `json:"finished"`
		Creator         string        `json:"creator"`
		Host            string        `json:"host"`
		ServiceName     string        `json:"serviceName"`
		ServiceVersion  string        `json:"serviceVersion"`
		ServiceInstance string        `json:"serviceInstance"`
		Error           *CommandError `json:"error"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*ci = CommandInfo{
		ID: w.ID, Type: w.Type, Lifecycle: namedValue(w.Lifecycle, lifecycles...), Progress: w.Progress.ptr(), State: w.State,
		Created: w.Created.Time, Modified: w.Modified.Time, Finished: w.Finished.Time,
		Creator: w.Creator, Host: w.Host, ServiceName: w.ServiceName,
		ServiceVersion: w.ServiceVersion, ServiceInstance: w.ServiceInstance, Error: w.Error,
	}
	return nil
}

// UnmarshalJSON reads the error; httpCode in any integer form (flexInt), and a cause
// the specification names in any case (namedValue).
func (e *CommandError) UnmarshalJSON(b []byte) error {
	type plain CommandError
	var w struct {
		plain
		HTTPCode flexInt `json:"httpCode"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*e = CommandError(w.plain)
	e.HTTPCode = int(w.HTTPCode)
	e.Cause = namedValue(e.Cause, CauseRuntimeError, CauseTimeout, CauseCanceled, CauseRejected)
	return nil
}

// UnmarshalJSON reads "params", or "param" when "params" is absent.
func (s *CommandState) UnmarshalJSON(b []byte) error {
	var w struct {
		Text   string         `json:"text"`
		Code   string         `json:"code"`
		Params map[string]any `json:"params"`
		Param  map[string]any `json:"param"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*s = CommandState{Text: w.Text, Code: w.Code, Params: w.Params}
	if s.Params == nil {
		s.Params = w.Param
	}
	return nil
}

// UnmarshalJSON reads the payload and keeps it in Raw.
func (p *CommandPayload) UnmarshalJSON(b []byte) error {
	type plain CommandPayload
	var w plain
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*p = CommandPayload(w)
	p.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// UnmarshalJSON reads a bulk result; a non-string data value is kept as its
// JSON text.
func (r *BulkResult) UnmarshalJSON(b []byte) error {
	var w struct {
		Success      bool            `json:"success"`
		Data         json.RawMessage `json:"data"`
		HTTPStatus   flexInt         `json:"httpStatus"`
		ErrorCode    string          `json:"errorCode"`
		ErrorMessage string          `json:"errorMessage"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*r = BulkResult{Success: w.Success, HTTPStatus: int(w.HTTPStatus), ErrorCode: w.ErrorCode, ErrorMessage: w.ErrorMessage}
	if len(w.Data) > 0 && string(w.Data) != "null" {
		if err := json.Unmarshal(w.Data, &r.Data); err != nil {
			r.Data = string(w.Data)
		}
	}
	return nil
}

// Terminal reports whether the lifecycle is finished or error. A suspended
// command is not terminal: it can be resumed.
func (ci CommandInfo) Terminal() bool {
	return ci.Lifecycle == LifecycleFinished || ci.Lifecycle == LifecycleError
}

// BulkCounts returns totalCount, successCount and failureCount from the state
// params; ok is false when none of them is present.
func (c *Command) BulkCounts() (counts BulkCounts, ok bool) {
	if c.Command.State == nil {
		return BulkCounts{}, false
	}
	p := c.Command.State.Params
	var ok1, ok2, ok3 bool
	counts.Total, ok1 = intParam(p, "totalCount")
	counts.Success, ok2 = intParam(p, "successCount")
	counts.Failure, ok3 = intParam(p, "failureCount")
	return counts, ok1 || ok2 || ok3
}

// intParam reads an integer parameter in any form integerValue takes (a number
// decoded as float64 is an integer when it has no fraction).
func intParam(params map[string]any, key string) (int, bool) {
	switch v := params[key].(type) {
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			return int(v), true
		}
	case json.Number:
		if n, ok := parseInteger(string(v)); ok {
			return int(n), true
		}
	case string:
		if n, ok := parseInteger(strings.TrimSpace(v)); ok {
			return int(n), true
		}
	}
	return 0, false
}

// GetCommand reads a command by id through the registry's
// command:command-by-id template. A missing command gives an error for which
// IsNotFound holds.
func (c *Client) GetCommand(ctx context.Context, id string) (*Command, error) {
	if id == "" {
		return nil, errors.New("no command id given")
	}
	href, err := c.expand(ctx, relCommandByID, map[string]string{"id": id})
	if err != nil {
		return nil, err
	}
	return c.getCommand(ctx, href)
}

// GetCommandByHref reads a command from its address, e.g. a link found in
// another resource. A relative href is resolved against platform_url; an
// absolute one must point at the platform (platform_url, registry_url or an
// address the registry lists), since the request carries the access token.
func (c *Client) GetCommandByHref(ctx context.Context, href string) (*Command, error) {
	u, err := c.commandHref(ctx, href)
	if err != nil {
		return nil, err
	}
	return c.getCommand(ctx, u)
}

func (c *Client) getCommand(ctx context.Context, href string) (*Command, error) {
	var cmd Command
	resp, err := c.do(ctx, &request{method: http.MethodGet, url: href, auth: authPlatform}, &cmd)
	if err != nil {
		return nil, err
	}
	if cmd.Command.ID == "" {
		// Any other document (a token's information, say) must not pass for a command.
		return nil, fmt.Errorf("GET %s: the answer is not a command resource (it has no command object)", pathOf(resp.url))
	}
	return &cmd, nil
}

// commandHref resolves href like platformHref and checks that it addresses the
// command service: it must lie under the base of the registry's
// command:command-by-id template, not at any other platform path.
func (c *Client) commandHref(ctx context.Context, href string) (string, error) {
	u, err := c.platformHref(ctx, href)
	if err != nil {
		return "", err
	}
	roots, err := c.serviceRoots(ctx)
	if err != nil {
		return "", err
	}
	var bases []string
	for _, e := range roots.resources[relCommandByID] {
		prefix, _, _ := strings.Cut(e.Href, "{")
		if base, err := resolveHref(roots.url, prefix); err == nil && base != "" {
			bases = append(bases, base)
			if strings.HasPrefix(u, base) && len(u) > len(base) {
				return u, nil
			}
		}
	}
	if len(bases) == 0 {
		return "", fmt.Errorf("the service registry has no %s resource", relCommandByID)
	}
	return "", fmt.Errorf("href %q does not address a command of the platform's command service (%s…)", redactURL(href), redactURL(bases[0]))
}

// CancelCommand cancels a command through its command:cancel link and returns
// the resulting resource (lifecycle error, cause canceled). A command that is
// already canceled is returned as it is; cancelling one that ended otherwise
// gives an error for which IsForbidden holds.
func (c *Client) CancelCommand(ctx context.Context, cmd *Command) (*Command, error) {
	if cmd == nil {
		return nil, errors.New("no command given")
	}
	link, ok := cmd.Links.First("command:cancel")
	if !ok {
		return nil, fmt.Errorf("command %s has no command:cancel link", cmd.Command.ID)
	}
	href, err := c.commandHref(ctx, link.Href)
	if err != nil {
		return nil, err
	}
	var out Command
	resp, err := c.do(ctx, &request{method: http.MethodDelete, url: href, auth: authPlatform}, &out)
	if IsForbidden(err) {
		// A retried DELETE whose first attempt went through finds the command
		// already canceled; that is the outcome asked for.
		if now, rerr := c.refreshCommand(ctx, cmd); rerr == nil && now.Command.Error != nil && now.Command.Error.Cause == CauseCanceled {
			return now, nil
		}
	}
	if err != nil {
		return nil, err
	}
	if len(strings.TrimSpace(string(resp.body))) == 0 {
		return c.refreshCommand(ctx, cmd)
	}
	return &out, nil
}

// WaitForCommand polls a command, backing off from 100 ms to 2 s, until its
// lifecycle is finished or error, and returns it (a failed command is
// returned as a command, not as an error). Suspended is not terminal: a
// suspended command is polled until it resumes and ends or ctx ends. When ctx
// ends first it returns the last command read with the context's error.
func (c *Client) WaitForCommand(ctx context.Context, cmd *Command) (*Command, error) {
	if cmd == nil {
		return nil, errors.New("no command given")
	}
	read := false // the command given is the first one looked at
	err := poll(ctx, func() (bool, error) {
		if read {
			next, err := c.refreshCommand(ctx, cmd)
			if err != nil {
				return false, err
			}
			cmd = next
		}
		read = true
		return cmd.Command.Terminal(), nil
	}, func() string {
		return fmt.Sprintf("waiting for command %s (lifecycle %s)", cmd.Command.ID, cmd.Command.Lifecycle)
	})
	return cmd, err
}

// refreshCommand reads cmd again from its self link, or by id.
func (c *Client) refreshCommand(ctx context.Context, cmd *Command) (*Command, error) {
	if self, ok := cmd.Links.First("self"); ok && self.Href != "" {
		return c.GetCommandByHref(ctx, self.Href)
	}
	return c.GetCommand(ctx, cmd.Command.ID)
}
