package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/informer-gen/informer-gen/bench/builtin/internal/proto"
)

// driverConfig is the driver's flags.
type driverConfig struct {
	// Pods and Secrets are the sizes to measure, increasing (objects
	// accumulate: each size adds to the previous one); none skips the kind.
	Pods, Secrets []int
	// SecretBytes is the data of one Secret (four keys).
	SecretBytes int
	// Runs is the runs of every contender per size with WatchList on;
	// RunsOff with it off.
	Runs, RunsOff int
	Contenders    []string
	WatchList     []bool
	Writers       int
	Timeout       time.Duration
	Verbose       bool
	// Settle is the pause before each run.
	Settle time.Duration
	// Exe is the binary to start the server from; empty means this one.
	Exe string
	// ContenderExe is the contender binary (bench/builtin/contender).
	ContenderExe string
	// ContenderNextExe is the same built on the next Kubernetes minor
	// (next.mod): it runs the contenders named with proto.NextSuffix.
	ContenderNextExe string
	// ServerProfileDir, when not empty, receives a CPU profile of the
	// server for every run's sync (<run>.server-sync.pprof);
	// ClientProfileDir one of every contender from its start to its sync
	// (<run>.client-sync.pprof).
	ServerProfileDir, ClientProfileDir string
	// DisableCompression sets every contender's rest.Config.DisableCompression.
	DisableCompression bool
	// Hold keeps the server up after the runs, until ctx ends.
	Hold bool
	// MemLimit, when its Ladder is set, replaces the runs with the
	// memory-limited start (memlimit.go) at each size of Pods; its table
	// goes to MemLimitOut.
	MemLimit    memLimitConfig
	MemLimitOut io.Writer
	// Seed is how Pods are written: seedEtcd (the default when empty),
	// seedEtcdLive or seedAPI (create.go).
	Seed string
	// SeedBatch is the Pods per etcd transaction with seedEtcd.
	SeedBatch int
	// PodShape is shapeRealistic (the default) or shapeSmall.
	PodShape string
	// JSON, when not empty, is a file the results are written to (all runs
	// so far, rewritten after each run): what hack/plotscale reads.
	JSON string
	// Relist forces a relist on every synced contender (relistProxy) and
	// measures it (runResult.Relist).
	Relist bool
	// RelistChange is the percentage of the Pods changed (a label, through
	// the API) after the contender's watch ended and before its relist: what
	// the relist sees that the cache does not hold.
	RelistChange float64
	// Server is the server child's own settings (kube-apiserver flags,
	// GOGC, GOMEMLIMIT).
	Server serverSettings
	// ContenderMemMaxMiB, when > 0, runs every contender in a memory
	// cgroup (under MemLimit.CgroupRoot) with this hard limit, so that the
	// OOM killer takes the contender that outgrows it rather than the
	// server or the machine's other processes; no GOMEMLIMIT is set.
	ContenderMemMaxMiB int
	// ServerHeapProfileDir, when not empty, receives a heap profile of the
	// server once it is ready and after every run.
	ServerHeapProfileDir string
}

// jsonReport is the -json file.
type jsonReport struct {
	PodShape   string
	Contenders []string
	Runs       []runResult
}

// runResult is one contender run.
type runResult struct {
	Resource  string
	Size      int
	Contender string
	WatchList bool
	Sync      proto.SyncReport
	// ServerCPUSync is the server process's user+sys from the contender's
	// start to its SYNCED line.
	ServerCPUSync float64
	// Lists and Watches are the LIST and WATCH requests for Resource the
	// server completed during the run (apiserver_request_total).
	Lists, Watches int
	// Relist is the forced relist after the sync, with -relist.
	Relist *relistReport `json:",omitempty"`
	// ServerRSS is the server process's RSS when the contender has synced,
	// ServerPeakRSS its peak RSS from the contender's start to then
	// (VmHWM, reset before the run).
	ServerRSS, ServerPeakRSS int64
	// TotalCPU is the child's user+sys at exit, MaxRSS its peak RSS.
	TotalCPU float64
	MaxRSS   int64
	// Load1 is the machine's load average over a minute at the run's start.
	Load1 float64
	// Error, when not empty, is why the run failed (the contender died, was
	// OOM-killed, timed out); MaxRSS is then the last peak RSS read from
	// /proc while it ran.
	Error string `json:",omitempty"`
}

// runsOf is how many runs the mode gets.
func (c driverConfig) runsOf(watchList bool) int {
	if !watchList && c.RunsOff >= 0 {
		return c.RunsOff
	}
	return c.Runs
}

