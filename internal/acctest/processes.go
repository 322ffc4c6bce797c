package acctest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Process is what a CI runner, or a test of signals, reads of a process in /proc.
type Process struct {
	PID, PPID int
	Env       []string // its environment, KEY=value
}

// Processes lists the live processes (zombies left out) as /proc shows them.
func Processes() []Process {
	entries, _ := os.ReadDir("/proc")
	var ps []Process
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) < 2 || fields[0] == "Z" || fields[0] == "X" {
			continue
		}
		ppid, _ := strconv.Atoi(fields[1])
		environ, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue
		}
		ps = append(ps, Process{PID: pid, PPID: ppid, Env: strings.Split(string(environ), "\x00")})
	}
	return ps
}
