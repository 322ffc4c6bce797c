package emulator

// Section D of the contract: the command resource under platform_url, and the
// scripted commands of section G (POST /_emulator/commands) that drive it.
//
// A command does not run anything. It follows its script on the emulator's clock:
// step i is current from created + the durations of the steps before it. A command
// is evaluated whenever it is read, so nothing runs in the background.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// cmdResourcePrefix is the path of a command without its id; the registry's
// command:command-by-id template points here.
const cmdResourcePrefix = "/apis/commands;version=1;realm=global/commands/"

// The service fields reported by every command. serviceName comes from the
// namespace of the command type.
const (
	cmdServiceVersion  = "2.0.0"
	cmdServiceInstance = "i-1"
)

// Command lifecycles (spec, "Command lifecycle").
const (
	lifecyclePending   = "pending"
	lifecycleRunning   = "running"
	lifecycleFinished  = "finished"
	lifecycleError     = "error"
	lifecycleSuspended = "suspended"
)

// CommandPath returns the path of the command with the given id on the emulator's
// listener (platform_url + CommandPath(id) is the command's address).
func CommandPath(id string) string { return cmdResourcePrefix + url.PathEscape(id) }

// CommandScript describes a scripted command. It is also the JSON body of
// POST /_emulator/commands, with the same field names:
//
//	{"type": "publishing:purge", "creator": "alice",
//	 "parameters": {"ids": ["a", "b"]},
//	 "steps": [
//	   {"lifecycle": "pending", "progress": 0, "duration": "200ms"},
//	   {"lifecycle": "running", "progress": 50, "durationMs": 200,
//	    "state": {"text": "Purging", "code": "publishing/PURGING", "params": {"done": 1}}},
//	   {"lifecycle": "finished", "progress": 100}],
//	 "error": {"cause": "runtimeError", "httpCode": 500, "text": "…",
//	           "code": "publishing/INTERNAL_SERVER_ERROR", "params": {}},
//	 "results": [{"success": true, "data": "a"},
//	             {"success": false, "data": "", "httpStatus": 409,
//	              "errorCode": "datamodel/THUMBNAIL_CHANGED", "errorMessage": "…"}]}
//
// Only steps is required. Unknown fields are ignored.
type CommandScript struct {
	// Type is command.type, e.g. "publishing:purge". Its namespace (the part before
	// ':') is reported as serviceName; default serviceName is "commands".
	Type string `json:"type,omitempty"`
	// Creator is command.creator; omitted when empty.
	Creator string `json:"creator,omitempty"`
	// Parameters is payload.command-parameters ({} when nil).
	Parameters map[string]any `json:"parameters,omitempty"`
	// Steps is the ordered script, at least one step. The last step holds forever,
	// and so does a suspended step without a duration (steps after it are never
	// reached). A finished or error step must be the last one.
	Steps []CommandStep `json:"steps"`
	// Error is command.error once the script reaches an error step. Empty fields get
	// defaults: cause runtimeError, text "the command failed", code
	// commands/INTERNAL_SERVER_ERROR; without Error at all, httpCode is 500 too.
	Error *CommandError `json:"error,omitempty"`
	// Results makes the command a bulk command: once it reaches finished,
	// payload.result holds these entries and state.params gets totalCount,
	// successCount and failureCount. A non-nil empty slice is a bulk command over
	// no entities.
	Results []CommandResult `json:"results,omitempty"`
}

// CommandStep is one step of a CommandScript.
//
// In JSON the duration is given as "duration", either a Go duration string
// ("200ms", "1.5s") or a number of milliseconds, or as "durationMs", a number of
// milliseconds; not both. A missing duration is zero: the step is skipped at once,
// unless it is the last step or a suspended step, which then hold forever.
type CommandStep struct {
	// Lifecycle is one of pending, running, finished, error, suspended.
	Lifecycle string `json:"lifecycle"`
	// Progress is command.progress, 0 to 100.
	Progress int `json:"progress"`
	// State is command.state while the step is current. Empty text and code get a
	// default derived from the lifecycle, e.g. "Running" and "commands/RUNNING".
	State *CommandStepState `json:"state,omitempty"`
	// Duration is how long the step is current.
	Duration time.Duration `json:"-"`

	// invalid records a field of the step's JSON that could not be decoded, so that
	// validation can name it with the step's index.
	invalid *ScriptError
}

