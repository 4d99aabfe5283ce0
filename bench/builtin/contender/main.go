// Command contender runs one informer implementation over Pods or Secrets
// against a server named by a kubeconfig until its cache is synced, and
// reports on stdout ("SYNCED {json}", then "DONE {json}" once the driver
// closed its stdin). The driver (bench/builtin) starts it once per run with
// its configuration (proto.ContenderConfig as JSON) in BENCHBUILTIN_CONFIG.
// It is a binary of its own so that its memory holds the client libraries
// only, not the API server the driver's binary carries.
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
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/store"

	ourinformers "github.com/informer-gen/informer-gen/examples/builtin/generated/informers"

	"github.com/informer-gen/informer-gen/bench/builtin/internal/proto"
)

// tracker counts the adds a contender's handler sees. Safe for concurrent
// use.
type tracker struct{ adds atomic.Int64 }

func (t *tracker) add() { t.adds.Add(1) }

// contender is one informer implementation: it runs the informer until ctx
// ends (in the background) and returns once its cache and the tracker's
// handler are synced, with a func that counts the cached objects (called
// after the measurement, since for some contenders counting is a LIST of
// the cache).
type contender func(ctx context.Context, cfg *rest.Config, cc proto.ContenderConfig, t *tracker) (objects func() (int, error), err error)

var contenders = map[string]contender{
	proto.Ours:                   runOurs,
	proto.OursProjection:         runOursProjection,
	proto.OursProjectionInterned: runOursProjection,
	proto.Typed:                  runTyped,
	proto.Metadata:               runMetadata,
	proto.CtrlRtime:              runControllerRuntime,
	proto.CtrlRtimeMeta:          runControllerRuntime,
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

func runContender(cc proto.ContenderConfig) error {
	// The heap of the process before any object: one binary links every
	// contender, so its package init (schemes, codecs) is the same for all.
	runtime.GC()
	var baseline runtime.MemStats
	runtime.ReadMemStats(&baseline)
	start := time.Now()
	run, ok := contenders[cc.Contender]
	if !ok {
		return fmt.Errorf("unknown contender %q", cc.Contender)
	}
	if cc.Resource != proto.Pods && cc.Resource != proto.Secrets {
		return fmt.Errorf("unknown resource %q", cc.Resource)
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
	cfg.DisableCompression = cc.DisableCompression
	wire := &wireRecorder{resource: cc.Resource}
	cfg.Wrap(wire.wrap)
	ctx, cancel := context.WithTimeout(context.Background(), cc.Timeout)
	defer cancel()
	t := &tracker{}
	count, err := run(ctx, cfg, cc, t)
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	wire.frozen.Store(true)
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
	samples := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(samples)
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
	if cc.HeapProfile != "" {
		// After the GC: the profile's in-use figures are what the cache
		// holds (set GODEBUG=memprofilerate=1 in the environment for
		// every allocation rather than a sample every 512 KB).
		if err := writeHeapProfile(cc.HeapProfile); err != nil {
			return fmt.Errorf("heap profile: %w", err)
		}
	}
	rep := proto.SyncReport{
		SyncSeconds:  elapsed.Seconds(),
		Objects:      objects,
		Adds:         t.adds.Load(),
		CPUSeconds:   proto.CPUSeconds(&ru),
		MaxRSSBytes:  peakRSS,
		HeapAfterGC:  ms.HeapAlloc,
		BaselineHeap: baseline.HeapAlloc,
		Wire:         wire.contentTypes(),
		WireBytes:    wire.bytes.Load(),
	}
	if samples[0].Value.Kind() == metrics.KindUint64 {
		rep.GCCycles = samples[0].Value.Uint64()
	}
	if samples[1].Value.Kind() == metrics.KindFloat64 {
		rep.GCCPUSeconds = samples[1].Value.Float64()
	}
	emit("SYNCED", rep)
	// Stay alive (and keep the objects) until the driver closes our stdin.
	_, _ = bufio.NewReader(os.Stdin).ReadString(0)
	peakRSS, err = vmHWM()
	if err != nil {
		return err
	}
	emit("DONE", proto.DoneReport{MaxRSSBytes: peakRSS})
	return nil
}

// writeHeapProfile writes the heap profile (as of the last GC) into path.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	return errors.Join(pprof.Lookup("heap").WriteTo(f, 0), f.Close())
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

func emit(tag string, v any) {
	b, _ := json.Marshal(v)
	fmt.Printf("%s %s\n", tag, b)
}

// wireRecorder is a rest.Config WrapTransport that records the
// Content-Type of the responses to LIST and WATCH requests for its resource
// and counts their body bytes until frozen. Safe for concurrent use.
type wireRecorder struct {
	resource string
	frozen   atomic.Bool
	bytes    atomic.Int64
	mu       sync.Mutex
	types    []string
}

func (w *wireRecorder) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(req)
		if err != nil || req.Method != http.MethodGet || !strings.HasSuffix(req.URL.Path, "/"+w.resource) {
			return resp, err
		}
		ct, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";")
		w.mu.Lock()
		if !slices.Contains(w.types, ct) {
			w.types = append(w.types, ct)
		}
		w.mu.Unlock()
		resp.Body = &countedBody{ReadCloser: resp.Body, w: w}
		return resp, nil
	})
}

