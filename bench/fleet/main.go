// Command bench-fleet measures runtime/fleet against the targets
// (docs/performance.md, "Fleets"); hack/bench-fleet.sh builds and runs it.
//
//	bench-fleet run [-clusters 100] [-direct 3] [-objects 1000] [-rounds 3] [-unreachable-rounds N] [-settle 10s] [-idle-wait 95s]
//
// run starts "serve" as a child process: one real API server (the example
// project's localapi: etcd + apiextensions-apiserver, loopback, TLS and a
// token) per direct cluster, and one more behind a loopback proxy that gives
// every other cluster a path prefix of its own (/clusters/<name>/…) mapped to
// a namespace of its own (kcp-style), each with its own Foos; plus empty
// clusters for the fixed cost and an address that accepts TCP connections
// and never answers (the unreachable cluster). Then it runs fleet-client
// (./client: the runtime and the generated informers, no API server code,
// as in a controller's binary), each command in a fresh process so that
// one's heap does not count in another's:
//
//   - measure: the fixed heap per engaged cluster; the whole fleet's sync;
//     engaging one more cluster beside the others (synced, against a LIST
//     of it alone) and disengaging it (heap after GC against before); the
//     others' sync with and without an unreachable cluster, two fleet
//     processes side by side in each round (both under the same load).
//   - compare: the same fleet in one process against one process per
//     cluster (one generated factory each, no fleet), total RSS and CPU
//     once all have synced.
//
// The servers, proxy and seeding are in the serve process, not in the
// measured ones. Nothing is asserted: the targets are printed beside the
// figures.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: bench-fleet run|serve [flags]")
		os.Exit(2)
	}
	cmds := map[string]func([]string) error{"run": runAll, "serve": serve}
	cmd, ok := cmds[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "bench-fleet: unknown command %q\n", os.Args[1])
		os.Exit(2)
	}
	if err := cmd(os.Args[2:]); err != nil {
		fmt.Fprintf(os.Stderr, "bench-fleet %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

// runAll runs serve, then measure and compare against it.
func runAll(args []string) error {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	clusters := fs.Int("clusters", 100, "clusters with Foos")
	direct := fs.Int("direct", 3, "of those, clusters that are a real API server of their own")
	objects := fs.Int("objects", 1000, "Foos per cluster")
	rounds := fs.Int("rounds", 3, "rounds of measure's repeated figures")
	badRounds := fs.Int("unreachable-rounds", 0, "rounds of the unreachable-cluster pair (default: -rounds)")
	settle := fs.Duration("settle", 10*time.Second, "compare: how long after the last sync the processes are measured")
	idleWait := fs.Duration("idle-wait", 95*time.Second, "measure: how long after disengaging the empty clusters to measure again (0 skips)")
	skipCompare := fs.Bool("skip-compare", false, "do not run the one-process-per-cluster comparison")
	client := fs.String("client", "", "the fleet-client binary (default: fleet-client beside this one)")
	_ = fs.Parse(args)
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if *client == "" {
		*client = filepath.Join(filepath.Dir(self), "fleet-client")
	}
	dir, err := os.MkdirTemp("", "bench-fleet-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	endpoints := filepath.Join(dir, "endpoints.json")

	srv := exec.Command(self, "serve", "-endpoints", endpoints, "-clusters", strconv.Itoa(*clusters), "-direct", strconv.Itoa(*direct), "-objects", strconv.Itoa(*objects))
	srv.Stdout, srv.Stderr = os.Stderr, os.Stderr
	if err := srv.Start(); err != nil {
		return err
	}
	srvDone := make(chan error, 1)
	go func() { srvDone <- srv.Wait() }()
	defer func() {
		_ = srv.Process.Signal(syscall.SIGTERM)
		select {
		case <-srvDone:
		case <-time.After(2 * time.Minute):
			_ = srv.Process.Kill()
			<-srvDone
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	start := time.Now()
	for {
		if _, err := os.Stat(endpoints); err == nil {
			break
		}
		select {
		case err := <-srvDone:
			srvDone <- err
			return fmt.Errorf("serve exited: %v", err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	fmt.Printf("# servers up and seeded in %s\n", time.Since(start).Round(time.Second))
	child := func(args ...string) error {
		c := exec.Command(*client, args...)
		c.Stdout, c.Stderr = os.Stdout, os.Stderr
		return c.Run()
	}
	if err := child("measure", "-endpoints", endpoints, "-rounds", strconv.Itoa(*rounds), "-unreachable-rounds", strconv.Itoa(*badRounds), "-idle-wait", idleWait.String()); err != nil {
		return fmt.Errorf("measure: %w", err)
	}
	if *skipCompare {
		return nil
	}
	if err := child("compare", "-endpoints", endpoints, "-settle", settle.String()); err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	return nil
}
