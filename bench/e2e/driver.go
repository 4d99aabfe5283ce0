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
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1alpha1"

	"github.com/informer-gen/informer-gen/bench/e2e/internal/proto"
)

// driverConfig is the driver's flags.
type driverConfig struct {
	Sizes      []int
	Runs       int
	Updates    int
	Contenders []string
	WatchList  []bool
	Writers    int
	Timeout    time.Duration
	Verbose    bool
	// Settle is the pause before each run.
	Settle time.Duration
	// Exe is the binary to start the server from; empty means this one.
	Exe string
	// ContenderExe is the contender binary (bench/e2e/contender).
	ContenderExe string
	// ContenderNextExe is the same built on the next Kubernetes minor
	// (next.mod): it runs the contenders named with proto.NextSuffix.
	ContenderNextExe string
	// Write is how the updates are written: "patch" (a JSON merge patch of
	// one label, the default) or "put" (an Update of the whole object with
	// the resourceVersion read by a LIST before the run).
	Write string
	// ServerProfileDir, when not empty, receives a CPU profile of the
	// server for every run's sync (<run>.server-sync.pprof) and update
	// phase (<run>.server-updates.pprof); ClientProfileDir one of every
	// contender from its start to its sync (<run>.client-sync.pprof).
	ServerProfileDir, ClientProfileDir string
}

// runResult is one contender run.
type runResult struct {
	Size      int
	Contender string
	WatchList bool
	Sync      proto.SyncReport
	// ServerCPUSync is the server process's user+sys from the contender's
	// start to its SYNCED line.
	ServerCPUSync float64
	// Lists and Watches are the LIST and WATCH requests for foos the server
	// completed during the run (apiserver_request_total).
	Lists, Watches int
	// UpdatesSeen is the time from the first update written to the
	// contender's report that its handler saw all of them; UpdatesWritten
	// the time until the last write returned.
	UpdatesSeen, UpdatesWritten float64
	ServerCPUUpdates            float64
	UpdatesCount                int
	// UpdatesClientCPU is the contender's user+sys from its SYNCED line to
	// the moment it had seen every update.
	UpdatesClientCPU float64
	// TotalCPU is the child's user+sys at exit, MaxRSS its peak RSS.
	TotalCPU float64
	MaxRSS   int64
}

const (
	benchNSPrefix = proto.NamespacePrefix
	namespaces    = proto.Namespaces
)

// runDriver starts the server, creates the objects of each size and runs
// every contender and mode cfg.Runs times, alternated. Progress goes to log.
func runDriver(ctx context.Context, cfg driverConfig, log io.Writer) ([]runResult, error) {
	if cfg.Exe == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		cfg.Exe = exe
	}
	if cfg.ContenderExe == "" {
		return nil, errors.New("no contender binary (build bench/e2e/contender)")
	}
	if cfg.Writers <= 0 {
		cfg.Writers = 32
	}
	dir, err := os.MkdirTemp("", "bench-e2e-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	srv, err := startServer(ctx, cfg.Exe, dir)
	if err != nil {
		return nil, err
	}
	defer srv.stop()
	restCfg, err := clientcmd.BuildConfigFromFlags("", srv.kubeconfig)
	if err != nil {
		return nil, err
	}
	restCfg.QPS, restCfg.Burst = -1, 0
	rc, _, err := proto.FooClient(restCfg)
	if err != nil {
		return nil, err
	}
	httpClient, err := rest.HTTPClientFor(restCfg)
	if err != nil {
		return nil, err
	}
	d := &driver{cfg: cfg, srv: srv, rc: rc, http: httpClient, host: restCfg.Host, kubeconfig: srv.kubeconfig, log: log}

	var results []runResult
	have := 0
	for _, size := range cfg.Sizes {
		if size > have {
			start := time.Now()
			if err := d.createFoos(ctx, have, size); err != nil {
				return results, err
			}
			fmt.Fprintf(log, "created Foos %d..%d in %.1fs\n", have, size-1, time.Since(start).Seconds())
			have = size
		}
		for r := 0; r < cfg.Runs; r++ {
			for _, wl := range cfg.WatchList {
				// Rotate the order so that no contender always runs first
				// (after a quiet server) or right after the same neighbour.
				n := len(cfg.Contenders)
				for i := 0; i < n; i++ {
					name := cfg.Contenders[(i+r)%n]
					res, err := d.runOne(ctx, size, name, wl, fmt.Sprintf("s%d-r%d-%s-%t", size, r, name, wl))
					if err != nil {
						return results, fmt.Errorf("%s, %d Foos, WatchList %t, run %d: %w", name, size, wl, r+1, err)
					}
					if cfg.Verbose {
						b, _ := json.Marshal(res)
						fmt.Fprintf(log, "run %s\n", b)
					} else {
						fmt.Fprintf(log, "%6d %-19s watchlist=%-5t run %d: synced %.2fs, client CPU %.2fs, server CPU %.2fs, %d LIST %d WATCH, updates seen %.2fs\n",
							size, name, wl, r+1, res.Sync.SyncSeconds, res.Sync.CPUSeconds, res.ServerCPUSync, res.Lists, res.Watches, res.UpdatesSeen)
					}
					results = append(results, res)
				}
			}
		}
	}
	return results, nil
}

