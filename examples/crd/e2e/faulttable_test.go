package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/informer-gen/informer-gen/runtime/factory"

	samplev1 "github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/examples/crd/controller"
	"github.com/informer-gen/informer-gen/examples/crd/generated/informers"
	"github.com/informer-gen/informer-gen/examples/crd/internal/e2eutil"
	"github.com/informer-gen/informer-gen/examples/crd/internal/faultproxy"
	"github.com/informer-gen/informer-gen/examples/crd/internal/verify"
	"github.com/informer-gen/informer-gen/examples/crd/localapi"
)

var tableFaults = faultsFromEnv([]string{"restart", "compact+cut", "cut", "stall", "429", "500", "403", "garbage-event", "garbage-bytes", "truncate"})

// TestFaultTable measures, per fault type, how long after the fault ends
// our informer and client-go's (both with default settings, on one fault
// proxy, watching one namespace under churn) take until their cache equals
// a fresh LIST. It prints a markdown table for docs/performance.md. It runs
// only with FAULT_TABLE=<number of seeds> (a few minutes per seed).
func TestFaultTable(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("FAULT_TABLE"))
	if n <= 0 {
		t.Skip("set FAULT_TABLE=<seeds> to measure the fault table")
	}
	srv, c := startNoCacheServer(t)
	ours := map[string][]time.Duration{}
	theirs := map[string][]time.Duration{}
	for seed := 1; seed <= n; seed++ {
		for _, fault := range tableFaults {
			o, g := faultRun(t, srv, c, uint64(seed), fault)
			t.Logf("seed %d %-13s ours %v client-go %v", seed, fault, o, g)
			ours[fault] = append(ours[fault], o)
			theirs[fault] = append(theirs[fault], g)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| fault | ours: median (min–max) | client-go: median (min–max) |\n|---|---|---|\n")
	for _, f := range tableFaults {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", f, spread(ours[f]), spread(theirs[f]))
	}
	t.Logf("time from the end of the fault until cache == fresh LIST, %d seeds:\n%s", n, b.String())
}

func spread(ds []time.Duration) string {
	s := slices.Clone(ds)
	slices.Sort(s)
	r := func(d time.Duration) string {
		if d < 0 {
			return "never"
		}
		return d.Round(10 * time.Millisecond).String()
	}
	return fmt.Sprintf("%s (%s–%s)", r(s[len(s)/2]), r(s[0]), r(s[len(s)-1]))
}

// faultRun injects fault once, with writers churning, into a namespace
// watched by both informers, and returns how long each took, after the
// fault ended and the writers stopped, to equal a fresh LIST (-1: not within
// a minute).
func faultRun(t *testing.T, srv *localapi.Server, c *rest.RESTClient, seed uint64, fault string) (ours, theirs time.Duration) {
	t.Helper()
	ctx := t.Context()
	ns := fmt.Sprintf("ft-%d-%s", seed, strings.ReplaceAll(fault, "+", "-"))
	if err := e2eutil.CreateFoos(ctx, c, ns, "seed", 0, 50, nil); err != nil {
		t.Fatal(err)
	}
	p, err := faultproxy.New(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	runCtx, stop := context.WithCancel(ctx)
	defer stop()

	f := informers.NewSharedInformerFactory(p.Config(), factory.Options{Namespace: ns})
	defer f.Shutdown()
	our := f.Samplecontroller().V1().Foos().Informer()
	f.Start(runCtx)

	pc, err := controller.NewClient(p.Config())
	if err != nil {
		t.Fatal(err)
	}
	their := cache.NewSharedIndexInformer(cache.NewListWatchFromClient(pc, "foos", ns, fields.Everything()), &samplev1.Foo{}, 0, cache.Indexers{})
	theirDone := make(chan struct{})
	go func() { defer close(theirDone); their.RunWithContext(runCtx) }()
	defer func() { stop(); <-theirDone }()

	sctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := f.WaitForCacheSync(sctx); err != nil {
		t.Fatal(err)
	}
	if !cache.WaitForCacheSync(sctx.Done(), their.HasSynced) {
		t.Fatal("client-go informer did not sync")
	}

	rng := rand.New(rand.NewPCG(seed, uint64(len(fault))))
	wctx, stopWriters := context.WithCancel(ctx)
	writerDone := make(chan struct{})
	var writes atomicCounter
	go func() { defer close(writerDone); churn(wctx, c, ns, rng, &writes) }()
	sleep(ctx, time.Second)
	// Held faults last a random 1-6s (API server restarts: 0.2-3s down), so
	// that the end of a fault falls anywhere in either side's retry
	// schedule: with a fixed length it favours whichever schedule happens to
	// retry just after it.
	hold := time.Second + time.Duration(rng.Int64N(int64(5*time.Second)))
	applyFault(t, ctx, srv, p, fault, hold)
	sleep(ctx, 300*time.Millisecond) // events in flight meet a truncation or garbage
	stopWriters()
	<-writerDone
	end := time.Now()

	var listed []*samplev1.Foo
	e2eutil.Eventually(t, ctx, time.Minute, "a fresh LIST", func() error {
		var err error
		listed, _, err = verify.ListFoos(ctx, c, ns, "")
		return err
	})
	if os.Getenv("FAULT_TABLE_DEBUG") != "" {
		for _, r := range p.Requests() {
			if isFoos(r) {
				t.Logf("%s %s %s watch=%v rv=%s", r.Time.Sub(end).Round(time.Millisecond), r.UserAgent[:min(len(r.UserAgent), 20)], r.Method, r.IsWatch(), r.URL.Query().Get("resourceVersion"))
			}
		}
	}
	ours, theirs = -1, -1
	for time.Since(end) < time.Minute && (ours < 0 || theirs < 0) {
		if ours < 0 && verify.CacheEqualsList("Foo", our.Indexer().List(), listed) == nil {
			ours = time.Since(end)
		}
		if theirs < 0 && verify.CacheEqualsList("Foo", clientGoFoos(their), listed) == nil {
			theirs = time.Since(end)
		}
		sleep(ctx, 10*time.Millisecond)
	}
	return ours, theirs
}

func clientGoFoos(inf cache.SharedIndexInformer) []*samplev1.Foo {
	var out []*samplev1.Foo
	for _, o := range inf.GetStore().List() {
		out = append(out, o.(*samplev1.Foo))
	}
	return out
}

// applyFault applies one fault of the table; it returns when the fault has
// ended (a held fault after hold).
func applyFault(t *testing.T, ctx context.Context, srv *localapi.Server, p *faultproxy.Proxy, fault string, hold time.Duration) {
	t.Helper()
	status := map[string]metav1.Status{
		"429": {Code: 429, Reason: metav1.StatusReasonTooManyRequests, Message: "slow down", Details: &metav1.StatusDetails{RetryAfterSeconds: 1}},
		"500": {Code: 500, Reason: metav1.StatusReasonInternalError, Message: "fault"},
		"403": {Code: 403, Reason: metav1.StatusReasonForbidden, Message: "fault"},
	}
	switch fault {
	case "restart":
		if err := srv.StopAPIServer(ctx); err != nil {
			t.Fatal(err)
		}
		sleep(ctx, (hold-time.Second)*14/25+200*time.Millisecond) // 0.2-3s
		if err := srv.StartAPIServer(ctx); err != nil {
			t.Fatal(err)
		}
	case "compact+cut":
		if _, err := srv.CompactEtcd(ctx); err != nil {
			t.Fatal(err)
		}
		p.CutWatches()
	case "cut":
		p.CutWatches()
	case "stall":
		p.StallWatches(hold)
		sleep(ctx, hold)
	case "429", "500", "403":
		remove := p.InjectStatus(isFoos, status[fault])
		p.CutWatches()
		sleep(ctx, hold)
		remove()
	case "garbage-event":
		p.InjectWatchFault(faultproxy.GarbageEvent)
	case "garbage-bytes":
		p.InjectWatchFault(faultproxy.GarbageBytes)
	case "truncate":
		p.InjectWatchFault(faultproxy.Truncate)
	default:
		t.Fatalf("unknown fault %q", fault)
	}
}

// faultsFromEnv returns FAULT_TABLE_FAULTS (comma-separated) if set, else all.
func faultsFromEnv(all []string) []string {
	if s := os.Getenv("FAULT_TABLE_FAULTS"); s != "" {
		return strings.Split(s, ",")
	}
	return all
}
