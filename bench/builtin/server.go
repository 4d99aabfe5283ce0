package main

import (
	"bufio"
	"context"
	"encoding/json"
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
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/etcdserver"

	"github.com/informer-gen/informer-gen/examples/builtin/kubeapiserver"

	"github.com/informer-gen/informer-gen/bench/builtin/internal/proto"
)

// envRole selects a child's role; its configuration is in proto.EnvConfig.
const envRole = "BENCHBUILTIN_ROLE"

// envServerFlags, when set, is a server child's extra kube-apiserver flags
// (kubeapiserver.Options.Flags), one per line.
const envServerFlags = "BENCHBUILTIN_SERVER_FLAGS"

// envSeed, when set, is a server child's seedConfig (JSON): Pods it writes
// into its etcd before its kube-apiserver starts.
const envSeed = "BENCHBUILTIN_SEED"

// seedConfig is a server's seeding before its kube-apiserver starts.
type seedConfig struct {
	// Shape is the Pods' shape, Template a file writeTemplate wrote (a
	// template Pod of that shape from a server of this binary).
	Shape, Template string
	// Pods are written: 0..Pods-1, by Workers goroutines, Batch per etcd
	// transaction (podSeeder.seed).
	Pods, Workers, Batch int
}

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
		var seed *seedConfig
		if v := os.Getenv(envSeed); v != "" {
			seed = new(seedConfig)
			if err = json.Unmarshal([]byte(v), seed); err != nil {
				err = fmt.Errorf("%s: %w", envSeed, err)
				break
			}
		}
		err = serve(os.Getenv(proto.EnvConfig), seed, splitLines(os.Getenv(envServerFlags)))
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
// kubeconfig into dir, prints "READY" and runs until stdin closes. With
// seed, it first writes seed's Pods into etcd before kube-apiserver starts
// and prints "PRESEEDED <pods> <seconds> <CPU seconds>" before "READY". "TEMPLATE
// <shape> <path>" writes a template Pod (templatePod) for such a server
// into path and answers "TEMPLATED" (or "TEMPLATEERR <error>"). A line
// "GC" on stdin runs a garbage collection and answers "GCDONE", so that the
// driver starts every run without the previous run's garbage. "PROF <path>"
// starts a CPU profile of this process into path and answers "PROFOK" (or
// "PROFERR <error>"); "PROFSTOP" ends it and answers "PROFDONE". "MEM"
// runs a garbage collection and answers "MEM <heap in use> <heap from the
// OS> <all memory from the OS>" (bytes, runtime.MemStats' HeapAlloc,
// HeapSys, Sys); "HEAP <path>" does too after writing a heap profile into
// path (or answers "HEAPERR <error>"). flags are extra kube-apiserver
// flags.
func serve(dir string, seed *seedConfig, flags []string) error {
	ctx := context.Background()
	startCtx, cancel := context.WithTimeout(ctx, startTimeout(seed))
	defer cancel()
	opts := kubeapiserver.Options{
		FeatureGates:   map[string]bool{"WatchList": true},
		KubeconfigPath: filepath.Join(dir, "kubeconfig"),
		Flags:          flags,
	}
	var seeded time.Duration
	var seedCPU float64
	if seed != nil {
		tmpl, err := readTemplate(seed.Template)
		if err != nil {
			return err
		}
		opts.BeforeAPIServer = func(ctx context.Context, kv etcdserver.RaftKV) error {
			start, cpu0 := time.Now(), selfCPU()
			err := newPodSeeder(kv, seed.Shape, tmpl).seed(ctx, 0, seed.Pods, seed.Workers, seed.Batch)
			seeded, seedCPU = time.Since(start), selfCPU()-cpu0
			return err
		}
	}
	srv, err := kubeapiserver.Start(startCtx, opts)
	if err != nil {
		return err
	}
	if seed != nil {
		fmt.Printf("PRESEEDED %d %.2f %.2f\n", seed.Pods, seeded.Seconds(), seedCPU)
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
		case line == "MEM":
			fmt.Println(memLine())
		case strings.HasPrefix(line, "HEAP "):
			if err := writeHeapProfile(strings.TrimPrefix(line, "HEAP ")); err != nil {
				fmt.Println("HEAPERR", err)
				continue
			}
			fmt.Println(memLine())
		case strings.HasPrefix(line, "PROF "):
			f, err := startCPUProfile(strings.TrimPrefix(line, "PROF "))
			if err != nil {
				fmt.Println("PROFERR", err)
				continue
			}
			prof = f
			fmt.Println("PROFOK")
		case strings.HasPrefix(line, "TEMPLATE "):
			var shape, path string
			if _, err := fmt.Sscanf(line, "TEMPLATE %s %s", &shape, &path); err != nil {
				fmt.Println("TEMPLATEERR", err)
				continue
			}
			tmpl, err := templatePod(ctx, srv, shape)
			if err == nil {
				err = writeTemplate(path, tmpl)
			}
			if err != nil {
				fmt.Println("TEMPLATEERR", strings.ReplaceAll(err.Error(), "\n", " "))
				continue
			}
			fmt.Println("TEMPLATED")
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

// startTimeout bounds a server's start: 5 minutes on a busy machine, and 2
// ms per Pod it seeds and then reads with its first LIST.
func startTimeout(seed *seedConfig) time.Duration {
	d := 5 * time.Minute
	if seed != nil {
		d += time.Duration(seed.Pods) * 2 * time.Millisecond
	}
	return d
}

// seedPods writes Pods from..to-1 of shape into srv's running etcd, with a
// seeder (and its template Pod) per shape made on first use.
func seedPods(ctx context.Context, srv *kubeapiserver.Server, shape string, from, to, workers int) error {
	s, ok := seeders[shape]
	if !ok {
		var err error
		tmpl, err := templatePod(ctx, srv, shape)
		if err != nil {
			return err
		}
		s = newPodSeeder(srv.EtcdKV(), shape, tmpl)
		seeders[shape] = s
	}
	// One Pod per transaction: the watch cache takes each in.
	return s.seed(ctx, from, to, workers, 1)
}

var seeders = map[string]*podSeeder{}

// memLine collects the garbage and returns "MEM <HeapAlloc> <HeapSys>
// <Sys>".
func memLine() string {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return fmt.Sprintf("MEM %d %d %d", ms.HeapAlloc, ms.HeapSys, ms.Sys)
}

// writeHeapProfile collects the garbage and writes this process's heap
// profile into a new file at path.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// splitLines returns the non-empty lines of s.
func splitLines(s string) []string {
	var out []string
	for l := range strings.Lines(s) {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
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

// serverProc is the API server child.
type serverProc struct {
	cmd        *exec.Cmd
	stdin      io.WriteCloser
	kubeconfig string
	pid        int
	lines      chan string // the server's stdout after READY
	// preseeded is how long seeding before kube-apiserver's start took
	// (startServer with a seedConfig).
	preseeded time.Duration
	// preseedCPU is the server process's CPU seconds during it.
	preseedCPU float64
}

// selfCPU is this process's user+sys CPU seconds.
func selfCPU() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return proto.CPUSeconds(&ru)
}

// serverSettings are a server child's own settings (-server-flags,
// -server-gogc, -server-gomemlimit).
type serverSettings struct {
	// Flags are extra kube-apiserver flags ("--name=value").
	Flags []string
	// GOGC and GOMEMLIMIT, when not empty, are the server process's (and
	// only its: the contenders keep the driver's environment).
	GOGC, GOMEMLIMIT string
}

// env returns the environment variables that carry s to a server child.
func (s serverSettings) env() []string {
	var env []string
	if len(s.Flags) > 0 {
		env = append(env, envServerFlags+"="+strings.Join(s.Flags, "\n"))
	}
	if s.GOGC != "" {
		env = append(env, "GOGC="+s.GOGC)
	}
	if s.GOMEMLIMIT != "" {
		env = append(env, "GOMEMLIMIT="+s.GOMEMLIMIT)
	}
	return env
}

// startServer starts a server child with its files in dir and settings set,
// and waits until it is ready; with seed, the child writes seed's Pods into
// its etcd before its kube-apiserver starts.
func startServer(ctx context.Context, exe, dir string, set serverSettings, seed *seedConfig) (*serverProc, error) {
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), envRole+"=server", proto.EnvConfig+"="+dir)
	cmd.Env = append(cmd.Env, set.env()...)
	if seed != nil {
		b, err := json.Marshal(seed)
		if err != nil {
			return nil, err
		}
		cmd.Env = append(cmd.Env, envSeed+"="+string(b))
	}
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
			var n int
			var secs, cpu float64
			if _, err := fmt.Sscanf(sc.Text(), "PRESEEDED %d %g %g", &n, &secs, &cpu); err == nil {
				s.preseeded, s.preseedCPU = time.Duration(secs*float64(time.Second)), cpu
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
	case <-time.After(startTimeout(seed)):
		err = fmt.Errorf("server not ready within %v", startTimeout(seed))
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

// mem collects the server's garbage and returns its heap in use (HeapAlloc)
// after it, the heap the runtime holds from the OS (HeapSys) and all memory
// it holds from the OS (Sys); with path not empty, it first writes a heap
// profile there.
func (s *serverProc) mem(ctx context.Context, path string) (heap, heapSys, sys uint64, err error) {
	cmd := "MEM"
	if path != "" {
		cmd = "HEAP " + path
	}
	l, err := s.commandWithin(ctx, 10*time.Minute, cmd, "MEM ", "HEAPERR")
	if err != nil {
		return 0, 0, 0, err
	}
	if _, err := fmt.Sscanf(l, "MEM %d %d %d", &heap, &heapSys, &sys); err != nil {
		return 0, 0, 0, fmt.Errorf("server: %s", l)
	}
	return heap, heapSys, sys, nil
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
func (s *serverProc) alive() bool { return procAlive(s.pid) }

// procAlive reports whether pid still runs (not exited, not a zombie).
func procAlive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
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
