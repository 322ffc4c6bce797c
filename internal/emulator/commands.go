package emulator

// Section D of the contract: the command resource.
// TODO(helper): replaced by the commands implementation.

import "net/http"

type commandState struct{}

func (c *commandState) reset() {}

func (e *Emulator) routeCommands() {}

func (e *Emulator) handleCreateScriptedCommand(w http.ResponseWriter, r *http.Request) {}
