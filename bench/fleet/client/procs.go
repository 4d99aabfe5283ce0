package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/informer-gen/informer-gen/bench/fleet/internal/endpoints"
	samplev1 "github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/examples/crd/generated/informers"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/workqueue"
)

// member is one process of the comparison: with -single, one generated
// factory over one cluster (no fleet), a queue and two workers; otherwise a
// fleet over every cluster, as in measure. It prints "synced" once every
// cluster has synced and the queue has drained, then runs until stdin
// closes. With -timed it prints "ready" once started, engages on a line
// "go" on stdin and prints "took <ns>" (from engaging until the last of
// eps.Clusters synced) before "synced"; -unreachable adds the unreachable
// cluster to the fleet (it never syncs and is not waited for).
func member(args []string) error {
	fs := flag.NewFlagSet("member", flag.ExitOnError)
	path := fs.String("endpoints", "", "the serve command's endpoints file")
	single := fs.Int("single", -1, "index of the one cluster this process serves with a plain factory; -1: a fleet over all")
	timed := fs.Bool("timed", false, "print ready, engage on \"go\", print took <ns> (fleet only)")
	unreachable := fs.Bool("unreachable", false, "engage the unreachable cluster too (fleet only)")
	first := fs.Int("first", 0, "engage only the first N clusters (fleet only; 0: all)")
	_ = fs.Parse(args)
	eps, err := endpoints.Read(*path)
	if err != nil {
		return err
	}
	quietKlog()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stdin := bufio.NewReader(os.Stdin)
	var c *controller
	if *single < 0 {
		c = startController(ctx)
	}
	if *timed {
		fmt.Println("ready")
		if _, err := stdin.ReadString('\n'); err != nil {
			return err
		}
	}
	go func() {
		_, _ = io.Copy(io.Discard, stdin)
		cancel()
	}()
	if *first > 0 && *first < len(eps.Clusters) {
		eps.Clusters = eps.Clusters[:*first]
	}
	if *single < 0 {
		set := eps.Clusters
		if *unreachable {
			set = append(slices.Clone(set), eps.Unreachable)
		}
		t0 := time.Now()
		if err := c.engage(set...); err != nil {
			return err
		}
		d, err := c.waitSynced(ctx, t0, eps.Clusters)
		if err != nil {
			return err
		}
		if *unreachable {
			if cl, ok := c.fl.Cluster(eps.Unreachable.Name); !ok || cl.HasSynced() {
				return fmt.Errorf("the unreachable cluster synced")
			}
		}
		if *timed {
			fmt.Printf("took %d\n", slices.Max(d))
		}
		c.drained(ctx)
		fmt.Println("synced")
		<-ctx.Done()
		return c.stop()
	}
	ep := eps.Clusters[*single]
	f := informers.NewSharedInformerFactory(ep.Config(), factoryOptions)
	lister := f.Samplecontroller().V1().Foos().Lister()
	q := workqueue.New(workqueue.Options[string]{Name: "foos"})
	if _, err := foos(f).AddHandler(workqueue.Handler[*samplev1.Foo, string]{Queue: q, Key: func(o *samplev1.Foo) string {
		return o.Namespace + "/" + o.Name
	}}, informer.HandlerOptions{}); err != nil {
		return err
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		_ = q.Run(ctx, 2, func(ctx context.Context, k string) error {
			ns, name, _ := strings.Cut(k, "/")
			_, _ = lister.Foos(ns).Get(name)
			return nil
		})
	})
	f.Start(ctx)
	if err := f.WaitForCacheSync(ctx); err != nil {
		return err
	}
	for q.Len() > 0 && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Println("synced")
	<-ctx.Done()
	f.Shutdown()
	wg.Wait()
	return nil
}

// proc is a started member process.
type proc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	ready  chan struct{} // closed on "ready" (members started with -timed)
	synced chan error
	took   time.Duration // from "took <ns>", set before synced is sent
}

func startMember(self, endpoints string, extra ...string) (*proc, error) {
	cmd := exec.Command(self, append([]string{"member", "-endpoints", endpoints}, extra...)...)
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
		return nil, err
	}
	p := &proc{cmd: cmd, stdin: stdin, ready: make(chan struct{}), synced: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if sc.Text() == "ready" {
				close(p.ready)
			}
			if ns, ok := strings.CutPrefix(sc.Text(), "took "); ok {
				n, _ := strconv.ParseInt(ns, 10, 64)
				p.took = time.Duration(n)
			}
			if sc.Text() == "synced" {
				p.synced <- nil
				_, _ = io.Copy(io.Discard, stdout)
				return
			}
		}
		p.synced <- errors.New("member exited before it synced")
	}()
	return p, nil
}

