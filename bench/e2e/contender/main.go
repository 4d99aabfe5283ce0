// Command contender runs one informer implementation against a server named
// by a kubeconfig until its cache is synced and its handler has seen the
// driver's updates, and reports on stdout ("SYNCED {json}", "UPDATES
// {json}"). The driver (bench/e2e) starts it, once per run, with its
// configuration (proto.ContenderConfig as JSON) in BENCHE2E_CONFIG. It is a
// binary of its own so that its memory holds the client libraries only, not
// the API server the driver's binary carries.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"

	"github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1alpha1"
	"github.com/informer-gen/informer-gen/examples/crd/generated/informers"
	foosinformers "github.com/informer-gen/informer-gen/examples/crd/generated/informers/samplecontroller/v1alpha1"
	projv1alpha1 "github.com/informer-gen/informer-gen/examples/crd/generated/projections/samplecontroller/v1alpha1"

	"github.com/informer-gen/informer-gen/bench/e2e/internal/proto"
)

// tracker counts what a contender's handler sees. Safe for concurrent use.
type tracker struct {
	round   string
	want    int64
	expect  int64  // objects to sync
	added   func() // called once the handler saw expect adds
	adds    atomic.Int64
	updates atomic.Int64
	allSeen chan struct{}
	once    sync.Once
}

func newTracker(round string, want int) *tracker {
	t := &tracker{round: round, want: int64(want), allSeen: make(chan struct{})}
	if want == 0 {
		close(t.allSeen)
	}
	return t
}

func (t *tracker) add() {
	if t.adds.Add(1) == t.expect && t.added != nil {
		t.added()
	}
}

// update counts a change that set the round label: one per updated object,
// however often an object is delivered again (a relist gives old and new
// both labelled, which does not count).
func (t *tracker) update(oldLabels, newLabels map[string]string) {
	if newLabels[proto.RoundLabel] != t.round || oldLabels[proto.RoundLabel] == t.round {
		return
	}
	if t.updates.Add(1) == t.want {
		t.once.Do(func() { close(t.allSeen) })
	}
}

// contender is one informer implementation: it runs the informer until ctx
// ends (in the background) and returns once its cache and the tracker's
// handler are synced, with a func that counts the cached objects (called
// after the measurement, since for some contenders counting is a LIST of
// the cache).
type contender func(ctx context.Context, cfg *rest.Config, cc proto.ContenderConfig, t *tracker) (objects func() (int, error), err error)

var contenders = map[string]contender{
	proto.Ours:      runOurs,
	proto.Typed:     runTyped,
	proto.Dynamic:   runDynamic,
	proto.CtrlRtime: runControllerRuntime,
}