// CommandStepState is command.state: the current execution step.
type CommandStepState struct {
	Text   string         `json:"text"`
	Code   string         `json:"code"`
	Params map[string]any `json:"params"`
}

// CommandError is command.error.
type CommandError struct {
	// Cause is one of runtimeError, timeout, canceled, rejected.
	Cause string `json:"cause,omitempty"`
	// HTTPCode is the status a synchronous call would return; omitted when 0.
	HTTPCode int            `json:"httpCode,omitempty"`
	Text     string         `json:"text"`
	Code     string         `json:"code"`
	Params   map[string]any `json:"params"`
}

// CommandResult is one entry of a bulk command's payload.result. On success only
// Success and Data are reported (the other fields are ignored); a failure needs
// an empty Data, HTTPStatus 400–599, ErrorCode and ErrorMessage.
type CommandResult struct {
	Success      bool   `json:"success"`
	Data         string `json:"data"`
	HTTPStatus   int    `json:"httpStatus,omitempty"`
	ErrorCode    string `json:"errorCode,omitempty"`
	ErrorMessage string `json:"errorMessage,omitempty"`
}

// ScriptError reports an invalid CommandScript. Field names the offending field,
// e.g. "steps[1].progress"; POST /_emulator/commands answers it with 400
// emulator/BAD_ARGUMENT carrying Field in params.field.
type ScriptError struct {
	Field   string
	Message string
}

func (e *ScriptError) Error() string { return e.Field + ": " + e.Message }

// UnmarshalJSON decodes a step, accepting "duration" (duration string or
// milliseconds) and "durationMs" (milliseconds).
func (s *CommandStep) UnmarshalJSON(b []byte) error {
	var w struct {
		Lifecycle  string            `json:"lifecycle"`
		Progress   int               `json:"progress"`
		State      *CommandStepState `json:"state"`
		Duration   json.RawMessage   `json:"duration"`
		DurationMs json.RawMessage   `json:"durationMs"`
	}
	err := json.Unmarshal(b, &w)
	*s = CommandStep{Lifecycle: w.Lifecycle, Progress: w.Progress, State: w.State}
	if ute := (*json.UnmarshalTypeError)(nil); errors.As(err, &ute) {
		// Reported by validate with the step's index.
		s.invalid = &ScriptError{Field: ute.Field, Message: "has the wrong JSON type: " + ute.Value + " given"}
		return nil
	}
	if err != nil {
		return err
	}
	s.Duration, s.invalid = decodeStepDuration(w.Duration, w.DurationMs)
	return nil
}

// MarshalJSON encodes a step with its duration as a duration string.
func (s CommandStep) MarshalJSON() ([]byte, error) {
	w := struct {
		Lifecycle string            `json:"lifecycle"`
		Progress  int               `json:"progress"`
		State     *CommandStepState `json:"state,omitempty"`
		Duration  string            `json:"duration,omitempty"`
	}{Lifecycle: s.Lifecycle, Progress: s.Progress, State: s.State}
	if s.Duration != 0 {
		w.Duration = s.Duration.String()
	}
	return json.Marshal(w)
}

// maxDurationMs keeps a duration in milliseconds within time.Duration.
const maxDurationMs = float64(math.MaxInt64 / int64(time.Millisecond))

func decodeStepDuration(duration, durationMs json.RawMessage) (time.Duration, *ScriptError) {
	given := func(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }
	switch {
	case given(duration) && given(durationMs):
		return 0, &ScriptError{Field: "duration", Message: "give either duration or durationMs, not both"}
	case given(durationMs):
		d, ok := millis(durationMs)
		if !ok {
			return 0, &ScriptError{Field: "durationMs", Message: "must be a number of milliseconds"}
		}
		return d, nil
	case given(duration):
		var text string
		if json.Unmarshal(duration, &text) == nil {
			d, err := time.ParseDuration(text)
			if err != nil {
				return 0, &ScriptError{Field: "duration", Message: fmt.Sprintf("%q is not a duration such as \"200ms\"", text)}
			}
			return d, nil
		}
		d, ok := millis(duration)
		if !ok {
			return 0, &ScriptError{Field: "duration", Message: "must be a duration string such as \"200ms\" or a number of milliseconds"}
		}
		return d, nil
	}
	return 0, nil
}