// waitReady waits for a member started with -timed to print "ready", or
// for it to end first (its error).
func (p *proc) waitReady() error {
	select {
	case <-p.ready:
		return nil
	case err := <-p.synced:
		if err == nil {
			err = errors.New("member synced before it was ready")
		}
		return err
	}
}

// usage returns the process's resident set, peak resident set (bytes) and
// CPU time (user+system) so far.
func (p *proc) usage() (rss, hwm uint64, cpu time.Duration, err error) {
	pid := p.cmd.Process.Pid
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, 0, err
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && (f[0] == "VmRSS:" || f[0] == "VmHWM:") {
			v, _ := strconv.ParseUint(f[1], 10, 64)
			if f[0] == "VmRSS:" {
				rss = v * 1024
			} else {
				hwm = v * 1024
			}
		}
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, 0, err
	}
	// Fields after the command's closing parenthesis: utime and stime are
	// the 14th and 15th of the line, in clock ticks (100 a second).
	s := string(stat)
	rest := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	ut, _ := strconv.ParseUint(rest[11], 10, 64)
	st, _ := strconv.ParseUint(rest[12], 10, 64)
	return rss, hwm, time.Duration(ut+st) * 10 * time.Millisecond, nil
}

func (p *proc) stop() error {
	p.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(2 * time.Minute):
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
		return <-done
	}
}

// compare runs the same fleet as one process and as one process per
// cluster, and prints their total RSS and CPU once every cluster has synced
// and settle has passed.
func compare(args []string) error {
	fs := flag.NewFlagSet("compare", flag.ExitOnError)
	path := fs.String("endpoints", "", "the serve command's endpoints file")
	settle := fs.Duration("settle", 10*time.Second, "how long after the last sync the processes are measured")
	_ = fs.Parse(args)
	eps, err := endpoints.Read(*path)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	type total struct {
		rss, hwm uint64
		cpu      time.Duration
		synced   time.Duration
	}
	run := func(extras [][]string) (total, error) {
		var t total
		start := time.Now()
		var ps []*proc
		defer func() {
			for _, p := range ps {
				_ = p.stop()
			}
		}()
		for _, extra := range extras {
			p, err := startMember(self, *path, extra...)
			if err != nil {
				return t, err
			}
			ps = append(ps, p)
		}
		for _, p := range ps {
			if err := <-p.synced; err != nil {
				return t, err
			}
		}
		t.synced = time.Since(start)
		time.Sleep(*settle)
		for _, p := range ps {
			rss, hwm, cpu, err := p.usage()
			if err != nil {
				return t, err
			}
			t.rss += rss
			t.hwm += hwm
			t.cpu += cpu
		}
		return t, nil
	}
	fmt.Printf("# load average: %s\n", loadavg())
	one, err := run([][]string{nil})
	if err != nil {
		return fmt.Errorf("the fleet process: %w", err)
	}
	var singles [][]string
	for i := range eps.Clusters {
		singles = append(singles, []string{"-single", strconv.Itoa(i)})
	}
	many, err := run(singles)
	if err != nil {
		return fmt.Errorf("the %d processes: %w", len(singles), err)
	}
	mb := func(b uint64) string { return fmt.Sprintf("%.0f MB", float64(b)/1e6) }
	fmt.Printf("%-40s %12s %12s %10s %12s\n", "", "RSS", "peak RSS", "CPU", "all synced")
	fmt.Printf("%-40s %12s %12s %10s %12s\n", fmt.Sprintf("fleet, 1 process, %d clusters", len(eps.Clusters)), mb(one.rss), mb(one.hwm), fmt.Sprintf("%.1f s", one.cpu.Seconds()), ms(one.synced))
	fmt.Printf("%-40s %12s %12s %10s %12s\n", fmt.Sprintf("%d processes, 1 factory each", len(singles)), mb(many.rss), mb(many.hwm), fmt.Sprintf("%.1f s", many.cpu.Seconds()), ms(many.synced))
	fmt.Printf("%-40s %12.2f %12.2f %10.2f\n", "ratio fleet / processes (target <= 0.5)", float64(one.rss)/float64(many.rss), float64(one.hwm)/float64(many.hwm), one.cpu.Seconds()/many.cpu.Seconds())
	fmt.Printf("# measured %s after the last sync; load average: %s\n", *settle, loadavg())
	return nil
}
