package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informer-gen/informer-gen/bench/builtin/internal/proto"
)

// memLimitConfig is the driver's memory-limited start (-memlimit): each
// contender runs in a memory cgroup of its own with a hard limit and
// GOMEMLIMIT at GoMemLimitPercent of it, until synced and then Hold under
// UpdateRate Pod updates per second; the smallest limit of Ladder at which
// it does so is searched for (bisection: a larger limit is assumed to pass
// when a smaller one does).
type memLimitConfig struct {
	// Ladder is the limits to search, MiB, increasing.
	Ladder []int
	// GoMemLimitPercent of the hard limit is the contender's GOMEMLIMIT.
	GoMemLimitPercent int
	// Hold is how long a synced contender must stay up under updates.
	Hold time.Duration
	// UpdateRate is the Pod updates per second during Hold (a merge patch
	// of one annotation, round-robin over the Pods).
	UpdateRate int
	// SyncTimeout bounds the time to sync: a contender that has not synced
	// by then (e.g. collecting garbage without end at its GOMEMLIMIT) fails
	// at that limit.
	SyncTimeout time.Duration
	// CgroupRoot is the memory cgroup hierarchy the trials' cgroups are
	// made in: a cgroup v1 memory controller's mount or a cgroup v2 tree
	// with the memory controller enabled for its children.
	CgroupRoot string
	// BaseExe, when set, runs the contenders named NAME@base (BaseSuffix)
	// from that binary: a contender built from another commit, for a
	// before/after comparison in one run.
	BaseExe string
}

// memLimitFor holds the ladders of -memlimit-for, by contender: a
// contender named there bisects its own ladder rather than -memlimit's, so
// that contenders whose limits lie far apart (at 88k Pods, ~150 MiB for the
// projection, ~2 GiB for client-go's typed informer) each take two or three
// trials rather than four or five over one ladder spanning them all.
var memLimitFor = map[string][]int{}

func init() {
	flag.Func("memlimit-for", "with -memlimit: a ladder of its own per contender, `NAME=MiB,MiB,...;NAME=...` (increasing), bisected instead of -memlimit's for that contender (the last -memlimit-for replaces any earlier; empty: none)", func(s string) error {
		clear(memLimitFor)
		for _, part := range strings.Split(s, ";") {
			if part = strings.TrimSpace(part); part == "" {
				continue
			}
			name, list, ok := strings.Cut(part, "=")
			if !ok {
				return fmt.Errorf("%q is not NAME=MiB,MiB,...", part)
			}
			ladder, err := parseInts(list)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if len(ladder) == 0 {
				return fmt.Errorf("%s: empty ladder", name)
			}
			memLimitFor[strings.TrimSpace(name)] = ladder
		}
		return nil
	})
}

// ladder is the ladder contender name bisects.
func (mc memLimitConfig) ladder(name string) []int {
	if l, ok := memLimitFor[name]; ok {
		return l
	}
	return mc.Ladder
}

// BaseSuffix names a contender run from memLimitConfig.BaseExe.
const BaseSuffix = "@base"

// memTrial is one contender run at one limit.
type memTrial struct {
	Contender string
	LimitMiB  int
	// Outcome is "synced" (synced and stayed up for the hold under
	// updates), "killed" (the kernel's OOM killer, or any SIGKILL) or
	// "failed" (anything else: Err says what).
	Outcome string
	Err     string `json:",omitempty"`
	// SyncSeconds is start → synced (0 if it did not sync).
	SyncSeconds float64
	// Updates is the Pod updates the server accepted during the hold.
	Updates int64
	// PeakBytes is the cgroup's peak charge (memory.max_usage_in_bytes,
	// memory.peak); Failcnt the times the charge hit the limit (v1's
	// memory.failcnt, v2's "max" event); OOMKills the OOM killer's kills in
	// the cgroup.
	PeakBytes         int64
	Failcnt, OOMKills int64
	// MaxRSSBytes is the contender's own peak RSS (VmHWM) when it reported
	// one; HeapAfterGC its heap once synced, after a GC.
	MaxRSSBytes int64
	HeapAfterGC uint64
}

func (t memTrial) passed() bool { return t.Outcome == "synced" }