// runDriver starts the server, creates the objects of each size and runs
// every contender and mode, alternated. Progress goes to log.
func runDriver(ctx context.Context, cfg driverConfig, log io.Writer) ([]runResult, error) {
	if cfg.Exe == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		cfg.Exe = exe
	}
	if cfg.ContenderExe == "" {
		return nil, errors.New("no contender binary (build bench/builtin/contender)")
	}
	if cfg.Writers <= 0 {
		cfg.Writers = 32
	}
	dir, err := os.MkdirTemp("", "bench-builtin-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	d := &driver{cfg: cfg, dir: dir, log: log}
	if err := d.start(ctx, nil); err != nil {
		return nil, err
	}
	defer func() {
		if d.srv != nil { // nil when a reseeded server failed to start
			d.srv.stop()
		}
	}()

	var results []runResult
	for _, kind := range []struct {
		resource string
		sizes    []int
		create   func(ctx context.Context, from, to int) error
	}{
		// Secrets first: they take minutes where the Pods' creation (two
		// writes each) takes the longest.
		{proto.Secrets, cfg.Secrets, d.createSecrets},
		{proto.Pods, cfg.Pods, d.createPods},
	} {
		have := 0
		for _, size := range kind.sizes {
			if size > have {
				if kind.resource == proto.Pods && d.seedMode() == seedEtcd {
					// A new server with all size Pods.
					have = 0
				}
				start := time.Now()
				if err := kind.create(ctx, have, size); err != nil {
					return results, err
				}
				el := time.Since(start).Seconds()
				fmt.Fprintf(log, "created %s %d..%d in %.1fs: %.0f/s (load average %.1f)\n", kind.resource, have, size-1, el, float64(size-have)/el, load1())
				have = size
			}
			if len(cfg.MemLimit.Ladder) > 0 {
				if err := d.memLimits(ctx, kind.resource, size, cfg.MemLimitOut); err != nil {
					return results, err
				}
				continue
			}
			for r := 0; r < max(cfg.Runs, cfg.RunsOff); r++ {
				for _, wl := range cfg.WatchList {
					if r >= cfg.runsOf(wl) {
						continue
					}
					// Rotate the order so that no contender always runs
					// first (after a quiet server) or right after the same
					// neighbour.
					n := len(cfg.Contenders)
					for i := 0; i < n; i++ {
						name := cfg.Contenders[(i+r)%n]
						res, err := d.runOne(ctx, kind.resource, size, name, wl, fmt.Sprintf("%s%d-r%d-%s-%t", kind.resource, size, r, name, wl))
						if err != nil {
							err = fmt.Errorf("%s, %d %s, WatchList %t, run %d: %w", name, size, kind.resource, wl, r+1, err)
							if ctx.Err() != nil || !d.srv.alive() {
								return results, err
							}
							// The contender died (OOM-killed, crashed,
							// timed out): a row that says so.
							res.Error = err.Error()
							fmt.Fprintf(log, "%6d %-7s %-27s watchlist=%-5t run %d: FAILED, last peak RSS %.0f MB: %v\n", size, kind.resource, name, wl, r+1, float64(res.MaxRSS)/1e6, err)
							results = append(results, res)
							if err := d.writeJSON(results); err != nil {
								return results, err
							}
							continue
						}
						if cfg.ServerHeapProfileDir != "" {
							if err := d.logServerMemory(ctx, d.srv, fmt.Sprintf("%s%d-r%d-%s-%t", kind.resource, size, r, name, wl)); err != nil {
								return results, err
							}
						}
						if cfg.Verbose {
							b, _ := json.Marshal(res)
							fmt.Fprintf(log, "run %s\n", b)
						} else {
							fmt.Fprintf(log, "%6d %-7s %-27s watchlist=%-5t run %d: synced %.2fs, client CPU %.2fs, server CPU %.2fs, RSS %.0f MB, heap %.1f MB, %d LIST %d WATCH, %s; server RSS %.0f MB, peak %.0f MB\n",
								size, kind.resource, name, wl, r+1, res.Sync.SyncSeconds, res.Sync.CPUSeconds, res.ServerCPUSync,
								float64(res.Sync.MaxRSSBytes)/1e6, float64(res.Sync.HeapAfterGC)/1e6, res.Lists, res.Watches, res.Sync.Wire,
								float64(res.ServerRSS)/1e6, float64(res.ServerPeakRSS)/1e6)
						}
						results = append(results, res)
						if err := d.writeJSON(results); err != nil {
							return results, err
						}
					}
				}
			}
		}
	}
	if cfg.Hold {
		fmt.Fprintf(log, "holding the server: kubeconfig %s (interrupt to stop)\n", d.srv.kubeconfig)
		<-ctx.Done()
	}
	return results, nil
}

