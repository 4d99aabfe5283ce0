package localapi_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/informer-gen/informer-gen/examples/crd/localapi"
)

// envChild makes the test binary a child that starts a server, prints
// "ready" and waits to be killed (see TestKilledProcessLeavesNoDirectory).
const envChild = "LOCALAPI_TEST_CHILD"

func runChild() int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := localapi.Start(ctx, localapi.Options{}); err != nil {
		fmt.Println("start failed:", err)
		return 1
	}
	fmt.Println("ready")
	select {} // until killed
}

// leftovers lists what the servers left in dir.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// waitEmpty waits, as long as a busy machine may take, for dir to be empty.
func waitEmpty(t *testing.T, dir, after string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		left := leftovers(t, dir)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s still holds %q two minutes later", after, dir, left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A Start that fails after etcd and the API server are up (a CRD the server
// rejects) removes every directory it made before returning.
func TestFailedStartLeavesNoDirectory(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	crds, err := localapi.ParseCRDs([]byte(strings.ReplaceAll(widgetCRD, "scope: Namespaced", "scope: Sideways")))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	srv, err := localapi.Start(ctx, localapi.Options{CRDs: crds})
	if err == nil {
		_ = srv.Stop(ctx)
		t.Fatal("Start succeeded with a CRD of scope Sideways")
	}
	if left := leftovers(t, tmp); len(left) != 0 {
		t.Errorf("Start failed (%v) and left %q in the temporary directory", err, left)
	}
}

// Stop removes every directory at once; a test that fails (t.Fatal after
// Start, with Stop in t.Cleanup) leaves none either, since Cleanup runs.
func TestStopLeavesNoDirectory(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	srv, err := localapi.Start(ctx, localapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if left := leftovers(t, tmp); len(left) != 2 {
		t.Errorf("a running server has %q in the temporary directory, want its data and socket directories", left)
	}
	if err := srv.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if left := leftovers(t, tmp); len(left) != 0 {
		t.Errorf("Stop left %q in the temporary directory", left)
	}
}

// A process that dies without Stop (SIGKILL here; a test binary's timeout
// panic is the same) leaves no directory: the reaper removes them.
func TestKilledProcessLeavesNoDirectory(t *testing.T) {
	tmp := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envChild+"=1", "TMPDIR="+tmp)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(out)
	if !sc.Scan() || sc.Text() != "ready" {
		t.Fatalf("the child did not start its server: %q %v", sc.Text(), sc.Err())
	}
	left := leftovers(t, tmp)
	var dirs []string
	for _, name := range left {
		if strings.HasPrefix(name, "localapi-") {
			dirs = append(dirs, filepath.Join(tmp, name))
		}
	}
	if len(dirs) != 2 {
		t.Fatalf("the child's server has %q in its temporary directory, want its data and socket directories", left)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	waitEmpty(t, tmp, "the child was killed")
}