// memLimits searches each contender's smallest passing limit for resource
// (Pods) at size, printing every trial to the driver's log as it ends and
// a summary table to out.
func (d *driver) memLimits(ctx context.Context, resource string, size int, out io.Writer) error {
	mc := d.cfg.MemLimit
	if resource != proto.Pods {
		return fmt.Errorf("-memlimit measures Pods only, not %s", resource)
	}
	type row struct {
		name   string
		ladder []int
		trials []memTrial
		pass   int // index in the ladder of the smallest passing limit, -1: none
	}
	var rows []row
	for _, name := range d.cfg.Contenders {
		r := row{name: name, ladder: mc.ladder(name)}
		var err error
		r.pass, err = bisectLadder(len(r.ladder), func(i int) (bool, error) {
			t, err := d.memTrial(ctx, size, name, r.ladder[i])
			if err != nil {
				return false, err
			}
			r.trials = append(r.trials, t)
			b, _ := json.Marshal(t)
			fmt.Fprintf(d.log, "memlimit %s\n", b)
			return t.passed(), nil
		})
		if err != nil {
			return err
		}
		rows = append(rows, r)
	}
	fmt.Fprintf(out, "\nMemory-limited start: %d %s, hard limit (memory cgroup) with GOMEMLIMIT at %d%% of it, synced and up for %v under %d Pod updates/s; WatchList %v\n",
		size, resource, mc.GoMemLimitPercent, mc.Hold, mc.UpdateRate, d.cfg.WatchList[0])
	fmt.Fprintf(out, "ladder (MiB): %s", joinInts(mc.Ladder))
	for _, r := range rows {
		if _, ok := memLimitFor[r.name]; ok {
			fmt.Fprintf(out, "; %s: %s", r.name, joinInts(r.ladder))
		}
	}
	fmt.Fprint(out, "\n\n")
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "contender\tsmallest passing\tkilled / failed below it\tsync s\tpeak MiB\ttrials (MiB: outcome)\t")
	for _, r := range rows {
		passing, below, syncS, peak := "none", "-", "-", "-"
		if r.pass >= 0 {
			passing = fmt.Sprintf("%d MiB", r.ladder[r.pass])
		}
		for _, t := range r.trials {
			if r.pass >= 0 && t.LimitMiB == r.ladder[r.pass] {
				syncS = fmt.Sprintf("%.1f", t.SyncSeconds)
				peak = fmt.Sprintf("%.0f", float64(t.PeakBytes)/(1<<20))
			}
			if r.pass > 0 && t.LimitMiB == r.ladder[r.pass-1] {
				below = fmt.Sprintf("%d MiB %s", t.LimitMiB, t.Outcome)
			}
			if r.pass < 0 && t.LimitMiB == r.ladder[len(r.ladder)-1] {
				below = fmt.Sprintf("%d MiB %s", t.LimitMiB, t.Outcome)
			}
		}
		var tr []string
		for _, t := range r.trials {
			tr = append(tr, fmt.Sprintf("%d: %s", t.LimitMiB, t.Outcome))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", r.name, passing, below, syncS, peak, strings.Join(tr, ", "))
	}
	return tw.Flush()
}