type driver struct {
	cfg        driverConfig
	srv        *serverProc
	rc         *rest.RESTClient
	http       *http.Client
	host       string
	kubeconfig string
	log        io.Writer
}

// fooObject is a Foo with realistic metadata: five labels, two
// annotations, a spec with a host (~0.9 KB as JSON with the server's
// managedFields).
func fooObject(i int) *v1alpha1.Foo {
	ns := benchNSPrefix + strconv.Itoa(i%namespaces)
	name := fmt.Sprintf("foo-%06d", i)
	tiers := [...]string{"web", "api", "db"}
	return &v1alpha1.Foo{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ns,
			Name:      name,
			Labels: map[string]string{
				"app.kubernetes.io/name":    fmt.Sprintf("app-%d", i%50),
				"app.kubernetes.io/part-of": fmt.Sprintf("system-%d", i%7),
				"tier":                      tiers[i%3],
				"team":                      fmt.Sprintf("team-%d", i%8),
				"environment":               "production",
			},
			Annotations: map[string]string{
				"example.com/owner":       fmt.Sprintf("team-%d@example.com", i%8),
				"example.com/description": "a Foo created by the end-to-end benchmark to stand for a typical custom resource",
			},
		},
		Spec: v1alpha1.FooSpec{
			DeploymentName: "deploy-" + name,
			Replicas:       int32(i % 5),
			HostName:       fmt.Sprintf("host-%d", i%20),
		},
	}
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

func (d *driver) createFoos(ctx context.Context, from, to int) error {
	return parallel(ctx, d.cfg.Writers, from, to, func(ctx context.Context, i int) error {
		foo := fooObject(i)
		err := d.rc.Post().Namespace(foo.Namespace).Resource("foos").Body(foo).Do(ctx).Error()
		if err != nil {
			return fmt.Errorf("creating Foo %s/%s: %w", foo.Namespace, foo.Name, err)
		}
		return nil
	})
}

// update labels Foo i with round: a JSON merge patch without a
// resourceVersion precondition (as fast as the server takes them), or, with
// rvs (-write put), an Update of the whole object at rvs[i].
func (d *driver) update(ctx context.Context, i int, round string, rvs []string) error {
	foo := fooObject(i)
	var err error
	if rvs != nil {
		foo.Labels[proto.RoundLabel] = round
		foo.ResourceVersion = rvs[i]
		err = d.rc.Put().Namespace(foo.Namespace).Resource("foos").Name(foo.Name).Body(foo).Do(ctx).Error()
	} else {
		patch := []byte(`{"metadata":{"labels":{"` + proto.RoundLabel + `":"` + round + `"}}}`)
		err = d.rc.Patch(types.MergePatchType).Namespace(foo.Namespace).Resource("foos").Name(foo.Name).Body(patch).Do(ctx).Error()
	}
	if err != nil {
		return fmt.Errorf("updating Foo %s/%s: %w", foo.Namespace, foo.Name, err)
	}
	return nil
}

// resourceVersions returns the resourceVersion of Foo i for i < n, from one
// LIST.
func (d *driver) resourceVersions(ctx context.Context, n int) ([]string, error) {
	var l v1alpha1.FooList
	if err := d.rc.Get().Resource("foos").Do(ctx).Into(&l); err != nil {
		return nil, fmt.Errorf("listing foos for their resourceVersions: %w", err)
	}
	rvs := make([]string, n)
	for _, f := range l.Items {
		var i int
		if _, err := fmt.Sscanf(f.Name, "foo-%d", &i); err == nil && i < n {
			rvs[i] = f.ResourceVersion
		}
	}
	for i, rv := range rvs {
		if rv == "" {
			return nil, fmt.Errorf("no Foo %d on the server", i)
		}
	}
	return rvs, nil
}

