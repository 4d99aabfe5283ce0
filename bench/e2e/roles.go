package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/informer-gen/informer-gen/examples/crd/localapi"
	"github.com/informer-gen/informer-gen/examples/crd/manifests"

	"github.com/informer-gen/informer-gen/bench/e2e/internal/proto"
)

// envRole selects a child's role; its configuration is in proto.EnvConfig.
const envRole = "BENCHE2E_ROLE"

// runRole runs the role named in the environment, if any ("server" is the
// only one; contenders are a binary of their own), and returns whether it
// did and the exit code.
func runRole() (bool, int) {
	role := os.Getenv(envRole)
	if role == "" {
		return false, 0
	}
	localapi.QuietKlog()
	var err error
	switch role {
	case "server":
		err = serve(os.Getenv(proto.EnvConfig))
	default:
		err = fmt.Errorf("unknown role %q", role)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench-e2e %s: %v\n", role, err)
		return true, 1
	}
	return true, 0
}

// serve runs the local API server with the example CRDs, writes the
// kubeconfig into dir, prints "READY" and runs until stdin closes. A line
// "GC" on stdin runs a garbage collection and answers "GCDONE", so that the
// driver starts every run without the previous run's garbage. "PROF <path>"
// starts a CPU profile of this process into path and answers "PROFOK" (or
// "PROFERR <error>"); "PROFSTOP" ends it and answers "PROFDONE". The
// profile is written to a file the driver names: nothing listens on the
// network for it.
func serve(dir string) error {
	ctx := context.Background()
	crds, err := localapi.ParseCRDs(manifests.CRDs()...)
	if err != nil {
		return err
	}
	srv, err := localapi.Start(ctx, localapi.Options{
		Dir:            filepath.Join(dir, "server"),
		CRDs:           crds,
		KubeconfigPath: filepath.Join(dir, "kubeconfig"),
	})
	if err != nil {
		return err
	}
	fmt.Println("READY")
	// The driver closes our stdin to stop us (or dies, which closes it too).
	sc := bufio.NewScanner(os.Stdin)
	var prof *os.File
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "GC":
			runtime.GC()
			fmt.Println("GCDONE")
		case strings.HasPrefix(line, "PROF "):
			f, err := startCPUProfile(strings.TrimPrefix(line, "PROF "))
			if err != nil {
				fmt.Println("PROFERR", err)
				continue
			}
			prof = f
			fmt.Println("PROFOK")
		case line == "PROFSTOP":
			if prof != nil {
				pprof.StopCPUProfile()
				prof.Close()
				prof = nil
			}
			fmt.Println("PROFDONE")
		}
	}
	if prof != nil {
		pprof.StopCPUProfile()
		prof.Close()
	}
	stopCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return srv.Stop(stopCtx)
}

// startCPUProfile starts this process's CPU profile into a new file at path.
func startCPUProfile(path string) (*os.File, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