// bisectLadder returns the smallest index in [0, n) at which pass is
// true, or -1 when there is none, calling pass about log2(n+1) times: pass
// is taken to be monotone (true at an index, true at every larger one).
func bisectLadder(n int, pass func(int) (bool, error)) (int, error) {
	lo, hi := 0, n // the answer is in [lo, hi]; hi == n: none passes
	for lo < hi {
		mid := (lo + hi) / 2
		ok, err := pass(mid)
		if err != nil {
			return -1, err
		}
		if ok {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	if lo == n {
		return -1, nil
	}
	return lo, nil
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// memTrial runs contender name once in a fresh memory cgroup limited to
// limitMiB. An error is returned only when the trial could not be made
// (cgroup, server); a contender that dies or fails is a trial's outcome.
func (d *driver) memTrial(ctx context.Context, size int, name string, limitMiB int) (memTrial, error) {
	mc := d.cfg.MemLimit
	t := memTrial{Contender: name, LimitMiB: limitMiB}
	exe := d.cfg.ContenderExe
	contender := name
	if base, ok := strings.CutSuffix(name, BaseSuffix); ok {
		contender, exe = base, mc.BaseExe
		if exe == "" {
			return t, fmt.Errorf("%s: no -memlimit-base-bin", name)
		}
	}
	limit := int64(limitMiB) << 20
	cg, err := newMemCgroup(mc.CgroupRoot, fmt.Sprintf("bench-memlimit-%d-%s-%d", os.Getpid(), strings.ReplaceAll(name, "@", "-"), limitMiB), limit)
	if err != nil {
		return t, err
	}
	defer cg.remove()

	cc := proto.ContenderConfig{
		Kubeconfig: d.kubeconfig,
		Contender:  contender,
		Resource:   proto.Pods,
		WatchList:  d.cfg.WatchList[0],
		Expect:     size,
		// The contender's informers run until this ends: past the hold.
		Timeout:            mc.SyncTimeout + mc.Hold + time.Minute,
		DisableCompression: d.cfg.DisableCompression,
	}
	if dir := d.cfg.ClientProfileDir; dir != "" {
		cc.HeapProfile = filepath.Join(dir, fmt.Sprintf("memlimit-%s-%d.client-heap.pprof", strings.ReplaceAll(name, "@", "-"), limitMiB))
	}
	time.Sleep(d.cfg.Settle)
	if err := d.srv.gc(ctx); err != nil {
		return t, err
	}
	ccJSON, _ := json.Marshal(cc)
	// The shell joins the cgroup and then becomes the contender (exec keeps
	// its pid), so that every byte the contender's runtime maps is charged
	// to the cgroup from its first instruction.
	cmd := exec.Command("/bin/sh", "-c", `echo $$ > "$1" && exec "$2"`, "sh", cg.procs(), exe)
	cmd.Env = append(os.Environ(), proto.EnvConfig+"="+string(ccJSON),
		"KUBE_FEATURE_WatchListClient="+strconv.FormatBool(cc.WatchList),
		"GOMEMLIMIT="+strconv.FormatInt(limit*int64(mc.GoMemLimitPercent)/100, 10))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return t, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return t, err
	}
	if err := cmd.Start(); err != nil {
		return t, err
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	// finish closes stdin (the contender then reports DONE and exits),
	// waits for the process and classifies its end: cause is why the
	// driver stopped waiting, nil if it saw every line it waited for.
	finish := func(cause error) (memTrial, error) {
		stdin.Close()
		go func() {
			for range lines { // whatever it prints until its end
			}
		}()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var werr error
		select {
		case werr = <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			werr = <-done
		}
		t.PeakBytes, t.Failcnt, t.OOMKills = cg.stats()
		ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
		e := strings.TrimSpace(stderr.String())
		e = e[max(0, len(e)-500):]
		switch {
		case t.OOMKills > 0 || (ws.Signaled() && ws.Signal() == syscall.SIGKILL):
			t.Outcome = "killed"
		case cause != nil:
			t.Outcome = "failed"
			t.Err = cause.Error() + ": " + e
		case werr != nil:
			t.Outcome = "failed"
			t.Err = werr.Error() + ": " + e
		default:
			t.Outcome = "synced"
		}
		return t, nil
	}
	wait := func(tag string, timeout time.Duration, v any) error {
		timer := time.NewTimer(timeout)
		defer timer.Stop()
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					return fmt.Errorf("contender exited before %s", tag)
				}
				if rest, found := strings.CutPrefix(l, tag+" "); found {
					return json.Unmarshal([]byte(rest), v)
				}
			case <-timer.C:
				return fmt.Errorf("no %s within %v", tag, timeout)
			case <-ctx.Done():
				return context.Cause(ctx)
			}
		}
	}
	var synced proto.SyncReport
	if err := wait("SYNCED", mc.SyncTimeout, &synced); err != nil {
		if ctx.Err() != nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			return t, err
		}
		return finish(err)
	}
	t.SyncSeconds = synced.SyncSeconds
	t.MaxRSSBytes = synced.MaxRSSBytes
	t.HeapAfterGC = synced.HeapAfterGC
	if synced.Objects != size {
		return finish(fmt.Errorf("synced %d objects, want %d", synced.Objects, size))
	}
	// The hold: updates until it ends or the contender exits.
	hctx, cancel := context.WithTimeout(ctx, mc.Hold)
	var updates atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() { d.updatePods(hctx, size, mc.UpdateRate, &updates) })
	var died error
	select {
	case _, ok := <-lines:
		for ok { // anything it prints before its end is ignored
			_, ok = <-lines
		}
		died = errors.New("contender exited during the hold")
	case <-hctx.Done():
	}
	cancel()
	wg.Wait()
	t.Updates = updates.Load()
	if ctx.Err() != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return t, context.Cause(ctx)
	}
	if died != nil {
		return finish(died)
	}
	stdin.Close() // asks for DONE
	var done proto.DoneReport
	if err := wait("DONE", 30*time.Second, &done); err != nil {
		return finish(err)
	}
	t.MaxRSSBytes = done.MaxRSSBytes
	return finish(nil)
}