func runContender(cc proto.ContenderConfig) error {
	start := time.Now()
	run, ok := contenders[cc.Contender]
	if !ok {
		return fmt.Errorf("unknown contender %q", cc.Contender)
	}
	var stopProfile func() error
	if cc.CPUProfile != "" {
		f, err := os.Create(cc.CPUProfile)
		if err != nil {
			return fmt.Errorf("CPU profile: %w", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return fmt.Errorf("CPU profile: %w", err)
		}
		stopProfile = func() error { pprof.StopCPUProfile(); return f.Close() }
		defer func() {
			if stopProfile != nil {
				_ = stopProfile()
			}
		}()
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", cc.Kubeconfig)
	if err != nil {
		return fmt.Errorf("loading kubeconfig: %w", err)
	}
	cfg.QPS, cfg.Burst = -1, 0 // the same for everyone: no client-side throttling
	clock := newPhaseClock(start)
	cfg.Wrap(clock.wrap)
	ctx, cancel := context.WithTimeout(context.Background(), cc.Timeout)
	defer cancel()
	t := newTracker(cc.Round, cc.Updates)
	t.expect = int64(cc.Expect)
	t.added = func() { clock.set(&clock.p.LastAdd) }
	count, err := run(ctx, cfg, cc, t)
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	phases := clock.synced()
	if cc.ExecUnixNano != 0 {
		phases.Exec = time.Duration(start.UnixNano() - cc.ExecUnixNano).Seconds()
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return fmt.Errorf("getrusage: %w", err)
	}
	// Not rusage's maxrss: Go starts children with vfork, and Linux carries
	// the parent's peak RSS over into the child's maxrss at exec.
	peakRSS, err := vmHWM()
	if err != nil {
		return err
	}
	if stopProfile != nil {
		err := stopProfile()
		stopProfile = nil
		if err != nil {
			return fmt.Errorf("CPU profile: %w", err)
		}
	}
	objects, err := count()
	if err != nil {
		return fmt.Errorf("counting the cached objects: %w", err)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	emit("SYNCED", proto.SyncReport{
		SyncSeconds: elapsed.Seconds(),
		Objects:     objects,
		Adds:        t.adds.Load(),
		CPUSeconds:  proto.CPUSeconds(&ru),
		MaxRSSBytes: peakRSS,
		HeapAfterGC: ms.HeapAlloc,
		Phases:      phases,
	})
	select {
	case <-t.allSeen:
	case <-ctx.Done():
		return fmt.Errorf("saw %d of %d updates: %w", t.updates.Load(), cc.Updates, context.Cause(ctx))
	}
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return fmt.Errorf("getrusage: %w", err)
	}
	emit("UPDATES", proto.UpdateReport{Seen: t.updates.Load(), CPUSeconds: proto.CPUSeconds(&ru)})
	// Stay alive (and keep the objects) until the driver closes our stdin.
	_, _ = bufio.NewReader(os.Stdin).ReadString(0)
	peakRSS, err = vmHWM()
	if err != nil {
		return err
	}
	emit("DONE", proto.DoneReport{MaxRSSBytes: peakRSS})
	return nil
}

// vmHWM is the process's peak resident set size (VmHWM in /proc/self/status).
func vmHWM() (int64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, errors.New("no VmHWM in /proc/self/status")
}

func main() {
	var cc proto.ContenderConfig
	err := json.Unmarshal([]byte(os.Getenv(proto.EnvConfig)), &cc)
	if err == nil {
		err = runContender(cc)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "contender: %v\n", err)
		os.Exit(1)
	}
}

func emit(tag string, v any) {
	b, _ := json.Marshal(v)
	fmt.Printf("%s %s\n", tag, b)
}

// runOurs is the generated factory of examples/crd with its defaults.
func runOurs(ctx context.Context, cfg *rest.Config, cc proto.ContenderConfig, t *tracker) (func() (int, error), error) {
	wl := cc.WatchList
	opts := factory.Options{Reflector: reflector.Options{WatchList: &wl}}
	switch cc.OursList {
	case "ns10":
		for i := range proto.Namespaces {
			opts.Namespaces = append(opts.Namespaces, proto.NamespacePrefix+strconv.Itoa(i))
		}
	case "", "rv0", "paged", "unpaged", "reflective", "projection":
		if cc.OursList != "" && cc.OursList != "reflective" && cc.OursList != "projection" {
			tweak, err := listTweak(cc.OursList)
			if err != nil {
				return nil, err
			}
			opts.Tweak = tweak
		}
	default:
		var err error
		if cfg, err = transportVariant(cfg, cc.OursList); err != nil {
			return nil, err
		}
	}
	f := informers.NewSharedInformerFactory(cfg, opts)
	if cc.OursList == "projection" {
		return runProjection(ctx, f, t)
	}
	var inf *informer.Informer[*v1alpha1.Foo]
	if cc.OursList == "reflective" {
		// The same informer without the generated decoder: the JSON codec's
		// own (reflective) decoding, as with --json-decoders=none. (The
		// factory keys informers by resource: this one is made first.)
		typ := foosinformers.FooType
		typ.DecodeJSON = nil
		inf = factory.InformerFor(f.Factory, typ)
	} else {
		inf = f.Samplecontroller().V1alpha1().Foos().Informer()
	}
	reg, err := inf.AddHandler(informer.HandlerFuncs[*v1alpha1.Foo]{
		AddFunc:    func(*v1alpha1.Foo, bool) { t.add() },
		UpdateFunc: func(o, n *v1alpha1.Foo) { t.update(o.Labels, n.Labels) },
	}, informer.HandlerOptions{})
	if err != nil {
		return nil, err
	}
	if err := startOurs(ctx, f, reg); err != nil {
		return nil, err
	}
	return func() (int, error) { return inf.Indexer().Len(), nil }, nil
}

// runProjection is ours with the FooSummary projection's informer instead of
// the Foo's (examples/crd's +informer-gen:projection on Foo: metadata,
// .spec.replicas and .status.availableReplicas): what a controller that reads
// only those caches.
func runProjection(ctx context.Context, f *informers.SharedInformerFactory, t *tracker) (func() (int, error), error) {
	inf := f.Samplecontroller().V1alpha1().FooSummaries().Informer()
	reg, err := inf.AddHandler(informer.HandlerFuncs[*projv1alpha1.FooSummary]{
		AddFunc:    func(*projv1alpha1.FooSummary, bool) { t.add() },
		UpdateFunc: func(o, n *projv1alpha1.FooSummary) { t.update(o.Labels, n.Labels) },
	}, informer.HandlerOptions{})
	if err != nil {
		return nil, err
	}
	if err := startOurs(ctx, f, reg); err != nil {
		return nil, err
	}
	return func() (int, error) { return inf.Indexer().Len(), nil }, nil
}

// startOurs starts f and waits until its informers and the handler of reg
// are synced.
func startOurs(ctx context.Context, f *informers.SharedInformerFactory, reg *informer.Registration) error {
	f.Start(ctx)
	if err := f.WaitForCacheSync(ctx); err != nil {
		return err
	}
	select {
	case <-reg.Synced():
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for the handler: %w", context.Cause(ctx))
	}
}

// transportVariant returns a copy of cfg that talks to the server as the
// variant mode says (proto.OursModes): the same requests over another
// protocol, buffer or compression.
func transportVariant(cfg *rest.Config, mode string) (*rest.Config, error) {
	cfg = rest.CopyConfig(cfg)
	h1 := func() { cfg.TLSClientConfig.NextProtos = []string{"http/1.1"} }
	// The transport client-go would build for cfg (its TLS settings,
	// utilnet's defaults, HTTP/2 configured unless NextProtos says
	// otherwise), edited before HTTP/2 is configured on it, then handed to
	// cfg as its Transport (client-go wraps its own in a type of its own,
	// so WrapTransport cannot reach the *http.Transport).
	editTransport := func(edit func(*http.Transport)) error {
		tlsCfg, err := rest.TLSConfigFor(cfg)
		if err != nil {
			return err
		}
		t := &http.Transport{Proxy: http.ProxyFromEnvironment, TLSClientConfig: tlsCfg}
		edit(t)
		cfg.Transport = utilnet.SetTransportDefaults(t)
		cfg.TLSClientConfig = rest.TLSClientConfig{}
		return nil
	}
	var err error
	switch mode {
	case "nogzip":
		cfg.DisableCompression = true
	case "h1":
		h1()
	case "h1nogzip":
		h1()
		cfg.DisableCompression = true
	case "h1buf64k":
		h1()
		err = editTransport(func(t *http.Transport) { t.ReadBufferSize = 64 << 10 })
	case "h2win16m":
		err = editTransport(func(t *http.Transport) {
			t.HTTP2 = &http.HTTP2Config{MaxReceiveBufferPerStream: 16 << 20}
		})
	case "h2frame16k":
		err = editTransport(func(t *http.Transport) {
			t.HTTP2 = &http.HTTP2Config{MaxReadFrameSize: 16 << 10}
		})
	default:
		return nil, fmt.Errorf("unknown variant of ours %q", mode)
	}
	return cfg, err
}

// listTweak rewrites the LIST requests of our reflector (those without
// allowWatchBookmarks; its watches always ask for bookmarks) to one of the
// candidate semantics measured for the initial sync.
func listTweak(mode string) (func(*metav1.ListOptions), error) {
	var edit func(*metav1.ListOptions)
	switch mode {
	case "rv0":
		edit = func(o *metav1.ListOptions) {
			if o.Continue == "" {
				o.ResourceVersion = "0"
			}
		}
	case "paged":
		edit = func(o *metav1.ListOptions) {
			if o.Continue == "" {
				o.ResourceVersion = ""
			}
			o.Limit = 500
		}
	case "unpaged":
		edit = func(o *metav1.ListOptions) { o.ResourceVersion, o.Limit = "", 0 }
	default:
		return nil, fmt.Errorf("unknown LIST variant of ours %q (rv0, paged, unpaged)", mode)
	}
	return func(o *metav1.ListOptions) {
		if !o.AllowWatchBookmarks && o.SendInitialEvents == nil {
			edit(o)
		}
	}, nil
}

// runTyped is client-go's typed informer as code-generator v0.37 generates
// it (NewTypedFooInformerWithOptions): cache.NewSharedIndexInformerWithOptions
// over cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{...}), with
// the namespace index.
func runTyped(ctx context.Context, cfg *rest.Config, _ proto.ContenderConfig, t *tracker) (func() (int, error), error) {
	rc, scheme, err := proto.FooClient(cfg)
	if err != nil {
		return nil, err
	}
	pc := kruntime.NewParameterCodec(scheme)
	lw := cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (kruntime.Object, error) {
			l := new(v1alpha1.FooList)
			err := rc.Get().Resource("foos").VersionedParams(&opts, pc).Do(ctx).Into(l)
			return l, err
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			opts.Watch = true
			var timeout time.Duration
			if opts.TimeoutSeconds != nil {
				timeout = time.Duration(*opts.TimeoutSeconds) * time.Second
			}
			return rc.Get().Resource("foos").VersionedParams(&opts, pc).Timeout(timeout).Watch(ctx)
		},
	}, rc)
	inf := cache.NewSharedIndexInformerWithOptions(lw, &v1alpha1.Foo{}, cache.SharedIndexInformerOptions{
		Indexers: cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
	})
	return runClientGo(ctx, inf, t, func(o any) map[string]string { return o.(*v1alpha1.Foo).Labels })
}

