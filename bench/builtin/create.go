package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
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

// The ways to write the benchmark's Pods (-seed).
const (
	// seedEtcd writes them into the etcd of a new server before its
	// kube-apiserver starts (Options.BeforeAPIServer), in transactions
	// of -seed-batch Pods; the server then reads them with one LIST. What
	// the server adds to a Pod comes from a template Pod created through
	// the API of the previous server (of the same binary).
	seedEtcd = "etcd"
	// seedEtcdLive writes them into the running server's etcd, one Pod
	// per transaction: the watch cache takes each in as an event.
	seedEtcdLive = "etcd-live"
	// seedAPI creates them through the API, then writes their status.
	seedAPI = "api"
)

var seedModes = []string{seedEtcd, seedEtcdLive, seedAPI}

func (d *driver) seedMode() string {
	if d.cfg.Seed == "" {
		return seedEtcd
	}
	return d.cfg.Seed
}

func (d *driver) shape() string {
	if d.cfg.PodShape == "" {
		return shapeRealistic
	}
	return d.cfg.PodShape
}

// start starts a server (stopping the current one, if any), seeded with
// seed if not nil, and points the driver's clients at it.
func (d *driver) start(ctx context.Context, seed *seedConfig) error {
	if d.srv != nil {
		d.srv.stop()
		d.srv = nil
	}
	start := time.Now()
	srv, err := startServer(ctx, d.cfg.Exe, d.dir, d.cfg.Server, seed)
	if err != nil {
		return err
	}
	ready := time.Since(start)
	rss, _ := procStatusBytes(srv.pid, "VmRSS")
	if seed != nil {
		fmt.Fprintf(d.log, "seeded %d %s Pods into etcd in %.1fs (%.0f/s, %.0f µs CPU per Pod), kube-apiserver ready %.1fs later: %.0f Pods/s end to end; server RSS %.0f MB (load average %.1f)\n",
			seed.Pods, seed.Shape, srv.preseeded.Seconds(), float64(seed.Pods)/srv.preseeded.Seconds(), srv.preseedCPU/float64(seed.Pods)*1e6,
			(ready - srv.preseeded).Seconds(), float64(seed.Pods)/ready.Seconds(), float64(rss)/1e6, load1())
	} else {
		fmt.Fprintf(d.log, "kube-apiserver ready in %.1fs, RSS %.0f MB\n", ready.Seconds(), float64(rss)/1e6)
	}
	if err := d.logServerMemory(ctx, srv, "ready"); err != nil {
		srv.stop()
		return err
	}
	restCfg, err := clientcmd.BuildConfigFromFlags("", srv.kubeconfig)
	if err != nil {
		srv.stop()
		return err
	}
	restCfg.QPS, restCfg.Burst = -1, 0 // seeding: no client-side throttling
	httpClient, err := rest.HTTPClientFor(restCfg)
	if err != nil {
		srv.stop()
		return err
	}
	pbCfg := rest.CopyConfig(restCfg)
	pbCfg.ContentType = "application/vnd.kubernetes.protobuf"
	pbCfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	pbCfg.UserAgent = seedUserAgent
	cs, err := kubernetes.NewForConfig(pbCfg)
	if err != nil {
		srv.stop()
		return err
	}
	d.srv, d.cs, d.http, d.host, d.kubeconfig = srv, cs, httpClient, restCfg.Host, srv.kubeconfig
	return nil
}

// reseed replaces the server by one whose etcd holds Pods 0..n-1 before its
// kube-apiserver starts, with a template Pod from the current server.
func (d *driver) reseed(ctx context.Context, n int) error {
	tmpl := filepath.Join(d.dir, "template-"+d.shape()+".pb")
	if _, err := os.Stat(tmpl); err != nil {
		l, err := d.srv.command(ctx, "TEMPLATE "+d.shape()+" "+tmpl, "TEMPLATED", "TEMPLATEERR")
		if err != nil {
			return err
		}
		if l != "TEMPLATED" {
			return fmt.Errorf("server: %s", l)
		}
	}
	return d.start(ctx, &seedConfig{Shape: d.shape(), Template: tmpl, Pods: n, Workers: d.cfg.Writers, Batch: d.cfg.SeedBatch})
}

// logServerMemory logs what the server process's memory is made of, tagged
// with when: its peak RSS so far, its RSS (anonymous: the Go heap and
// runtime; file-backed: mostly etcd's memory-mapped bbolt file) and its Go
// heap in use after a collection; with -server-heapprofile, it writes a heap
// profile of the server into that directory first (when.server-heap.pprof).
func (d *driver) logServerMemory(ctx context.Context, srv *serverProc, when string) error {
	path := ""
	if d.cfg.ServerHeapProfileDir != "" {
		path = filepath.Join(d.cfg.ServerHeapProfileDir, when+".server-heap.pprof")
	}
	m := procMemory(srv.pid)
	heap, heapSys, sys, err := srv.mem(ctx, path)
	if err != nil {
		return err
	}
	fmt.Fprintf(d.log, "server memory (%s): peak RSS %.0f MB; RSS %.0f MB = anonymous %.0f + file %.0f; Go heap after GC %.0f MB (heap from the OS %.0f, all %.0f)\n",
		when, float64(m.HWM)/1e6, float64(m.RSS)/1e6, float64(m.Anon)/1e6, float64(m.File)/1e6, float64(heap)/1e6, float64(heapSys)/1e6, float64(sys)/1e6)
	return nil
}

// procMem is a process's memory from /proc/PID/status (bytes; 0 if
// unreadable).
type procMem struct {
	RSS, Anon, File, HWM int64
}

func procMemory(pid int) procMem {
	var m procMem
	m.RSS, _ = procStatusBytes(pid, "VmRSS")
	m.Anon, _ = procStatusBytes(pid, "RssAnon")
	m.File, _ = procStatusBytes(pid, "RssFile")
	m.HWM, _ = procHWM(pid)
	return m
}

// procStatusBytes is the field (VmRSS, VmHWM) of /proc/<pid>/status in bytes.
func procStatusBytes(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
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

// createPods writes Pods from..to-1: with seedEtcd into the etcd of a new
// server before its kube-apiserver starts (reseed; from is then 0), with
// seedEtcdLive into the running server's etcd (podSeeder, in the server
// process, one Pod per transaction), with seedAPI through the API
// (createPodsAPI). Either way, it then waits until the server serves all
// of them: a LIST (a consistent read, from the watch cache once it has
// caught up) counts to Pods.
func (d *driver) createPods(ctx context.Context, from, to int) error {
	switch d.seedMode() {
	case seedAPI:
		if err := d.createPodsAPI(ctx, from, to); err != nil {
			return err
		}
	case seedEtcdLive:
		l, err := d.srv.commandWithin(ctx, 2*time.Hour, fmt.Sprintf("SEED %s %d %d %d", d.shape(), from, to, d.cfg.Writers), "SEEDED", "SEEDERR")
		if err != nil {
			return err
		}
		if !strings.HasPrefix(l, "SEEDED") {
			return fmt.Errorf("server: %s", l)
		}
	default:
		if from != 0 {
			return fmt.Errorf("seeding Pods %d..%d into a new server: it would not have the first %d", from, to-1, from)
		}
		if err := d.reseed(ctx, to); err != nil {
			return err
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
	shape := d.shape()
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
