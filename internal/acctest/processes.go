package acctest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
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

// StartNotBusy starts cmd, and when the kernel refuses its program as busy (ETXTBSY),
// a copy of it, until the program starts or 5 s have passed; it returns the command
// that started (or the last tried). A test that writes a script and runs it while
// other tests start processes meets this: a process forked meanwhile holds the
// script open for writing until it runs its own program (golang/go#22315), and a
// runner model failed with "fork/exec …/terragrunt: text file busy". The copy keeps
// every exported field; a command made with a context must not be given.
func StartNotBusy(cmd *exec.Cmd) (*exec.Cmd, error) {
	var err error
	WaitFor(5*time.Second, func() bool {
		if err != nil {
			cmd = &exec.Cmd{
				Path: cmd.Path, Args: cmd.Args, Env: cmd.Env, Dir: cmd.Dir, Stdin: cmd.Stdin, Stdout: cmd.Stdout,
				Stderr: cmd.Stderr, ExtraFiles: cmd.ExtraFiles, SysProcAttr: cmd.SysProcAttr, WaitDelay: cmd.WaitDelay,
			}
		}
		err = cmd.Start()
		return !errors.Is(err, syscall.ETXTBSY)
	})
	return cmd, err
}
