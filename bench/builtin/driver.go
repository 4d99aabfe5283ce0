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
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/informer-gen/informer-gen/bench/builtin/internal/proto"
	"github.com/informer-gen/informer-gen/examples/builtin/objects"
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
	// SeedAPI creates the Pods through the API (create, then status) rather
	// than writing them into the server's etcd (podSeeder).
	SeedAPI bool
	// PodShape is shapeRealistic (the default) or shapeSmall.
	PodShape string
	// JSON, when not empty, is a file the results are written to (all runs
	// so far, rewritten after each run): what hack/plotscale reads.
	JSON string
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
	start := time.Now()
	srv, err := startServer(ctx, cfg.Exe, dir)
	if err != nil {
		return nil, err
	}
	defer srv.stop()
	fmt.Fprintf(log, "kube-apiserver ready in %.1fs\n", time.Since(start).Seconds())
	restCfg, err := clientcmd.BuildConfigFromFlags("", srv.kubeconfig)
	if err != nil {
		return nil, err
	}
	restCfg.QPS, restCfg.Burst = -1, 0 // seeding: no client-side throttling
	httpClient, err := rest.HTTPClientFor(restCfg)
	if err != nil {
		return nil, err
	}
	pbCfg := rest.CopyConfig(restCfg)
	pbCfg.ContentType = "application/vnd.kubernetes.protobuf"
	pbCfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	pbCfg.UserAgent = seedUserAgent
	cs, err := kubernetes.NewForConfig(pbCfg)
	if err != nil {
		return nil, err
	}
	d := &driver{cfg: cfg, srv: srv, cs: cs, http: httpClient, host: restCfg.Host, kubeconfig: srv.kubeconfig, log: log}

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
						if cfg.Verbose {
							b, _ := json.Marshal(res)
							fmt.Fprintf(log, "run %s\n", b)
						} else {
							fmt.Fprintf(log, "%6d %-7s %-27s watchlist=%-5t run %d: synced %.2fs, client CPU %.2fs, server CPU %.2fs, RSS %.0f MB, heap %.1f MB, %d LIST %d WATCH, %s\n",
								size, kind.resource, name, wl, r+1, res.Sync.SyncSeconds, res.Sync.CPUSeconds, res.ServerCPUSync,
								float64(res.Sync.MaxRSSBytes)/1e6, float64(res.Sync.HeapAfterGC)/1e6, res.Lists, res.Watches, res.Sync.Wire)
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
		fmt.Fprintf(log, "holding the server: kubeconfig %s (interrupt to stop)\n", srv.kubeconfig)
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
	srv        *serverProc
	cs         kubernetes.Interface
	http       *http.Client
	host       string
	kubeconfig string
	log        io.Writer
}

