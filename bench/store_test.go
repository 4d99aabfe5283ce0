package bench_test

import (
	"encoding/json"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/informer-gen/informer-gen/runtime/store"
)

// Store benchmarks: our store.Indexer against client-go's cache.NewIndexer
// with the namespace index and one custom index (spec.nodeName), on the same
// 100k newBenchPod objects. Run:
//
//	go test ./bench -run '^$' -bench '^BenchmarkStore' -benchtime=1x -count=1   # memory
//	go test ./bench -run '^$' -bench '^BenchmarkStore(List|Get|Update)' -count=5
const storeObjects = 100_000

var storePodsGR = schema.GroupResource{Resource: "pods"}

var storePods = sync.OnceValue(func() []*corev1.Pod {
	pods := make([]*corev1.Pod, storeObjects)
	for i := range pods {
		pods[i] = newBenchPod(i)
	}
	return pods
})

func storeNodeIndexOurs(p *corev1.Pod) ([]string, error) { return store.Values(p.Spec.NodeName), nil }

func storeNodeIndexClientGo(obj any) ([]string, error) {
	return []string{obj.(*corev1.Pod).Spec.NodeName}, nil
}

func newStoreOurs(pods []*corev1.Pod) *store.Writer[*corev1.Pod] {
	w := store.New(store.Options[*corev1.Pod]{Indexers: store.Indexers[*corev1.Pod]{"node": storeNodeIndexOurs}})
	for _, p := range pods {
		w.Set(store.Key(p), p)
	}
	return w
}

func newStoreClientGo(pods []*corev1.Pod) cache.Indexer {
	ix := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{
		cache.NamespaceIndex: cache.MetaNamespaceIndexFunc,
		"node":               storeNodeIndexClientGo,
	})
	for _, p := range pods {
		if err := ix.Add(p); err != nil {
			panic(err)
		}
	}
	return ix
}

// storeLiveHeap returns the bytes of live heap after a full collection.
func storeLiveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkStoreOverhead fills a store with 100k pods that are already
// allocated and reports the live heap the store adds, per object (B/obj):
// the cost of the cache itself, its key table, the namespace index and the
// node index. ns/op is the time to fill it.
func BenchmarkStoreOverhead(b *testing.B) {
	pods := storePods()
	b.Run("impl=ours", func(b *testing.B) {
		var perObj float64
		for b.Loop() {
			b.StopTimer()
			before := storeLiveHeap()
			b.StartTimer()
			w := newStoreOurs(pods)
			b.StopTimer()
			perObj = float64(int64(storeLiveHeap())-int64(before)) / storeObjects
			runtime.KeepAlive(w)
			b.StartTimer()
		}
		b.ReportMetric(perObj, "B/obj")
	})
	b.Run("impl=client-go", func(b *testing.B) {
		var perObj float64
		for b.Loop() {
			b.StopTimer()
			before := storeLiveHeap()
			b.StartTimer()
			ix := newStoreClientGo(pods)
			b.StopTimer()
			perObj = float64(int64(storeLiveHeap())-int64(before)) / storeObjects
			runtime.KeepAlive(ix)
			b.StartTimer()
		}
		b.ReportMetric(perObj, "B/obj")
	})
}

// BenchmarkStoreLabelIndexMemory reports what our label index adds per object
// once a selector on label key "app" has been used (only the keys selected on
// are indexed). client-go has no label index, hence no pair.
func BenchmarkStoreLabelIndexMemory(b *testing.B) {
	pods := storePods()
	w := newStoreOurs(pods)
	sel := labels.SelectorFromSet(labels.Set{"app": "app-7"})
	var perObj float64
	for b.Loop() {
		b.StopTimer()
		w = newStoreOurs(pods)
		before := storeLiveHeap()
		b.StartTimer()
		w.Indexer().ListSelector("", sel) // builds the label index
		b.StopTimer()
		perObj = float64(int64(storeLiveHeap())-int64(before)) / storeObjects
		b.StartTimer()
	}
	runtime.KeepAlive(w)
	b.ReportMetric(perObj, "B/obj")
}

// Listers over filled stores, built once and shared by the read benchmarks.
var (
	storeOurIndexer = sync.OnceValue(func() *store.Indexer[*corev1.Pod] { return newStoreOurs(storePods()).Indexer() })
	storeOurLister  = sync.OnceValue(func() store.Lister[*corev1.Pod] {
		l := store.NewLister(storeOurIndexer(), storePodsGR)
		// Warm up: the first equality selector builds the label index.
		if _, err := l.List(labels.SelectorFromSet(labels.Set{"app": "app-0"})); err != nil {
			panic(err)
		}
		return l
	})
	storeClientGoIndexer = sync.OnceValue(func() cache.Indexer { return newStoreClientGo(storePods()) })
)

