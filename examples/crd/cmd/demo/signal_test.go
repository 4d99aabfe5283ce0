package main

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// envMain makes the test binary run the demo's main (see
// TestSignalLeavesNoDirectory).
const envMain = "DEMO_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(envMain) != "" {
		main() // exits
	}
	os.Exit(m.Run())
}

// SIGINT or SIGTERM while the demo runs: it stops what it started, exits 1
// saying why, and leaves nothing in the temporary directory (etcd's data,
// socket and peer key included).
func TestSignalLeavesNoDirectory(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			tmp := t.TempDir()
			// Enough objects that the demo is still creating them when the
			// signal comes.
			cmd := exec.Command(os.Args[0], "-test.run=^$", "-objects=200000", "-hosts=50")
			cmd.Env = append(os.Environ(), envMain+"=1", "TMPDIR="+tmp)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			var seen []string
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				seen = append(seen, sc.Text())
				if strings.HasPrefix(sc.Text(), "start informers + controller") {
					break
				}
			}
			if len(seen) == 0 || !strings.HasPrefix(seen[len(seen)-1], "start informers + controller") {
				t.Fatalf("the demo ended before its controller started:\n%s\n%s", strings.Join(seen, "\n"), stderr.String())
			}
			if left := entries(t, tmp); len(left) == 0 {
				t.Fatalf("the running demo has no localapi-* directory in its temporary directory: is TMPDIR not used?")
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			go func() {
				for sc.Scan() { // drain, so the demo never blocks on stdout
				}
			}()
			err = cmd.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(stderr.String(), "demo:") {
				t.Errorf("after %v the demo exited with %v, want exit status 1 and its error on stderr:\n%s", sig, err, stderr.String())
			}
			// Stop has removed the directories by the time the process
			// exits; wait all the same, as a busy machine may be slow to
			// show it.
			deadline := time.Now().Add(2 * time.Minute)
			for left := entries(t, tmp); len(left) > 0; left = entries(t, tmp) {
				if time.Now().After(deadline) {
					t.Fatalf("after %v the demo left %q in its temporary directory", sig, left)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// entries lists the local API server's directories in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	list, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range list {
		if strings.HasPrefix(e.Name(), "localapi-") {
			names = append(names, e.Name())
		}
	}
	return names
}