// runDynamic is client-go's dynamic informer (dynamicinformer), namespace
// index included.
func runDynamic(ctx context.Context, cfg *rest.Config, _ proto.ContenderConfig, t *tracker) (func() (int, error), error) {
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	gvr := v1alpha1.SchemeGroupVersion.WithResource("foos")
	inf := dynamicinformer.NewFilteredDynamicInformer(dc, gvr, metav1.NamespaceAll, 0,
		cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}, nil).Informer()
	return runClientGo(ctx, inf, t, func(o any) map[string]string { return o.(*unstructured.Unstructured).GetLabels() })
}

func runClientGo(ctx context.Context, inf cache.SharedIndexInformer, t *tracker, labels func(any) map[string]string) (func() (int, error), error) {
	reg, err := inf.AddEventHandler(handlerFuncs(t, labels))
	if err != nil {
		return nil, err
	}
	go inf.RunWithContext(ctx)
	if err := waitSynced(ctx, inf.HasSynced, reg.HasSynced); err != nil {
		return nil, err
	}
	return func() (int, error) { return len(inf.GetStore().ListKeys()), nil }, nil
}

// waitSynced polls every millisecond until all of synced are true.
// client-go's cache.WaitForCacheSync polls every 100 ms, which would round
// every client-go figure up by as much.
func waitSynced(ctx context.Context, synced ...func() bool) error {
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		all := true
		for _, f := range synced {
			all = all && f()
		}
		if all {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not synced: %w", context.Cause(ctx))
		case <-tick.C:
		}
	}
}

