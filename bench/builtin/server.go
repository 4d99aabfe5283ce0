package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/informer-gen/informer-gen/examples/builtin/kubeapiserver"

	"github.com/informer-gen/informer-gen/bench/builtin/internal/proto"
)

// envRole selects a child's role; its configuration is in proto.EnvConfig.
const envRole = "BENCHBUILTIN_ROLE"

// runRole runs the role named in the environment, if any ("server" is the
// only one; contenders are a binary of their own), and returns whether it
// did and the exit code.
func runRole() (bool, int) {
	role := os.Getenv(envRole)
	if role == "" {
		return false, 0
	}
	kubeapiserver.QuietKlog()
	var err error
	switch role {
	case "server":
		err = serve(os.Getenv(proto.EnvConfig))
	default:
		err = fmt.Errorf("unknown role %q", role)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench-builtin %s: %v\n", role, err)
		return true, 1
	}
	return true, 0
}

// serve runs kube-apiserver (package kubeapiserver: embedded etcd, RBAC,
// default admission, watch cache on, WatchList on) with the benchmark's
// namespaces (each with its ServiceAccount "default", which the
// ServiceAccount admission plugin wants for Pods), writes the admin
// kubeconfig into dir, prints "READY" and runs until stdin closes. A line
// "GC" on stdin runs a garbage collection and answers "GCDONE", so that the
// driver starts every run without the previous run's garbage. "PROF <path>"
// starts a CPU profile of this process into path and answers "PROFOK" (or
// "PROFERR <error>"); "PROFSTOP" ends it and answers "PROFDONE".
func serve(dir string) error {
	ctx := context.Background()
	startCtx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	srv, err := kubeapiserver.Start(startCtx, kubeapiserver.Options{
		FeatureGates:   map[string]bool{"WatchList": true},
		KubeconfigPath: filepath.Join(dir, "kubeconfig"),
	})
	if err != nil {
		return err
	}
	for i := range proto.Namespaces {
		if err := srv.CreateNamespace(startCtx, proto.NamespacePrefix+strconv.Itoa(i)); err != nil {
			return errors.Join(err, srv.Stop(ctx))
		}
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
		case strings.HasPrefix(line, "SEED "):
			// SEED <shape> <from> <to> <workers>: write Pods from..to-1
			// into etcd (podSeeder).
			var shape string
			var from, to, workers int
			if _, err := fmt.Sscanf(line, "SEED %s %d %d %d", &shape, &from, &to, &workers); err != nil {
				fmt.Println("SEEDERR", err)
				continue
			}
			start := time.Now()
			err := seedPods(ctx, srv, shape, from, to, workers)
			if err != nil {
				fmt.Println("SEEDERR", strings.ReplaceAll(err.Error(), "\n", " "))
				continue
			}
			fmt.Printf("SEEDED %d %.1f\n", to-from, time.Since(start).Seconds())
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
	stopCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	return srv.Stop(stopCtx)
}

// seedPods writes Pods from..to-1 of shape into srv's etcd, with a seeder
// (and its template Pod) per shape made on first use.
func seedPods(ctx context.Context, srv *kubeapiserver.Server, shape string, from, to, workers int) error {
	s, ok := seeders[shape]
	if !ok {
		var err error
		if s, err = newPodSeeder(ctx, srv, shape); err != nil {
			return err
		}
		seeders[shape] = s
	}
	return s.seed(ctx, from, to, workers)
}

var seeders = map[string]*podSeeder{}

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

// serverProc is the API server child.
type serverProc struct {
	cmd        *exec.Cmd
	stdin      io.WriteCloser
	kubeconfig string
	pid        int
	lines      chan string // the server's stdout after READY
}

func startServer(ctx context.Context, exe, dir string) (*serverProc, error) {
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), envRole+"=server", proto.EnvConfig+"="+dir)
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
		return nil, fmt.Errorf("starting the server process: %w", err)
	}
	s := &serverProc{cmd: cmd, stdin: stdin, kubeconfig: filepath.Join(dir, "kubeconfig"), pid: cmd.Process.Pid, lines: make(chan string, 16)}
	ready := make(chan error, 1)
	go func() {
		defer close(s.lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if sc.Text() == "READY" {
				ready <- nil
				break
			}
		}
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		select {
		case ready <- errors.New("server process exited before it was ready"):
		default:
		}
	}()
	select {
	case err = <-ready:
	case <-ctx.Done():
		err = context.Cause(ctx)
	case <-time.After(5 * time.Minute):
		err = errors.New("server not ready within 5m")
	}
	if err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

func (s *serverProc) stop() {
	s.stdin.Close()
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(90 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
}

// gc makes the server collect its garbage and waits until it has.
func (s *serverProc) gc(ctx context.Context) error {
	_, err := s.command(ctx, "GC", "GCDONE")
	return err
}

// startProfile starts a CPU profile of the server into path.
func (s *serverProc) startProfile(ctx context.Context, path string) error {
	l, err := s.command(ctx, "PROF "+path, "PROFOK", "PROFERR")
	if err == nil && l != "PROFOK" {
		err = fmt.Errorf("server: %s", l)
	}
	return err
}

// stopProfile ends the server's CPU profile and waits until it is written.
func (s *serverProc) stopProfile(ctx context.Context) error {
	_, err := s.command(ctx, "PROFSTOP", "PROFDONE")
	return err
}

// command writes line to the server's stdin and returns its first answer
// line that starts with one of answers, within two minutes.
func (s *serverProc) command(ctx context.Context, line string, answers ...string) (string, error) {
	return s.commandWithin(ctx, 2*time.Minute, line, answers...)
}

// commandWithin is command with a timeout of d.
func (s *serverProc) commandWithin(ctx context.Context, d time.Duration, line string, answers ...string) (string, error) {
	if _, err := io.WriteString(s.stdin, line+"\n"); err != nil {
		return "", fmt.Errorf("server command %q: %w", line, err)
	}
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				return "", errors.New("server process exited")
			}
			for _, a := range answers {
				if strings.HasPrefix(l, a) {
					return l, nil
				}
			}
		case <-ctx.Done():
			return "", context.Cause(ctx)
		case <-time.After(d):
			return "", fmt.Errorf("server did not answer %q within %v", line, d)
		}
	}
}

// alive reports whether the server process still runs (not exited, not a
// zombie).
func (s *serverProc) alive() bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.pid))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i >= 0 && i+2 < len(b) && b[i+2] != 'Z'
}

// cpu returns the server process's user+sys CPU seconds from /proc.
func (s *serverProc) cpu() (float64, error) { return procCPU(s.pid) }

// procCPU reads utime+stime of pid from /proc/<pid>/stat (in clock ticks of
// 1/100 s, USER_HZ on Linux).
func procCPU(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces: fields count from after ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	utime, err1 := strconv.ParseUint(f[11], 10, 64)
	stime, err2 := strconv.ParseUint(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return float64(utime+stime) / 100, nil
}