// writeJSON writes the results so far into cfg.JSON, if set.
func (d *driver) writeJSON(res []runResult) error {
	if d.cfg.JSON == "" {
		return nil
	}
	shape := d.cfg.PodShape
	if shape == "" {
		shape = shapeRealistic
	}
	b, err := json.MarshalIndent(jsonReport{PodShape: shape, Contenders: d.cfg.Contenders, Runs: res}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(d.cfg.JSON, b, 0o644)
}

type driver struct {
	cfg        driverConfig
	dir        string // the server's kubeconfig, seeding templates
	srv        *serverProc
	cs         kubernetes.Interface
	http       *http.Client
	host       string
	kubeconfig string
	log        io.Writer
}

// requestCounts returns the LIST and WATCH requests for resource (core/v1)
// the server has completed so far, from apiserver_request_total on
// /metrics.
func (d *driver) requestCounts(ctx context.Context, resource string) (lists, watches int, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.host+"/metrics", nil)
	if err != nil {
		return 0, 0, err
	}
	resp, err := d.http.Do(req)
	if err != nil {
		return 0, 0, fmt.Errorf("reading /metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, 0, fmt.Errorf("reading /metrics: %s", resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "apiserver_request_total{") || !strings.Contains(line, `resource="`+resource+`"`) ||
			!strings.Contains(line, `subresource=""`) || !strings.Contains(line, `group=""`) {
			continue
		}
		sp := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[sp+1:], 64)
		if err != nil {
			return 0, 0, fmt.Errorf("parsing %q: %w", line, err)
		}
		switch {
		case strings.Contains(line, `verb="LIST"`):
			lists += int(v)
		case strings.Contains(line, `verb="WATCH"`):
			watches += int(v)
		}
	}
	return lists, watches, sc.Err()
}

// load1 is the machine's load average over the last minute (0 if
// unreadable).
func load1() float64 {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// procHWM is VmHWM of pid (its peak RSS so far) in bytes.
func procHWM(pid int) (int64, error) { return procStatusBytes(pid, "VmHWM") }

// runOne runs one contender in a fresh process until it is synced.
func (d *driver) runOne(ctx context.Context, resource string, size int, name string, watchList bool, round string) (res runResult, err error) {
	res = runResult{Resource: resource, Size: size, Contender: name, WatchList: watchList}
	contender, fromNext := proto.CutNext(name)
	exe := d.cfg.ContenderExe
	if fromNext {
		exe = d.cfg.ContenderNextExe
		if exe == "" {
			return res, fmt.Errorf("%s: no next contender binary (build ./contender with -modfile=next.mod)", name)
		}
	}
	cc := proto.ContenderConfig{
		Kubeconfig: d.kubeconfig,
		Contender:  contender,
		Resource:   resource,
		WatchList:  watchList,
		Expect:     size,
		Timeout:    d.cfg.Timeout,

		DisableCompression: d.cfg.DisableCompression,
	}
	profile := func(dir, what string) string {
		if dir == "" {
			return ""
		}
		return filepath.Join(dir, round+"."+what+".pprof")
	}
	var proxy *relistProxy
	if d.cfg.Relist {
		// The contender talks to the server through the proxy that
		// forces its relist.
		if proxy, err = startRelistProxyFor(d.kubeconfig, filepath.Join(d.dir, "kubeconfig-relist")); err != nil {
			return res, err
		}
		defer proxy.close()
		cc.Kubeconfig = proxy.kubeconfig
	}
	cc.CPUProfile = profile(d.cfg.ClientProfileDir, "client-sync")
	cc.HeapProfile = profile(d.cfg.ClientProfileDir, "client-heap")
	// Let the server settle after the previous run (closing watches), then
	// collect the garbage of the previous run, so that it is not counted
	// against this one.
	time.Sleep(d.cfg.Settle)
	if err := d.srv.gc(ctx); err != nil {
		return res, err
	}
	lists0, watches0, err := d.requestCounts(ctx, resource)
	if err != nil {
		return res, err
	}
	if p := profile(d.cfg.ServerProfileDir, "server-sync"); p != "" {
		if err := d.srv.startProfile(ctx, p); err != nil {
			return res, err
		}
	}
	cmd := exec.Command(exe)
	if d.cfg.ContenderMemMaxMiB > 0 {
		cg, cgErr := newMemCgroup(d.cfg.MemLimit.CgroupRoot, fmt.Sprintf("bench-builtin-%d-%s", os.Getpid(), strings.ReplaceAll(round, "@", "-")), int64(d.cfg.ContenderMemMaxMiB)<<20)
		if cgErr != nil {
			return res, fmt.Errorf("-contender-memmax: %w", cgErr)
		}
		// Registered before the deferred kill below: runs after it.
		defer cg.remove()
		defer func() {
			if _, _, oom := cg.stats(); err != nil && oom > 0 {
				err = fmt.Errorf("OOM-killed at its %d MiB hard limit (-contender-memmax): %w", d.cfg.ContenderMemMaxMiB, err)
			}
		}()
		// The shell joins the cgroup, then becomes the contender (exec
		// keeps its pid).
		cmd = exec.Command("/bin/sh", "-c", `echo $$ > "$1" && exec "$2"`, "sh", cg.procs(), exe)
	}
	ccJSON, _ := json.Marshal(cc)
	cmd.Env = append(os.Environ(), proto.EnvConfig+"="+string(ccJSON),
		"KUBE_FEATURE_WatchListClient="+strconv.FormatBool(watchList))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return res, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return res, err
	}
	cpu0, err := d.srv.cpu()
	if err != nil {
		return res, err
	}
	// The server's peak RSS from here to the sync.
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", d.srv.pid), []byte("5"), 0); err != nil {
		return res, fmt.Errorf("resetting the server's peak RSS: %w", err)
	}
	res.Load1 = load1()
	if err := cmd.Start(); err != nil {
		return res, err
	}
	// The child's peak RSS as /proc shows it while it runs, for a run
	// that fails (an OOM kill leaves no report).
	hwmDone := make(chan struct{})
	var hwm atomic.Int64
	go func() {
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			// The largest seen: the relist resets VmHWM.
			if v, err := procHWM(cmd.Process.Pid); err == nil && v > hwm.Load() {
				hwm.Store(v)
			}
			select {
			case <-hwmDone:
				return
			case <-tick.C:
			}
		}
	}()
	defer func() {
		close(hwmDone)
		if res.MaxRSS == 0 {
			res.MaxRSS = hwm.Load()
		}
	}()
	waited := false
	defer func() {
		if !waited {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	timeout := time.NewTimer(d.cfg.Timeout)
	defer timeout.Stop()
	next := func(tag string, v any) error {
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					return fmt.Errorf("contender exited before %s: %s", tag, strings.TrimSpace(stderr.String()))
				}
				rest, found := strings.CutPrefix(l, tag+" ")
				if !found {
					continue
				}
				return json.Unmarshal([]byte(rest), v)
			case <-timeout.C:
				e := strings.TrimSpace(stderr.String())
				return fmt.Errorf("no %s within %v: %s", tag, d.cfg.Timeout, e[max(0, len(e)-2000):])
			case <-ctx.Done():
				return context.Cause(ctx)
			}
		}
	}
	if err := next("SYNCED", &res.Sync); err != nil {
		return res, err
	}
	cpu1, err := d.srv.cpu()
	if err != nil {
		return res, err
	}
	res.ServerCPUSync = cpu1 - cpu0
	sm := procMemory(d.srv.pid)
	res.ServerRSS, res.ServerPeakRSS = sm.RSS, sm.HWM
	if d.cfg.ServerProfileDir != "" {
		if err := d.srv.stopProfile(ctx); err != nil {
			return res, err
		}
	}
	if res.Sync.Objects != size || res.Sync.Adds != int64(size) {
		return res, fmt.Errorf("synced %d objects with %d adds, want %d", res.Sync.Objects, res.Sync.Adds, size)
	}
	var hwmSync int64
	if proxy != nil {
		if hwmSync, err = procHWM(cmd.Process.Pid); err != nil {
			return res, err
		}
		rep, err := relist(ctx, proxy, cmd.Process.Pid, resource, d.cfg.Timeout, d.relistChange(resource, size))
		if err != nil {
			return res, fmt.Errorf("relist: %w", err)
		}
		res.Relist = &rep
	}
	stdin.Close()
	var done proto.DoneReport
	if err := next("DONE", &done); err != nil {
		return res, err
	}
	// The relist reset VmHWM: the peak before it counts too.
	res.MaxRSS = max(done.MaxRSSBytes, hwmSync)
	waited = true
	if err := cmd.Wait(); err != nil {
		return res, fmt.Errorf("contender: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		res.TotalCPU = proto.CPUSeconds(ru)
	}
	// A WATCH is counted when it ends: give the server a moment to see
	// the closed connection.
	time.Sleep(300 * time.Millisecond)
	lists1, watches1, err := d.requestCounts(ctx, resource)
	if err != nil {
		return res, err
	}
	res.Lists, res.Watches = lists1-lists0, watches1-watches0
	return res, nil
}
