package factory_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	"k8s.io/apimachinery/pkg/api/resource"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	corev1gen "github.com/informer-gen/informer-gen/bench/generated/informers/core/v1"
	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/store"
	"github.com/informer-gen/informer-gen/runtime/workqueue"
)

// The redaction rule (docs/guide.md, "What reaches a log or an error")
// through a whole factory, over HTTP, with the generated JSON decoder: Pods
// with a canary in every string (and malformed timestamps holding it) are
// listed and watched; a handler panics with the object, a reconcile panics
// with an error quoting it, a transform and an index func return errors
// quoting it. Every
// log line (the logr sink in ctx and klog's global logger), every error
// (WaitForCacheSync, LastError, the watch error handler) is checked: none
// may hold the canary. The runtime/wire canary test covers every codec; this
// one covers what happens to their errors, and to objects, above them.

const canary = "cAnArY0hunter2"

// canaryPod is a random Pod with the canary in every string but its identity
// (namespace ns, name, resourceVersion rv), every []byte and every map value.
func canaryPod(t *testing.T, ns, name, rv string) *corev1.Pod {
	t.Helper()
	f := fuzzer.FuzzerFor(metafuzzer.Funcs, rand.NewSource(7), serializer.NewCodecFactory(scheme.Scheme)).NilChance(0.1).MaxDepth(5).NumElements(1, 1)
	p := new(corev1.Pod)
	f.Fill(p)
	setStrings(reflect.ValueOf(p))
	p.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	p.Namespace, p.Name, p.ResourceVersion = ns, name, rv
	p.DeletionTimestamp, p.DeletionGracePeriodSeconds = nil, nil
	p.ManagedFields = nil
	return p
}

func setStrings(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			setStrings(v.Elem())
		}
	case reflect.Struct:
		switch v.Interface().(type) {
		case resource.Quantity, metav1.Time, metav1.MicroTime, runtime.RawExtension, metav1.FieldsV1:
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				setStrings(v.Field(i))
			}
		}
	case reflect.String:
		v.SetString(canary)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			v.SetBytes([]byte(canary))
			return
		}
		for i := range v.Len() {
			setStrings(v.Index(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			nv := reflect.New(v.Type().Elem()).Elem()
			nv.Set(v.MapIndex(k))
			setStrings(nv)
			v.SetMapIndex(k, nv)
		}
	}
}

// withBadTime returns p's JSON with its creationTimestamp replaced by the
// canary: a value only the decoder can reject.
func withBadTime(t *testing.T, p *corev1.Pod) []byte {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m["metadata"].(map[string]any)["creationTimestamp"] = canary
	b, err = json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// canaryServer is an in-memory API server for Pods (an http.RoundTripper,
// so the test runs in a synctest bubble): LIST answers with failList's body
// while failing is set, else with the good one; each WATCH is a stream the
// test writes events to.
type canaryServer struct {
	failList, goodList []byte
	failing            atomic.Bool

	mu      sync.Mutex
	watches []*io.PipeWriter
	opened  chan struct{} // gets a value per WATCH
}

func (s *canaryServer) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		r.Body.Close()
	}
	resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}}, Request: r, ProtoMajor: 1, ProtoMinor: 1}
	if r.URL.Query().Get("watch") != "true" {
		body := s.goodList
		if s.failing.Load() {
			body = s.failList
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		return resp, nil
	}
	// Ended by the client closing the body (the Reflector stops a watch
	// that way), not by the request's context, which client-go's Stream
	// cancels once its timeout passes.
	pr, pw := io.Pipe()
	s.mu.Lock()
	s.watches = append(s.watches, pw)
	s.mu.Unlock()
	s.opened <- struct{}{}
	resp.Body = pr
	return resp, nil
}

// send writes one event to the newest watch.
func (s *canaryServer) send(t *testing.T, typ string, object []byte) {
	t.Helper()
	s.mu.Lock()
	w := s.watches[len(s.watches)-1]
	s.mu.Unlock()
	if _, err := fmt.Fprintf(w, `{"type":%q,"object":%s}`+"\n", typ, object); err != nil {
		t.Fatalf("send %s: %v", typ, err)
	}
}