func storeBenchList(b *testing.B, sel labels.Selector, wantLen int) {
	b.Run("impl=ours", func(b *testing.B) {
		l := storeOurLister()
		b.ReportAllocs()
		for b.Loop() {
			got, _ := l.List(sel)
			if len(got) != wantLen {
				b.Fatalf("List(%s) returned %d pods, want %d", sel, len(got), wantLen)
			}
		}
	})
	b.Run("impl=client-go", func(b *testing.B) {
		l := corelisters.NewPodLister(storeClientGoIndexer())
		b.ReportAllocs()
		for b.Loop() {
			got, _ := l.List(sel)
			if len(got) != wantLen {
				b.Fatalf("List(%s) returned %d pods, want %d", sel, len(got), wantLen)
			}
		}
	})
}

// BenchmarkStoreListSelector lists the 1% of pods with app=app-7 through a
// lister, across all namespaces.
func BenchmarkStoreListSelector(b *testing.B) {
	storeBenchList(b, labels.SelectorFromSet(labels.Set{"app": "app-7"}), storeObjects/benchApps)
}

// BenchmarkStoreListSelectorTwoLabels selects app=app-7,env=staging (every
// app-7 pod: an odd app's pods are all staging), so the second requirement is
// checked on each candidate of the first.
func BenchmarkStoreListSelectorTwoLabels(b *testing.B) {
	storeBenchList(b, labels.SelectorFromSet(labels.Set{"app": "app-7", "env": "staging"}), storeObjects/benchApps)
}

// BenchmarkStoreListEverything lists all 100k pods through a lister.
func BenchmarkStoreListEverything(b *testing.B) {
	storeBenchList(b, labels.Everything(), storeObjects)
}

// BenchmarkStoreListNamespace lists one namespace (1% of the pods) with
// labels.Everything(): both sides use their namespace index.
func BenchmarkStoreListNamespace(b *testing.B) {
	want := storeObjects / benchNamespaces
	b.Run("impl=ours", func(b *testing.B) {
		l := storeOurLister().Namespace("ns-7")
		b.ReportAllocs()
		for b.Loop() {
			if got, _ := l.List(labels.Everything()); len(got) != want {
				b.Fatalf("got %d pods, want %d", len(got), want)
			}
		}
	})
	b.Run("impl=client-go", func(b *testing.B) {
		l := corelisters.NewPodLister(storeClientGoIndexer()).Pods("ns-7")
		b.ReportAllocs()
		for b.Loop() {
			if got, _ := l.List(labels.Everything()); len(got) != want {
				b.Fatalf("got %d pods, want %d", len(got), want)
			}
		}
	})
}

// storeGetOrder is the order the Get benchmarks visit the pods in: a fixed random
// permutation, as a controller's reads are (a sequential walk would favour
// whichever store happens to lay its keys out in insertion order).
var storeGetOrder = sync.OnceValue(func() []*corev1.Pod {
	pods := slices.Clone(storePods())
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(pods), func(i, j int) { pods[i], pods[j] = pods[j], pods[i] })
	return pods
})

// BenchmarkStoreGet gets pods by key (precomputed) in random order and does
// not look at them. Ours verifies the key against the object's namespace and
// name (it stores no key strings), so it takes cache misses client-go's map
// does not; a caller that then reads the object pays most of them anyway
// (see BenchmarkStoreGetLister).
func BenchmarkStoreGet(b *testing.B) {
	pods := storeGetOrder()
	keys := make([]string, len(pods))
	for i, p := range pods {
		keys[i] = store.Key(p)
	}
	b.Run("impl=ours", func(b *testing.B) {
		storeOurLister() // same state as the other read benchmarks: label index built
		ix := storeOurIndexer()
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if p, ok := ix.Get(keys[i]); !ok || p != pods[i] {
				b.Fatal("wrong pod")
			}
			if i++; i == len(keys) {
				i = 0
			}
		}
	})
	b.Run("impl=client-go", func(b *testing.B) {
		ix := storeClientGoIndexer()
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			obj, ok, _ := ix.GetByKey(keys[i])
			if !ok || obj.(*corev1.Pod) != pods[i] {
				b.Fatal("wrong pod")
			}
			if i++; i == len(keys) {
				i = 0
			}
		}
	})
}

