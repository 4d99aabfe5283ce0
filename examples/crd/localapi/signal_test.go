//go:build unix

package localapi_test

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// Ctrl-C in a terminal sends SIGINT to the whole foreground process group:
// the test binary or demo and every child it started in that group. A
// process that starts a server and then dies of SIGINT (no handler, as a
// test binary) leaves no directory: the reaper runs in a process group of
// its own, so the same signal does not stop it before it has removed them.
func TestInterruptedProcessGroupLeavesNoDirectory(t *testing.T) {
	tmp := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envChild+"=1", "TMPDIR="+tmp)
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // the child leads a group, as a shell's job does
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) //nolint:errcheck // after a failure: whatever is left of the group
	sc := bufio.NewScanner(out)
	if !sc.Scan() || sc.Text() != "ready" {
		t.Fatalf("the child did not start its server: %q %v", sc.Text(), sc.Err())
	}
	var dirs int
	for _, name := range leftovers(t, tmp) {
		if strings.HasPrefix(name, "localapi-") {
			dirs++
		}
	}
	if dirs != 2 {
		t.Fatalf("the child's server has %q in its temporary directory, want its data and socket directories", leftovers(t, tmp))
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Fatalf("the child ended with %v, want death by SIGINT (it must not handle the signal for this test to mean anything)", err)
	}
	waitEmpty(t, tmp, "the child's process group got SIGINT")
}