func handlerFuncs(t *tracker, labels func(any) map[string]string) cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { t.add() },
		UpdateFunc: func(o, n any) { t.update(labels(o), labels(n)) },
	}
}

// runControllerRuntime is controller-runtime's cache with the example's
// scheme and a static RESTMapper (the local server has no core API for
// discovery to lean on), GetInformer for Foo, WaitForCacheSync.
func runControllerRuntime(ctx context.Context, cfg *rest.Config, _ proto.ContenderConfig, t *tracker) (func() (int, error), error) {
	scheme := kruntime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	gv := v1alpha1.SchemeGroupVersion
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{gv})
	mapper.Add(gv.WithKind("Foo"), meta.RESTScopeNamespace)
	c, err := crcache.New(cfg, crcache.Options{Scheme: scheme, Mapper: mapper})
	if err != nil {
		return nil, err
	}
	inf, err := c.GetInformer(ctx, &v1alpha1.Foo{})
	if err != nil {
		return nil, err
	}
	reg, err := inf.AddEventHandler(handlerFuncs(t, func(o any) map[string]string { return o.(*v1alpha1.Foo).Labels }))
	if err != nil {
		return nil, err
	}
	errc := make(chan error, 1)
	go func() { errc <- c.Start(ctx) }()
	// The handler's registration is synced only after the informer is; its
	// WaitForCacheSync (polling every 100 ms) then returns at once.
	if err := waitSynced(ctx, inf.HasSynced, reg.HasSynced); err != nil {
		select {
		case serr := <-errc:
			return nil, fmt.Errorf("controller-runtime cache stopped: %w", serr)
		default:
		}
		return nil, err
	}
	if !c.WaitForCacheSync(ctx) {
		return nil, errors.New("controller-runtime cache not synced")
	}
	return func() (int, error) {
		var l v1alpha1.FooList
		err := c.List(ctx, &l, client.UnsafeDisableDeepCopy)
		return len(l.Items), err
	}, nil
}