// millis decodes a JSON number of milliseconds.
func millis(raw json.RawMessage) (time.Duration, bool) {
	var ms float64
	if err := json.Unmarshal(raw, &ms); err != nil || math.Abs(ms) > maxDurationMs {
		return 0, false
	}
	return time.Duration(ms * float64(time.Millisecond)), true
}

// validate checks a script and returns a copy that shares nothing with s.
func (s CommandScript) validate() (CommandScript, error) {
	out := CommandScript{Type: s.Type, Creator: s.Creator}
	var err error
	if out.Parameters, err = cloneJSONObject(s.Parameters); err != nil {
		return out, &ScriptError{Field: "parameters", Message: err.Error()}
	}
	if len(s.Steps) == 0 {
		return out, &ScriptError{Field: "steps", Message: "the script needs at least one step"}
	}
	out.Steps = make([]CommandStep, len(s.Steps))
	for i, st := range s.Steps {
		field := func(name string) string {
			if name == "" {
				return fmt.Sprintf("steps[%d]", i)
			}
			return fmt.Sprintf("steps[%d].%s", i, name)
		}
		if st.invalid != nil {
			return out, &ScriptError{Field: field(st.invalid.Field), Message: st.invalid.Message}
		}
		switch st.Lifecycle {
		case lifecyclePending, lifecycleRunning, lifecycleSuspended:
		case lifecycleFinished, lifecycleError:
			if i != len(s.Steps)-1 {
				return out, &ScriptError{Field: field("lifecycle"),
					Message: "a " + st.Lifecycle + " step ends the command and must be the last step"}
			}
		default:
			return out, &ScriptError{Field: field("lifecycle"),
				Message: fmt.Sprintf("%q is not one of pending, running, finished, error, suspended", st.Lifecycle)}
		}
		if st.Progress < 0 || st.Progress > 100 {
			return out, &ScriptError{Field: field("progress"), Message: "progress must be between 0 and 100"}
		}
		if st.Duration < 0 {
			return out, &ScriptError{Field: field("duration"), Message: "the duration must not be negative"}
		}
		step := CommandStep{Lifecycle: st.Lifecycle, Progress: st.Progress, Duration: st.Duration}
		if st.State != nil {
			params, err := cloneJSONObject(st.State.Params)
			if err != nil {
				return out, &ScriptError{Field: field("state.params"), Message: err.Error()}
			}
			step.State = &CommandStepState{Text: st.State.Text, Code: st.State.Code, Params: params}
		}
		out.Steps[i] = step
	}
	if s.Error != nil {
		ce := *s.Error
		switch ce.Cause {
		case "", "runtimeError", "timeout", "canceled", "rejected":
		default:
			return out, &ScriptError{Field: "error.cause",
				Message: fmt.Sprintf("%q is not one of runtimeError, timeout, canceled, rejected", ce.Cause)}
		}
		if ce.HTTPCode != 0 && (ce.HTTPCode < 100 || ce.HTTPCode > 599) {
			return out, &ScriptError{Field: "error.httpCode", Message: "httpCode must be an HTTP status"}
		}
		if ce.Params, err = cloneJSONObject(ce.Params); err != nil {
			return out, &ScriptError{Field: "error.params", Message: err.Error()}
		}
		out.Error = &ce
	}
	if s.Results != nil {
		out.Results = make([]CommandResult, len(s.Results))
		for i, res := range s.Results {
			field := func(name string) string { return fmt.Sprintf("results[%d].%s", i, name) }
			if res.Success {
				out.Results[i] = CommandResult{Success: true, Data: res.Data}
				continue
			}
			switch {
			case res.Data != "":
				return out, &ScriptError{Field: field("data"), Message: "data must be empty on failure"}
			case res.HTTPStatus < 400 || res.HTTPStatus > 599:
				return out, &ScriptError{Field: field("httpStatus"), Message: "a failure needs an error status 400–599"}
			case res.ErrorCode == "":
				return out, &ScriptError{Field: field("errorCode"), Message: "a failure needs an errorCode"}
			case res.ErrorMessage == "":
				return out, &ScriptError{Field: field("errorMessage"), Message: "a failure needs an errorMessage"}
			}
			out.Results[i] = res
		}
	}
	return out, nil
}

