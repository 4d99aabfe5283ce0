//go:build unix

package localapi

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// reaper removes a server's directories when this process ends, however it
// ends: Stop, a failed test, a signal, a test binary's timeout panic, even
// SIGKILL. It is a /bin/sh child that reads its stdin, a pipe whose only
// writer is this process, and removes the directories at EOF, which comes
// when Stop closes the pipe or when the kernel closes it as this process
// exits. The child runs in a process group of its own, so a terminal's
// Ctrl-C, sent to the whole foreground group, does not kill it first.
type reaper struct {
	w   *os.File
	cmd *exec.Cmd
}

// startReaper starts the reaper of dirs.
func startReaper(dirs ...string) (*reaper, error) {
	r, w, err := os.Pipe() // close-on-exec: no other child holds the writer
	if err != nil {
		return nil, fmt.Errorf("starting the directory reaper: %w", err)
	}
	defer r.Close()
	cmd := exec.Command("/bin/sh", "-c", `read -r line; exec rm -rf -- "$@"`, "localapi-reaper")
	cmd.Args = append(cmd.Args, dirs...)
	cmd.Stdin = r // stdout and stderr: /dev/null
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("starting the directory reaper: %w", err)
	}
	return &reaper{w: w, cmd: cmd}, nil
}

// stop makes the reaper remove its directories now and waits for it.
func (r *reaper) stop() error {
	r.w.Close()
	if err := r.cmd.Wait(); err != nil {
		return fmt.Errorf("directory reaper: %w", err)
	}
	return nil
}