// BenchmarkStoreGetLister is a controller's read in random order:
// Pods(ns).Get(name), then a look at the object (its node).
func BenchmarkStoreGetLister(b *testing.B) {
	pods := storeGetOrder()
	b.Run("impl=ours", func(b *testing.B) {
		l := storeOurLister()
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			p := pods[i]
			if got, err := l.Namespace(p.Namespace).Get(p.Name); err != nil || got.Spec.NodeName == "" {
				b.Fatal("wrong pod", err)
			}
			if i++; i == len(pods) {
				i = 0
			}
		}
	})
	b.Run("impl=client-go", func(b *testing.B) {
		l := corelisters.NewPodLister(storeClientGoIndexer())
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			p := pods[i]
			if got, err := l.Pods(p.Namespace).Get(p.Name); err != nil || got.Spec.NodeName == "" {
				b.Fatal("wrong pod", err)
			}
			if i++; i == len(pods) {
				i = 0
			}
		}
	})
}

// storeUpdatePods returns, for the first n pods, a second version of each: a
// shallow copy with its own label map and a new resourceVersion, as a status
// update from the server would look. Index values do not change.
func storeUpdatePods(n int) []*corev1.Pod {
	pods := storePods()
	out := make([]*corev1.Pod, n)
	for i := range out {
		p := *pods[i]
		p.Labels = maps.Clone(p.Labels)
		p.ResourceVersion += "1"
		out[i] = &p
	}
	return out
}

// BenchmarkStoreUpdate replaces pods in a filled store, alternating each of
// 10k keys between two versions; the key is computed per update as the
// informer does. With labels=indexed a selector on "app" has run first, so
// our label index for that key is maintained on every update (client-go has
// no label index; its side is the same run again).
func BenchmarkStoreUpdate(b *testing.B) {
	pods := storePods()
	alt := storeUpdatePods(10_000)
	for _, labelIndexed := range []bool{false, true} {
		name := "labels=plain/impl=ours"
		if labelIndexed {
			name = "labels=indexed/impl=ours"
		}
		b.Run(name, func(b *testing.B) {
			w := newStoreOurs(pods)
			if labelIndexed {
				w.Indexer().ListSelector("", labels.SelectorFromSet(labels.Set{"app": "app-0"}))
			}
			b.ReportAllocs()
			i, round := 0, 0
			for b.Loop() {
				p := pods[i]
				if round%2 == 0 {
					p = alt[i]
				}
				w.Set(store.Key(p), p)
				if i++; i == len(alt) {
					i, round = 0, round+1
				}
			}
		})
		b.Run(name[:len(name)-len("ours")]+"client-go", func(b *testing.B) {
			ix := newStoreClientGo(pods)
			b.ReportAllocs()
			i, round := 0, 0
			for b.Loop() {
				p := pods[i]
				if round%2 == 0 {
					p = alt[i]
				}
				if err := ix.Update(p); err != nil {
					b.Fatal(err)
				}
				if i++; i == len(alt) {
					i, round = 0, round+1
				}
			}
		})
	}
}

// BenchmarkStorePodBytes reports the live heap per cached pod (B/pod) for
// 20k pods decoded from JSON, as an informer would cache them: client-go
// keeps the decoded pod as is; ours applies its default transform (drops
// managedFields), and with InternStrings also interns repeated strings and
// label maps (store.InternStrings). ns/op is decode (+ transform) time.
func BenchmarkStorePodBytes(b *testing.B) {
	const n = 20_000
	raw := make([][]byte, n)
	for i := range raw {
		var err error
		if raw[i], err = json.Marshal(newBenchPod(i)); err != nil {
			b.Fatal(err)
		}
	}
	for _, impl := range []struct {
		name      string
		transform func(*corev1.Pod) *corev1.Pod
	}{
		{"impl=ours", func(p *corev1.Pod) *corev1.Pod { p.ManagedFields = nil; return p }},
		{"impl=ours,InternStrings", func(p *corev1.Pod) *corev1.Pod { p.ManagedFields = nil; return store.InternStrings(p) }},
		{"impl=client-go", nil},
	} {
		b.Run(impl.name, func(b *testing.B) {
			var perPod float64
			for b.Loop() {
				b.StopTimer()
				before := storeLiveHeap()
				b.StartTimer()
				pods := make([]*corev1.Pod, n)
				for i := range pods {
					p := new(corev1.Pod)
					if err := json.Unmarshal(raw[i], p); err != nil {
						b.Fatal(err)
					}
					if impl.transform != nil {
						p = impl.transform(p)
					}
					pods[i] = p
				}
				b.StopTimer()
				perPod = float64(int64(storeLiveHeap())-int64(before)) / n
				runtime.KeepAlive(pods)
				b.StartTimer()
			}
			b.ReportMetric(perPod, "B/pod")
		})
	}
}
