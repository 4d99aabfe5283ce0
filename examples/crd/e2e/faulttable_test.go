package e2e

import (
	"cmp"
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

var tableFaults = faultsFromEnv([]string{"restart", "compact+cut", "cut", "stall", "429", "500", "403", "garbage-event", "garbage-bytes", "truncate", "stale-rv", "bogus-rv", "blank-names"})

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
	slices.SortFunc(s, func(a, b time.Duration) int { // never (-1) last
		if a < 0 || b < 0 {
			return int(b>>63) - int(a>>63)
		}
		return cmp.Compare(a, b)
	})
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
	still := stillFoo(t, ctx, c, ns)
	p, err := faultproxy.New(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	runCtx, stop := context.WithCancel(ctx)
	defer stop()

	f := informers.NewSharedInformerFactory(p.Config(), factory.Options{Namespaces: []string{ns}})
	defer f.Shutdown()
	our := f.Samplecontroller().V1().Foos().Informer()
	f.Start(runCtx)

	// client-go's requests are told from ours by their user agent.
	pcfg := p.Config()
	pcfg.UserAgent = clientGoAgent
	pc, err := controller.NewClient(pcfg)
	if err != nil {
		t.Fatal(err)
	}
	their := cache.NewSharedIndexInformer(cache.NewListWatchFromClient(pc, "foos", ns, fields.Everything()), &samplev1.Foo{}, 0, cache.Indexers{})
	theirDone := make(chan struct{})
	go func() { defer close(theirDone); their.RunWithContext(runCtx) }()
	defer func() { stop(); <-theirDone }()

	sctx, cancel := context.WithTimeout(ctx, e2eutil.Patience)
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
	faultStart := time.Now()
	applyFault(t, ctx, srv, p, fault, hold, still)
	faultEnd := time.Now()
	sleep(ctx, 300*time.Millisecond) // events in flight meet a truncation or garbage
	stopWriters()
	<-writerDone
	end := time.Now()

	var listed []*samplev1.Foo
	e2eutil.Eventually(t, ctx, e2eutil.Patience, "a fresh LIST", func() error {
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
	var nOurs, nTheirs int
	for _, r := range p.Requests() {
		if isFoos(r) && !r.Time.Before(faultStart) && !r.Time.After(faultEnd) {
			if r.UserAgent == clientGoAgent {
				nTheirs++
			} else {
				nOurs++
			}
		}
	}
	if d := faultEnd.Sub(faultStart); d > time.Second {
		t.Logf("%s for %v: LIST+WATCH requests ours %d (%.2f/s), client-go %d (%.2f/s)", fault, d.Round(10*time.Millisecond), nOurs, float64(nOurs)/d.Seconds(), nTheirs, float64(nTheirs)/d.Seconds())
	}
	ours, theirs = -1, -1
	relisted := time.Now()
	for time.Since(end) < time.Minute && (ours < 0 || theirs < 0) {
		if time.Since(relisted) > time.Second {
			// A write cancelled as the writers stopped may still land
			// after the first LIST.
			if l, _, err := verify.ListFoos(ctx, c, ns, ""); err == nil {
				listed = l
			}
			relisted = time.Now()
		}
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

const clientGoAgent = "client-go-reference"

func clientGoFoos(inf cache.SharedIndexInformer) []*samplev1.Foo {
	var out []*samplev1.Foo
	for _, o := range inf.GetStore().List() {
		out = append(out, o.(*samplev1.Foo))
	}
	return out
}

// applyFault applies one fault of the table; it returns when the fault has
// ended (a held fault after hold).
//
// The hostile faults: stale-rv answers every Foo watch, for hold, with one
// MODIFIED event of the Foo "still" one resourceVersion older than the
// watch's, then ends it; bogus-rv sends on every open Foo watch that
// Foo's MODIFIED event with resourceVersion "notanumber", then ends it
// (the Foo is never written again: a cache that applied the event keeps
// it); blank-names compacts, cuts the watches and, for hold, blanks
// metadata.name in every LIST item and watch event (a proxy rewriting
// bodies), so that both informers relist while it lasts.
func applyFault(t *testing.T, ctx context.Context, srv *localapi.Server, p *faultproxy.Proxy, fault string, hold time.Duration, still []byte) {
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
	case "stale-rv":
		remove := p.AnswerWatches(isFoos, staleAnswer(still))
		p.CutWatches()
		sleep(ctx, hold)
		remove()
	case "bogus-rv":
		p.InjectEvents([][]byte{faultproxy.EventLine("MODIFIED", still, "notanumber")}, true)
	case "blank-names":
		remove := p.RewriteObjects(blankName)
		if _, err := srv.CompactEtcd(ctx); err != nil {
			t.Fatal(err)
		}
		p.CutWatches()
		sleep(ctx, hold)
		remove()
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

// stillFoo creates the Foo "still" in ns, which no writer touches, and
// returns it as JSON: the object of the hostile faults' events.
func stillFoo(t *testing.T, ctx context.Context, c rest.Interface, ns string) []byte {
	t.Helper()
	if err := c.Post().Namespace(ns).Resource("foos").Body(e2eutil.Foo(ns, "still", "", 1)).Do(ctx).Error(); err != nil {
		t.Fatal(err)
	}
	b, err := c.Get().Namespace(ns).Resource("foos").Name("still").DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// staleAnswer is the stale-rv answer to a watch: one MODIFIED event of
// still, one resourceVersion older than the watch's start (1 for a watch
// without one).
func staleAnswer(still []byte) func(faultproxy.Request) [][]byte {
	return func(r faultproxy.Request) [][]byte {
		rv := uint64(2)
		if n, ok := faultproxy.StartRV(r); ok && n > 1 {
			rv = n
		}
		return [][]byte{faultproxy.EventLine("MODIFIED", still, strconv.FormatUint(rv-1, 10))}
	}
}

// blankName blanks an object's metadata.name, as a broken proxy might.
func blankName(obj map[string]any) {
	if md, ok := obj["metadata"].(map[string]any); ok {
		md["name"] = ""
	}
}