// updatePods patches one annotation of Pods round-robin at rate per second
// until ctx ends, counting the accepted writes in n. Failed writes are
// not retried (the next tick writes the next Pod).
func (d *driver) updatePods(ctx context.Context, size, rate int, n *atomic.Int64) {
	if rate <= 0 {
		<-ctx.Done()
		return
	}
	const writers = 8
	next := make(chan int, writers)
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			for i := range next {
				patch := fmt.Sprintf(`{"metadata":{"annotations":{"bench.informer-gen.io/update":"%d"}}}`, time.Now().UnixNano())
				_, err := d.cs.CoreV1().Pods(namespace(i)).Patch(ctx, "pod-"+strconv.Itoa(i), types.MergePatchType, []byte(patch), metav1.PatchOptions{})
				if err == nil {
					n.Add(1)
				}
			}
		})
	}
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	for i := 0; ; i = (i + 1) % size {
		select {
		case <-tick.C:
			select {
			case next <- i:
			default: // the writers lag: skip rather than queue
			}
			continue
		case <-ctx.Done():
		}
		break
	}
	close(next)
	wg.Wait()
}

// memCgroup is one memory cgroup, v1 or v2.
type memCgroup struct {
	dir string
	v2  bool
}

// newMemCgroup makes cgroup name under root with a hard limit of limit
// bytes and no swap.
func newMemCgroup(root, name string, limit int64) (*memCgroup, error) {
	c := &memCgroup{dir: filepath.Join(root, name)}
	if _, err := os.Stat(filepath.Join(root, "memory.limit_in_bytes")); err == nil {
		// v1: the root of the memory controller's hierarchy (or a cgroup
		// in it).
	} else if b, err := os.ReadFile(filepath.Join(root, "cgroup.subtree_control")); err == nil && slices.Contains(strings.Fields(string(b)), "memory") {
		c.v2 = true
	} else {
		return nil, fmt.Errorf("%s is neither a cgroup v1 memory hierarchy (no memory.limit_in_bytes) nor a cgroup v2 one with the memory controller enabled for its children (cgroup.subtree_control)", root)
	}
	if err := os.Mkdir(c.dir, 0o755); err != nil {
		return nil, err
	}
	lim := strconv.FormatInt(limit, 10)
	var files [][2]string
	if c.v2 {
		files = [][2]string{{"memory.max", lim}, {"memory.swap.max", "0"}}
	} else {
		files = [][2]string{{"memory.limit_in_bytes", lim}}
		if _, err := os.Stat(filepath.Join(c.dir, "memory.memsw.limit_in_bytes")); err == nil {
			files = append(files, [2]string{"memory.memsw.limit_in_bytes", lim})
		}
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(c.dir, f[0]), []byte(f[1]), 0o644); err != nil && !(c.v2 && f[0] == "memory.swap.max" && errors.Is(err, os.ErrNotExist)) {
			c.remove()
			return nil, fmt.Errorf("setting %s: %w", f[0], err)
		}
	}
	return c, nil
}

func (c *memCgroup) procs() string { return filepath.Join(c.dir, "cgroup.procs") }

// stats reads the cgroup's peak charge, the times it hit its limit and the
// OOM killer's kills in it (0 where the kernel does not say).
func (c *memCgroup) stats() (peak, failcnt, oomKills int64) {
	num := func(file string) int64 {
		b, _ := os.ReadFile(filepath.Join(c.dir, file))
		n, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		return n
	}
	field := func(file, key string) int64 {
		b, _ := os.ReadFile(filepath.Join(c.dir, file))
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) == 2 && f[0] == key {
				n, _ := strconv.ParseInt(f[1], 10, 64)
				return n
			}
		}
		return 0
	}
	if c.v2 {
		return num("memory.peak"), field("memory.events", "max"), field("memory.events", "oom_kill")
	}
	return num("memory.max_usage_in_bytes"), num("memory.failcnt"), field("memory.oom_control", "oom_kill")
}

// remove deletes the cgroup once its processes are gone.
func (c *memCgroup) remove() {
	for range 50 {
		if err := os.Remove(c.dir); err == nil || errors.Is(err, os.ErrNotExist) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}
