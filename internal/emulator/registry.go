package emulator

// Section R of the contract: the service registry.
// TODO(helper): replaced by the registry implementation.

func (e *Emulator) routeRegistry() {}