func (w *wireRecorder) contentTypes() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.types, ",")
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

type countedBody struct {
	io.ReadCloser
	w *wireRecorder
}

func (b *countedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 && !b.w.frozen.Load() {
		b.w.bytes.Add(int64(n))
	}
	return n, err
}

// ourFactory is the generated factory of examples/builtin with its
// defaults (protobuf for built-in kinds) and WatchList as cc says.
func ourFactory(cfg *rest.Config, cc proto.ContenderConfig) *ourinformers.SharedInformerFactory {
	wl := cc.WatchList
	return ourinformers.NewSharedInformerFactory(cfg, factory.Options{
		Reflector:     reflector.Options{WatchList: &wl},
		InternStrings: cc.Contender == proto.OursProjectionInterned,
	})
}

// runOurs is the generated Pod or Secret informer of examples/builtin.
func runOurs(ctx context.Context, cfg *rest.Config, cc proto.ContenderConfig, t *tracker) (func() (int, error), error) {
	f := ourFactory(cfg, cc)
	if cc.Resource == proto.Pods {
		return startOurs(ctx, f, f.Core().V1().Pods().Informer(), t)
	}
	return startOurs(ctx, f, f.Core().V1().Secrets().Informer(), t)
}

// runOursProjection is the generated projection's informer instead of the
// kind's: PodSummary (metadata, .spec.nodeName, .status.phase,
// .status.podIP, .status.conditions) or SecretKeys (metadata, .type, the key names of .data). It
// asks the server for what the generated projection's Type asks for: the
// contender names no content type of its own. ours-projection-interned
// runs it with InternStrings.
func runOursProjection(ctx context.Context, cfg *rest.Config, cc proto.ContenderConfig, t *tracker) (func() (int, error), error) {
	f := ourFactory(cfg, cc)
	if cc.Resource == proto.Pods {
		return startOurs(ctx, f, f.Core().V1().PodSummaries().Informer(), t)
	}
	return startOurs(ctx, f, f.Core().V1().SecretKeys().Informer(), t)
}

// startOurs adds the tracker's handler to inf, starts f and waits until its
// informers and the handler are synced.
func startOurs[T store.Object[T]](ctx context.Context, f *ourinformers.SharedInformerFactory, inf *informer.Informer[T], t *tracker) (func() (int, error), error) {
	reg, err := inf.AddHandler(informer.HandlerFuncs[T]{AddFunc: func(T, bool) { t.add() }}, informer.HandlerOptions{})
	if err != nil {
		return nil, err
	}
	f.Start(ctx)
	if err := f.WaitForCacheSync(ctx); err != nil {
		return nil, err
	}
	select {
	case <-reg.Synced():
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the handler: %w", context.Cause(ctx))
	}
	return func() (int, error) { return inf.Indexer().Len(), nil }, nil
}

