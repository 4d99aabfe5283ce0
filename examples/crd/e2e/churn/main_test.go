// Package churn measures informers that come and go (BenchmarkInformerChurnE2E)
// against a local API server that runs in a child process, so that the
// benchmark's heap and goroutines are the client side's alone. It is a test
// binary of its own: the other end-to-end binaries run their server in
// process.
package churn

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/informer-gen/informer-gen/examples/crd/internal/e2eutil"
	"github.com/informer-gen/informer-gen/examples/crd/localapi"
)

// envServer, when set in a child's environment, makes the test binary the
// API server: TestMain starts it, installs the churn kinds, prints
// "READY <kubeconfig>" and serves until its stdin is closed.
const envServer = "INFORMER_GEN_CHURN_SERVER"

func TestMain(m *testing.M) {
	localapi.QuietKlog()
	if os.Getenv(envServer) != "" {
		os.Exit(serve())
	}
	code := m.Run()
	if server != nil {
		if err := server.stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the API server process:", err)
		}
	}
	os.Exit(code)
}

// serve is the child: the API server with the churn kinds and their
// objects, until stdin is closed (by the parent, or by its death).
func serve() int {
	ctx, cancel := context.WithTimeout(context.Background(), 3*e2eutil.Patience)
	s, err := localapi.Start(ctx, localapi.Options{})
	if err != nil {
		cancel()
		fmt.Fprintln(os.Stderr, "starting the local API server:", err)
		return 1
	}
	defer func() {
		stopCtx, stopCancel := context.WithTimeout(context.Background(), time.Minute)
		defer stopCancel()
		if err := s.Stop(stopCtx); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the local API server:", err)
		}
	}()
	err = installChurnKinds(ctx, s)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "installing the churn kinds:", err)
		return 1
	}
	fmt.Println("READY", s.KubeconfigPath())
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

// serverProc is the API server child of this test binary.
type serverProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	cfg   *rest.Config
}

var (
	server      *serverProc
	serverOnce  sync.Once
	serverErr   error
	serverSetup time.Duration
)

// startServer starts the API server child once per test binary.
func startServer(ctx context.Context) (*serverProc, error) {
	serverOnce.Do(func() {
		start := time.Now()
		server, serverErr = startServerProc(ctx)
		serverSetup = time.Since(start)
	})
	return server, serverErr
}

func startServerProc(ctx context.Context) (*serverProc, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=^$")
	cmd.Env = append(os.Environ(), envServer+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the API server process: %w", err)
	}
	s := &serverProc{cmd: cmd, stdin: stdin}
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if path, ok := strings.CutPrefix(sc.Text(), "READY "); ok {
				ready <- path
				break
			}
		}
		close(ready)
		_, _ = io.Copy(io.Discard, stdout)
	}()
	var path string
	select {
	case p, ok := <-ready:
		if !ok {
			err = errors.New("the API server process exited before it was ready")
		}
		path = p
	case <-ctx.Done():
		err = context.Cause(ctx)
	}
	if err == nil {
		s.cfg, err = clientcmd.BuildConfigFromFlags("", path)
	}
	if err != nil {
		_ = s.stop()
		return nil, err
	}
	s.cfg.QPS = -1 // a kubeconfig has no client throttling settings
	return s, nil
}

// config returns a copy of the rest.Config of the server's kubeconfig.
func (s *serverProc) config() *rest.Config { return rest.CopyConfig(s.cfg) }

// stop closes the child's stdin, which stops the server, and waits for it
// to exit, killing it after a minute.
func (s *serverProc) stop() error {
	s.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		_ = s.cmd.Process.Kill()
		<-done
		return errors.New("the API server process did not exit within a minute of its stdin closing; killed")
	}
}