// canaryLogs keeps every log line: the logr sink given to the runtime in its
// ctx and klog's global logger (klog.Background, klog.Info…).
type canaryLogs struct {
	mu    sync.Mutex
	lines []string
}

func (l *canaryLogs) sink() funcr.Options { return funcr.Options{Verbosity: 10} }

func (l *canaryLogs) add(prefix, args string) {
	l.mu.Lock()
	l.lines = append(l.lines, prefix+" "+args)
	l.mu.Unlock()
}

func (l *canaryLogs) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

func TestCanaryNeverLeavesTheFactory(t *testing.T) {
	for _, which := range []string{"Options.Transform", "TypeOptions.Transform", "informer.Options.Transform"} {
		t.Run(which, func(t *testing.T) { canaryThroughFactory(t, which) })
	}
}

func canaryThroughFactory(t *testing.T, transform string) {
	var logs canaryLogs
	klog.SetLoggerWithOptions(funcr.New(logs.add, logs.sink()), klog.ContextualLogger(true))
	t.Cleanup(klog.ClearLogger)

	synctest.Test(t, func(t *testing.T) {
		good := canaryPod(t, "ns", "a", "5")
		list := func(items ...[]byte) []byte {
			return fmt.Appendf(nil, `{"apiVersion":"v1","kind":"PodList","metadata":{"resourceVersion":"10"},"items":[%s]}`, bytes.Join(items, []byte(",")))
		}
		srv := &canaryServer{
			failList: list(mustJSON(t, good), withBadTime(t, canaryPod(t, "ns", "b", "6"))),
			goodList: list(mustJSON(t, good)),
			opened:   make(chan struct{}, 16),
		}
		srv.failing.Store(true)

		var (
			mu                                    sync.Mutex
			errs                                  []error
			handlerPanics, reconciles, transforms int
			panicked                              = map[string]bool{}
		)
		report := func(err error) {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		}
		// A transform that fails on Pod ns/t with the object in its text.
		rejectT := func(p *corev1.Pod) error {
			if p.Name != "t" {
				return nil
			}
			mu.Lock()
			transforms++
			mu.Unlock()
			return fmt.Errorf("cannot transform %v", p)
		}
		opts := factory.Options{HTTPClient: &http.Client{Transport: srv}}
		opts.Reflector.WatchErrorHandler = func(_ context.Context, err error) { report(err) }
		watchList := false
		opts.Reflector.WatchList = &watchList
		typeOpts := factory.TypeOptions[*corev1.Pod]{Type: corev1gen.PodType, ContentType: "application/json"}
		switch transform {
		case "Options.Transform":
			opts.Transform = func(o runtime.Object) (runtime.Object, error) { return o, rejectT(o.(*corev1.Pod)) }
		case "TypeOptions.Transform":
			typeOpts.Transform = func(p *corev1.Pod) (*corev1.Pod, error) { return p, rejectT(p) }
		}
		typeOpts.Informer = func(o *informer.Options[*corev1.Pod]) {
			if transform == "informer.Options.Transform" {
				o.Transform = func(p *corev1.Pod) (*corev1.Pod, error) { return p, rejectT(p) }
			}
			o.HandlerPanic = func(context.Context, informer.HandlerPanicInfo) {
				mu.Lock()
				handlerPanics++
				mu.Unlock()
			}
		}
		opts.Types = []factory.TypeOverride{typeOpts}
		f := factory.New(&rest.Config{Host: "http://canary.invalid"}, opts)
		pods := factory.InformerFor(f, corev1gen.PodType)
		// An index func that fails on ns/c with the object in its text.
		if err := pods.AddIndexers(store.Indexers[*corev1.Pod]{"canary": func(p *corev1.Pod) ([]string, error) {
			if p.Name == "c" {
				return nil, fmt.Errorf("cannot index %v", p)
			}
			return nil, nil
		}}); err != nil {
			t.Fatal(err)
		}
		queue := workqueue.New(workqueue.Options[string]{})
		if _, err := pods.AddHandler(informer.HandlerFuncs[*corev1.Pod]{
			AddFunc: func(p *corev1.Pod, _ bool) {
				queue.Add(store.Key(p))
				if p.Name == "c" {
					panic(p) // the whole object, every field
				}
			},
		}, informer.HandlerOptions{}); err != nil {
			t.Fatal(err)
		}

		ctx, cancel := context.WithCancel(klog.NewContext(t.Context(), funcr.New(logs.add, logs.sink())))
		f.Start(ctx)
		var workers sync.WaitGroup
		workers.Go(func() {
			_ = queue.Run(ctx, 1, func(ctx context.Context, key string) error {
				p, ok := pods.Indexer().Get(key)
				if !ok {
					return nil
				}
				mu.Lock()
				reconciles++
				again := panicked[key]
				panicked[key] = true
				mu.Unlock()
				if again {
					return nil // once per key: the retries' backoff would move the clock past the watch's timeout
				}
				panic(fmt.Errorf("reconcile of %v went wrong", p))
			})
		})

		// The LIST fails on ns/b's timestamp: WaitForCacheSync says so.
		waitCtx, waitCancel := context.WithTimeout(ctx, time.Minute)
		syncErr := f.WaitForCacheSync(waitCtx)
		waitCancel()
		if syncErr == nil {
			t.Fatal("WaitForCacheSync returned nil with a malformed LIST")
		}
		report(syncErr)
		report(pods.LastError())

		srv.failing.Store(false)
		if err := f.WaitForCacheSync(ctx); err != nil {
			t.Fatal(err)
		}
		<-srv.opened
		srv.send(t, "ADDED", mustJSON(t, canaryPod(t, "ns", "c", "11")))    // the handler panics with it
		srv.send(t, "ADDED", withBadTime(t, canaryPod(t, "ns", "d", "12"))) // the decoder rejects it, which ends the watch
		<-srv.opened
		report(pods.LastError())
		srv.send(t, "ADDED", mustJSON(t, canaryPod(t, "ns", "t", "13"))) // the transform rejects it
		synctest.Wait()
		report(pods.LastError())

		cancel()
		workers.Wait()
		f.Shutdown()

		mu.Lock()
		defer mu.Unlock()
		if handlerPanics == 0 || reconciles == 0 || transforms == 0 {
			t.Fatalf("handler panics %d, reconciles %d, transform errors %d: every path must run", handlerPanics, reconciles, transforms)
		}
		leaks := map[string]bool{} // each message once: the LIST is retried many times
		var decodeErrs int
		for _, err := range errs {
			if err == nil {
				continue
			}
			if strings.Contains(err.Error(), "decode") {
				decodeErrs++
			}
			if strings.Contains(err.Error(), canary) {
				leaks["error: "+err.Error()] = true
			}
		}
		if decodeErrs < 2 {
			t.Errorf("%d decode errors reported, want the LIST's and the WATCH's: %v", decodeErrs, errs)
		}
		lines := logs.all()
		wants := []string{"handler panicked", "reconcile failed", "transform of Added ns/t: ", "index func failed", `"key"="ns/c"`}
		if transform == "Options.Transform" {
			// Redacted, the error keeps the factory's words around it.
			wants = append(wants, "transform pods.v1 ns/t: error of type *errors.errorString")
		}
		for _, want := range wants {
			if !slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, want) }) {
				t.Errorf("no log line holds %q: the test no longer sees that path", want)
			}
		}
		for _, l := range lines {
			if strings.Contains(l, canary) {
				leaks["log line: "+l] = true
			}
		}
		for _, l := range slices.Sorted(maps.Keys(leaks)) {
			t.Errorf("the canary reached %.600s", l)
		}
	})
}