// requestCounts returns the LIST and WATCH requests for foos the server has
// completed so far, from apiserver_request_total on /metrics.
func (d *driver) requestCounts(ctx context.Context) (lists, watches int, err error) {
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
		if !strings.HasPrefix(line, "apiserver_request_total{") || !strings.Contains(line, `resource="foos"`) || !strings.Contains(line, `subresource=""`) {
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

// runOne runs one contender in a fresh process: sync, then the updates.
func (d *driver) runOne(ctx context.Context, size int, name string, watchList bool, round string) (runResult, error) {
	res := runResult{Size: size, Contender: name, WatchList: watchList}
	nUpdates := min(d.cfg.Updates, size)
	contender, fromNext := proto.CutNext(name)
	exe := d.cfg.ContenderExe
	if fromNext {
		exe = d.cfg.ContenderNextExe
		if exe == "" {
			return res, fmt.Errorf("%s: no next contender binary (build ./contender with -modfile=next.mod)", name)
		}
	}
	base, listMode, _ := strings.Cut(contender, ":")
	// The round names the run in a label value and in file names.
	round = strings.NewReplacer(":", "_", proto.NextSuffix, "_next").Replace(round)
	cc := proto.ContenderConfig{
		Kubeconfig: d.kubeconfig,
		Contender:  base,
		OursList:   listMode,
		WatchList:  watchList,
		Expect:     size,
		Round:      round,
		Updates:    nUpdates,
		Timeout:    d.cfg.Timeout,
	}
	profile := func(dir, what string) string {
		if dir == "" {
			return ""
		}
		return filepath.Join(dir, round+"."+what+".pprof")
	}
	cc.CPUProfile = profile(d.cfg.ClientProfileDir, "client-sync")
	var rvs []string
	if d.cfg.Write == "put" && nUpdates > 0 {
		var err error
		if rvs, err = d.resourceVersions(ctx, nUpdates); err != nil {
			return res, err
		}
	}
	// Let the server settle after the previous run (closing watches), then
	// collect the garbage of the previous run, so that it is not counted
	// against this one.
	time.Sleep(d.cfg.Settle)
	if err := d.srv.gc(ctx); err != nil {
		return res, err
	}
	lists0, watches0, err := d.requestCounts(ctx)
	if err != nil {
		return res, err
	}
	if p := profile(d.cfg.ServerProfileDir, "server-sync"); p != "" {
		if err := d.srv.startProfile(ctx, p); err != nil {
			return res, err
		}
	}
	cmd := exec.Command(exe)
	cc.ExecUnixNano = time.Now().UnixNano()
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
	if err := cmd.Start(); err != nil {
		return res, err
	}
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
	// writeFailed, once the updates are being written, is closed if a write
	// failed: the contender will then never see them all.
	var writeFailed chan struct{}
	next := func(tag string, v any) error {
		for {
			select {
			case <-writeFailed:
				return fmt.Errorf("no %s: writing the updates failed", tag)
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

	res.UpdatesCount = nUpdates
	if nUpdates > 0 {
		if p := profile(d.cfg.ServerProfileDir, "server-updates"); p != "" {
			if err := d.srv.startProfile(ctx, p); err != nil {
				return res, err
			}
		}
		start := time.Now()
		written := make(chan error, 1)
		writeFailed = make(chan struct{})
		go func() {
			err := parallel(ctx, d.cfg.Writers, 0, nUpdates, func(ctx context.Context, i int) error { return d.update(ctx, i, cc.Round, rvs) })
			res.UpdatesWritten = time.Since(start).Seconds()
			if err != nil {
				close(writeFailed)
			}
			written <- err
		}()
		var ur proto.UpdateReport
		err := next("UPDATES", &ur)
		res.UpdatesSeen = time.Since(start).Seconds()
		if werr := <-written; werr != nil {
			return res, werr
		}
		if err != nil {
			return res, err
		}
		res.UpdatesClientCPU = ur.CPUSeconds - res.Sync.CPUSeconds
		if ur.Seen != int64(nUpdates) {
			return res, fmt.Errorf("saw %d updates, want %d", ur.Seen, nUpdates)
		}
		cpu2, err := d.srv.cpu()
		if err != nil {
			return res, err
		}
		res.ServerCPUUpdates = cpu2 - cpu1
		if d.cfg.ServerProfileDir != "" {
			if err := d.srv.stopProfile(ctx); err != nil {
				return res, err
			}
		}
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
	lists1, watches1, err := d.requestCounts(ctx)
	if err != nil {
		return res, err
	}
	res.Lists, res.Watches = lists1-lists0, watches1-watches0
	return res, nil
}