// runTyped is client-go's typed informer from its informer factory over a
// clientset that speaks protobuf, as kube-controller-manager configures its
// clients (ContentType protobuf, JSON accepted as a fallback).
func runTyped(ctx context.Context, cfg *rest.Config, cc proto.ContenderConfig, t *tracker) (func() (int, error), error) {
	cfg = rest.CopyConfig(cfg)
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	f := informers.NewSharedInformerFactory(cs, 0)
	var inf cache.SharedIndexInformer
	if cc.Resource == proto.Pods {
		inf = f.Core().V1().Pods().Informer()
	} else {
		inf = f.Core().V1().Secrets().Informer()
	}
	return runClientGo(ctx, inf, t)
}

// runMetadata is client-go's metadata informer (metadatainformer), which
// asks for PartialObjectMetadata over protobuf.
func runMetadata(ctx context.Context, cfg *rest.Config, cc proto.ContenderConfig, t *tracker) (func() (int, error), error) {
	mc, err := metadata.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	gvr := corev1.SchemeGroupVersion.WithResource(cc.Resource)
	inf := metadatainformer.NewFilteredSharedInformerFactory(mc, 0, metav1.NamespaceAll, nil).ForResource(gvr).Informer()
	return runClientGo(ctx, inf, t)
}

func runClientGo(ctx context.Context, inf cache.SharedIndexInformer, t *tracker) (func() (int, error), error) {
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(any) { t.add() }})
	if err != nil {
		return nil, err
	}
	go inf.RunWithContext(ctx)
	if err := waitSynced(ctx, reg); err != nil {
		return nil, err
	}
	return func() (int, error) { return len(inf.GetStore().ListKeys()), nil }, nil
}

// waitSynced waits until reg (a handler's registration, which is synced
// once its informer is and the handler has seen every initial object) is
// synced, on its channel, as ours is waited for: no polling, which would
// cost the client-go contenders CPU and wake-ups ours does not pay (and
// client-go's cache.WaitForCacheSync polls every 100 ms, which would round
// every client-go figure up by as much).
func waitSynced(ctx context.Context, reg cache.ResourceEventHandlerRegistration) error {
	select {
	case <-reg.HasSyncedChecker().Done():
		return nil
	case <-ctx.Done():
		return fmt.Errorf("not synced: %w", context.Cause(ctx))
	}
}

// runControllerRuntime is controller-runtime's cache with client-go's
// scheme (so protobuf for built-in kinds) and its default RESTMapper
// (discovery): GetInformer for the kind, or, for CtrlRtimeMeta, for its
// PartialObjectMetadata (a metadata-only watch, as builder.OnlyMetadata
// sets up).
func runControllerRuntime(ctx context.Context, cfg *rest.Config, cc proto.ContenderConfig, t *tracker) (func() (int, error), error) {
	c, err := crcache.New(cfg, crcache.Options{Scheme: clientgoscheme.Scheme})
	if err != nil {
		return nil, err
	}
	kind := "Pod"
	var obj client.Object = &corev1.Pod{}
	var list client.ObjectList = &corev1.PodList{}
	if cc.Resource == proto.Secrets {
		kind, obj, list = "Secret", &corev1.Secret{}, &corev1.SecretList{}
	}
	if cc.Contender == proto.CtrlRtimeMeta {
		obj = &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: kind}}
		list = &metav1.PartialObjectMetadataList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: kind + "List"}}
	}
	inf, err := c.GetInformer(ctx, obj)
	if err != nil {
		return nil, err
	}
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(any) { t.add() }})
	if err != nil {
		return nil, err
	}
	errc := make(chan error, 1)
	go func() { errc <- c.Start(ctx) }()
	// The handler's registration is synced only after the informer is; its
	// WaitForCacheSync (polling every 100 ms) then returns at once.
	if err := waitSynced(ctx, reg); err != nil {
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
		if err := c.List(ctx, list, client.UnsafeDisableDeepCopy); err != nil {
			return 0, err
		}
		switch l := list.(type) {
		case *corev1.PodList:
			return len(l.Items), nil
		case *corev1.SecretList:
			return len(l.Items), nil
		case *metav1.PartialObjectMetadataList:
			return len(l.Items), nil
		}
		return 0, fmt.Errorf("unexpected list %T", list)
	}, nil
}