// cloneJSONObject deep-copies a JSON object ({} for nil), which also checks that it
// can be encoded.
func cloneJSONObject(m map[string]any) (map[string]any, error) {
	out := map[string]any{}
	if len(m) == 0 {
		return out, nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, errors.New("not encodable as JSON: " + err.Error())
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// command is one scripted command. Everything but canceled is fixed at creation.
type command struct {
	id      string
	script  CommandScript // validated; never modified
	created time.Time
	// canceled is when the command was canceled (zero: not canceled), by canceledBy.
	canceled   time.Time
	canceledBy string
}

// commandView is the state of a command at one instant.
type commandView struct {
	lifecycle string
	progress  int
	state     CommandStepState
	modified  time.Time
	finished  time.Time // zero until finished or error
	err       *CommandError
	results   []CommandResult // non-nil once a bulk command has finished
}

// currentStep returns the index of the step current at now and the time it began.
func (c *command) currentStep(now time.Time) (int, time.Time) {
	start, steps := c.created, c.script.Steps
	for i, s := range steps {
		holds := i == len(steps)-1 || (s.Lifecycle == lifecycleSuspended && s.Duration == 0)
		if holds || now.Before(start.Add(s.Duration)) {
			return i, start
		}
		start = start.Add(s.Duration)
	}
	return len(steps) - 1, start // not reached: the last step holds
}

// viewAt evaluates the command at now.
func (c *command) viewAt(now time.Time) commandView {
	canceled := !c.canceled.IsZero()
	if canceled {
		// The script stopped where it was when the command was canceled.
		now = c.canceled
	}
	i, start := c.currentStep(now)
	step := c.script.Steps[i]
	v := commandView{lifecycle: step.Lifecycle, progress: step.Progress, state: stepState(step), modified: start}
	switch {
	case canceled:
		v.lifecycle = lifecycleError
		v.modified, v.finished = c.canceled, c.canceled
		v.state = CommandStepState{Text: "Canceled", Code: "commands/CANCELED", Params: map[string]any{}}
		v.err = &CommandError{
			Cause:  "canceled",
			Text:   "the command was canceled by " + c.canceledBy,
			Code:   "commands/CANCELED",
			Params: map[string]any{"user": c.canceledBy},
		}
	case step.Lifecycle == lifecycleError:
		v.finished = start
		v.err = scriptError(c.script.Error)
	case step.Lifecycle == lifecycleFinished:
		v.finished = start
		if c.script.Results != nil {
			v.results = c.script.Results
			succeeded := 0
			for _, r := range v.results {
				if r.Success {
					succeeded++
				}
			}
			params := make(map[string]any, len(v.state.Params)+3)
			for k, p := range v.state.Params {
				params[k] = p
			}
			params["totalCount"] = len(v.results)
			params["successCount"] = succeeded
			params["failureCount"] = len(v.results) - succeeded
			v.state.Params = params
		}
	}
	return v
}

// stepState is the command.state of a step, with defaults for what the script left
// out.
func stepState(s CommandStep) CommandStepState {
	st := CommandStepState{Params: map[string]any{}}
	if s.State != nil {
		st = *s.State
	}
	if st.Text == "" {
		st.Text = map[string]string{
			lifecyclePending: "Pending", lifecycleRunning: "Running", lifecycleFinished: "Finished",
			lifecycleError: "Failed", lifecycleSuspended: "Suspended",
		}[s.Lifecycle]
	}
	if st.Code == "" {
		st.Code = "commands/" + strings.ToUpper(s.Lifecycle)
	}
	return st
}

// scriptError is command.error of a script that reached an error step.
func scriptError(e *CommandError) *CommandError {
	if e == nil {
		return &CommandError{Cause: "runtimeError", HTTPCode: http.StatusInternalServerError,
			Text: "the command failed", Code: "commands/INTERNAL_SERVER_ERROR", Params: map[string]any{}}
	}
	out := *e
	if out.Cause == "" {
		out.Cause = "runtimeError"
	}
	if out.Text == "" {
		out.Text = "the command failed"
	}
	if out.Code == "" {
		out.Code = "commands/INTERNAL_SERVER_ERROR"
	}
	return &out
}

// commandState holds the commands of one emulator.
type commandState struct {
	mu sync.Mutex
	// clock is the time source of every lifecycle (nil: time.Now). Tests substitute
	// a fake clock before the first request; reset keeps it.
	clock func() time.Time
	next  int
	byID  map[string]*command
}

func (c *commandState) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.next = 0
	c.byID = map[string]*command{}
}

func (c *commandState) now() time.Time {
	if c.clock != nil {
		return c.clock()
	}
	return time.Now()
}

// create validates a script and starts its command; it returns the command and its
// view at creation.
func (c *commandState) create(s CommandScript) (*command, commandView, error) {
	script, err := s.validate()
	if err != nil {
		return nil, commandView{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.next++
	now := c.now()
	cmd := &command{id: "c-" + strconv.Itoa(c.next), script: script, created: now}
	c.byID[cmd.id] = cmd
	return cmd, cmd.viewAt(now), nil
}

// get returns the command with the given id and its view now.
func (c *commandState) get(id string) (*command, commandView, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cmd, ok := c.byID[id]
	if !ok {
		return nil, commandView{}, false
	}
	return cmd, cmd.viewAt(c.now()), true
}

// cancel cancels a command that has neither finished nor failed. ok is false when
// it has: the view then is the unchanged command.
func (c *commandState) cancel(id, user string) (cmd *command, v commandView, found, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cmd, found = c.byID[id]
	if !found {
		return nil, commandView{}, false, false
	}
	now := c.now()
	v = cmd.viewAt(now)
	if v.lifecycle == lifecycleFinished || v.lifecycle == lifecycleError {
		return cmd, v, true, false
	}
	cmd.canceled, cmd.canceledBy = now, user
	return cmd, cmd.viewAt(now), true, true
}

// CreateCommand starts a scripted command, as POST /_emulator/commands does, and
// returns its id ("c-1", "c-2", … per emulator). An invalid script gives a
// *ScriptError. The command's address is platform_url + CommandPath(id).
func (e *Emulator) CreateCommand(s CommandScript) (id string, err error) {
	cmd, _, err := e.commands.create(s)
	if err != nil {
		return "", err
	}
	return cmd.id, nil
}

func (e *Emulator) routeCommands() {
	e.handle("GET "+cmdResourcePrefix+"{id}", e.withUser(e.handleGetCommand))
	e.handle("DELETE "+cmdResourcePrefix+"{id}", e.withUser(e.handleCancelCommand))
}

func commandNotFound(w http.ResponseWriter, id string) {
	writeProblem(w, http.StatusNotFound, "commands", "NOT_FOUND",
		fmt.Sprintf("command '%s' does not exist", id), map[string]any{"id": id})
}

func (e *Emulator) handleGetCommand(w http.ResponseWriter, r *http.Request, _ *User) {
	id := r.PathValue("id")
	cmd, v, ok := e.commands.get(id)
	if !ok {
		commandNotFound(w, id)
		return
	}
	writeHAL(w, http.StatusOK, e.commandResource(baseURL(r), cmd, v))
}

// handleCancelCommand is DELETE <command:cancel>: 200 with the canceled command, or
// 403 once the command has finished or failed (a canceled command has failed).
func (e *Emulator) handleCancelCommand(w http.ResponseWriter, r *http.Request, u *User) {
	id := r.PathValue("id")
	cmd, v, found, ok := e.commands.cancel(id, u.Name)
	switch {
	case !found:
		commandNotFound(w, id)
	case !ok:
		writeProblem(w, http.StatusForbidden, "commands", "FORBIDDEN",
			fmt.Sprintf("command '%s' has already %s and cannot be canceled", id,
				map[string]string{lifecycleFinished: "finished", lifecycleError: "failed"}[v.lifecycle]),
			map[string]any{"id": id, "lifecycle": v.lifecycle})
	default:
		writeHAL(w, http.StatusOK, e.commandResource(baseURL(r), cmd, v))
	}
}

// handleCreateScriptedCommand is POST /_emulator/commands: the body is a
// CommandScript. It answers 200 (like the platform's own creating calls) with the
// command resource and a Location header holding its address; 400
// emulator/BAD_ARGUMENT with params.field for an invalid script.
func (e *Emulator) handleCreateScriptedCommand(w http.ResponseWriter, r *http.Request) {
	var s CommandScript
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		badArgument(w, "emulator", "body", "the body cannot be read: "+err.Error())
		return
	}
	if len(body) > 0 {
		if err := json.Unmarshal(body, &s); err != nil {
			field := "body"
			if ute := (*json.UnmarshalTypeError)(nil); errors.As(err, &ute) && ute.Field != "" {
				field = ute.Field
			}
			badArgument(w, "emulator", field, "the body is not a valid command script: "+err.Error())
			return
		}
	}
	cmd, v, err := e.commands.create(s)
	if se := (*ScriptError)(nil); errors.As(err, &se) {
		badArgument(w, "emulator", se.Field, se.Message)
		return
	} else if err != nil {
		writeProblem(w, http.StatusInternalServerError, "emulator", "INTERNAL_SERVER_ERROR", err.Error(), nil)
		return
	}
	res := e.commandResource(baseURL(r), cmd, v)
	w.Header().Set("Location", res.Links.Self.Href)
	writeHAL(w, http.StatusOK, res)
}

// The command:command resource (contract D).
type commandResource struct {
	Version string         `json:"version"`
	Command commandBody    `json:"command"`
	Payload commandPayload `json:"payload"`
	Links   commandLinks   `json:"_links"`
}

type commandBody struct {
	ID              string           `json:"id"`
	Type            string           `json:"type,omitempty"`
	Lifecycle       string           `json:"lifecycle"`
	Progress        int              `json:"progress"`
	State           CommandStepState `json:"state"`
	Created         string           `json:"created"`
	Modified        string           `json:"modified"`
	Finished        string           `json:"finished,omitempty"`
	Creator         string           `json:"creator,omitempty"`
	Host            string           `json:"host"`
	ServiceName     string           `json:"serviceName"`
	ServiceVersion  string           `json:"serviceVersion"`
	ServiceInstance string           `json:"serviceInstance"`
	Error           *CommandError    `json:"error,omitempty"`
}

type commandPayload struct {
	Parameters map[string]any `json:"command-parameters"`
	// Result is []CommandResult for a finished bulk command, else nil (omitted);
	// an interface so that an empty bulk result still shows as [].
	Result any `json:"result,omitempty"`
}

type commandLinks struct {
	Self   link   `json:"self"`
	Cancel []link `json:"command:cancel"`
	Curies []link `json:"curies"`
}

func (e *Emulator) commandResource(base string, c *command, v commandView) commandResource {
	href := base + CommandPath(c.id)
	serviceName, _, found := strings.Cut(c.script.Type, ":")
	if !found || serviceName == "" {
		serviceName = "commands"
	}
	res := commandResource{
		Version: "1.0",
		Command: commandBody{
			ID:              c.id,
			Type:            c.script.Type,
			Lifecycle:       v.lifecycle,
			Progress:        v.progress,
			State:           v.state,
			Created:         formatTime(c.created),
			Modified:        formatTime(v.modified),
			Creator:         c.script.Creator,
			Host:            e.opts.InstanceName,
			ServiceName:     serviceName,
			ServiceVersion:  cmdServiceVersion,
			ServiceInstance: cmdServiceInstance,
			Error:           v.err,
		},
		Payload: commandPayload{Parameters: c.script.Parameters},
		Links: commandLinks{
			Self:   link{Href: href},
			Cancel: links(href),
			Curies: []link{{Name: "command", Href: base + "/docs/rels/{rel}", Templated: true}},
		},
	}
	if !v.finished.IsZero() {
		res.Command.Finished = formatTime(v.finished)
	}
	if e.readings().UpperCaseLifecycle {
		res.Command.Lifecycle = strings.ToUpper(res.Command.Lifecycle)
	}
	if v.results != nil {
		res.Payload.Result = v.results
	}
	return res
}