// parallel runs fn(i) for i in [from, to) on n goroutines and returns the
// first error (the rest are skipped once one failed).
func parallel(ctx context.Context, n, from, to int, fn func(context.Context, int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < n; w++ {
		wg.Go(func() {
			for i := range next {
				if err := fn(ctx, i); err != nil {
					cancel(err)
				}
			}
		})
	}
feed:
	for i := from; i < to; i++ {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return ctx.Err()
}

func namespace(i int) string { return proto.NamespacePrefix + strconv.Itoa(i%proto.Namespaces) }

// createPods writes Pods from..to-1 into the server's etcd (podSeeder, in
// the server process), or through the API with cfg.SeedAPI (createPodsAPI).
// Either way, it then waits until the server serves all of them: a LIST
// (a consistent read, from the watch cache once it has caught up) counts
// to Pods.
func (d *driver) createPods(ctx context.Context, from, to int) error {
	if d.cfg.SeedAPI {
		if err := d.createPodsAPI(ctx, from, to); err != nil {
			return err
		}
	} else {
		shape := d.cfg.PodShape
		if shape == "" {
			shape = shapeRealistic
		}
		l, err := d.srv.commandWithin(ctx, 2*time.Hour, fmt.Sprintf("SEED %s %d %d %d", shape, from, to, d.cfg.Writers), "SEEDED", "SEEDERR")
		if err != nil {
			return err
		}
		if !strings.HasPrefix(l, "SEEDED") {
			return fmt.Errorf("server: %s", l)
		}
	}
	list, err := d.cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return fmt.Errorf("counting the Pods: %w", err)
	}
	n := len(list.Items)
	if list.RemainingItemCount != nil {
		n += int(*list.RemainingItemCount)
	}
	if n != to {
		return fmt.Errorf("the server serves %d Pods, want %d", n, to)
	}
	return nil
}

// createPodsAPI creates Pods from..to-1 and then writes each one's status
// through the status subresource, as a kubelet does: the server drops a
// status sent with a create, and each Pod ends with two managedFields
// entries as the server writes them (the create's manager, and the status
// update's with subresource "status"). Writes the server fails for a
// transient reason (a timeout, etcd's "request timed out" on a loaded
// machine, 429, 5xx) are retried (retry).
func (d *driver) createPodsAPI(ctx context.Context, from, to int) error {
	shape := d.cfg.PodShape
	if shape == "" {
		shape = shapeRealistic
	}
	return parallel(ctx, d.cfg.Writers, from, to, func(ctx context.Context, i int) error {
		p := makePod(shape, namespace(i), i)
		pods := d.cs.CoreV1().Pods(p.Namespace)
		var created *corev1.Pod
		err := retry(ctx, func() (err error) {
			created, err = pods.Create(ctx, p, metav1.CreateOptions{})
			if apierrors.IsAlreadyExists(err) { // an earlier attempt went through
				created, err = pods.Get(ctx, p.Name, metav1.GetOptions{})
			}
			return err
		})
		if err != nil {
			return fmt.Errorf("creating Pod %s/%s: %w", p.Namespace, p.Name, err)
		}
		err = retry(ctx, func() error {
			if created.Status.Phase == corev1.PodRunning {
				return nil // an earlier attempt went through
			}
			setPodStatus(shape, created, i)
			_, err := pods.UpdateStatus(ctx, created, metav1.UpdateOptions{})
			if err != nil {
				var gerr error
				if created, gerr = pods.Get(ctx, p.Name, metav1.GetOptions{}); gerr != nil {
					return errors.Join(err, gerr)
				}
			}
			return err
		})
		if err != nil {
			return fmt.Errorf("writing the status of Pod %s/%s: %w", p.Namespace, p.Name, err)
		}
		return nil
	})
}

func (d *driver) createSecrets(ctx context.Context, from, to int) error {
	return parallel(ctx, d.cfg.Writers, from, to, func(ctx context.Context, i int) error {
		s := objects.Secret(namespace(i), i, d.cfg.SecretBytes)
		err := retry(ctx, func() error {
			_, err := d.cs.CoreV1().Secrets(s.Namespace).Create(ctx, s, metav1.CreateOptions{})
			if apierrors.IsAlreadyExists(err) { // an earlier attempt went through
				return nil
			}
			return err
		})
		if err != nil {
			return fmt.Errorf("creating Secret %s/%s: %w", s.Namespace, s.Name, err)
		}
		return nil
	})
}

// retry calls write until it succeeds, fails for a reason another attempt
// cannot fix, or has failed 10 times, backing off 1 s, 2 s, … up to 10 s
// between attempts. A conflict is retried too: write is expected to have
// read the object again.
func retry(ctx context.Context, write func() error) error {
	var err error
	for attempt := range 10 {
		if err = write(); err == nil {
			return nil
		}
		transient := apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) || apierrors.IsTooManyRequests(err) ||
			apierrors.IsInternalError(err) || apierrors.IsServiceUnavailable(err) || apierrors.IsConflict(err) ||
			strings.Contains(err.Error(), "request timed out")
		if !transient {
			return err
		}
		select {
		case <-time.After(min(time.Duration(attempt+1)*time.Second, 10*time.Second)):
		case <-ctx.Done():
			return errors.Join(err, context.Cause(ctx))
		}
	}
	return err
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
func procHWM(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmHWM")
}

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
			if v, err := procHWM(cmd.Process.Pid); err == nil {
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
	if d.cfg.ServerProfileDir != "" {
		if err := d.srv.stopProfile(ctx); err != nil {
			return res, err
		}
	}
	if res.Sync.Objects != size || res.Sync.Adds != int64(size) {
		return res, fmt.Errorf("synced %d objects with %d adds, want %d", res.Sync.Objects, res.Sync.Adds, size)
	}
	stdin.Close()
	var done proto.DoneReport
	if err := next("DONE", &done); err != nil {
		return res, err
	}
	res.MaxRSS = done.MaxRSSBytes
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
