package client

// The fuzz target of commands.go: a command resource, read as getCommand and
// CancelCommand read it.

import "testing"

// FuzzCommandAnswer fuzzes a command resource: its state, error, payload and bulk
// results, its HAL links. Reading it again from the bytes it kept gives the same
// command.
func FuzzCommandAnswer(f *testing.F) {
	for _, b := range answersOf(f, kindCommand) {
		f.Add(b)
	}
	for _, b := range hostileBodies() {
		f.Add(b)
	}
	f.Add([]byte(`{"command": {"id": "c", "lifecycle": "finished", "state": {"params": {"totalCount": 1e300, ` +
		`"successCount": "7", "failureCount": -1.5}}}, "payload": {"result": [{"data": 7}, null]}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var cmd Command
		var err error
		within(t, "decoding a command", body, func() {
			if err = decodeAnswer(body, "", &cmd); err == nil {
				_ = cmd.Command.Terminal()
				_, _ = cmd.BulkCounts()
				_, _ = cmd.Links.First("command:cancel")
			}
		})
		if err != nil || cmd.Command.ID == "" {
			return
		}
		var again Command
		if err := decodeAnswer(cmd.Raw, "", &again); err != nil {
			t.Fatalf("the command's own bytes do not read again: %v", err)
		}
		c1, ok1 := cmd.BulkCounts()
		c2, ok2 := again.BulkCounts()
		if again.Command.ID != cmd.Command.ID || again.Command.Lifecycle != cmd.Command.Lifecycle || c1 != c2 || ok1 != ok2 {
			t.Fatalf("the command reads differently from its own bytes: %+v, then %+v", cmd.Command, again.Command)
		}
	})
}
