package informer_test

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// FuzzInformerConverges drives a fake source through random writes, dropped
// watches, compactions (forcing relists) and bookmarks, while handlers are
// added and removed, and then checks the invariant every test defends: the
// cache equals the source, every registered handler's last view of every
// key equals the source, and no handler saw an add of a key it held or an
// update/delete of one it did not.
//
// Fuzz it with -fuzzminimizetime=10x: its coverage depends on how the
// bubble's goroutines interleave, so most new inputs do not reproduce their
// coverage when the fuzzer tries to minimize them, and the default
// minimization (up to 60s per new input) leaves it executing nothing for
// most of a run (docs/performance.md, "Fuzz targets").
func FuzzInformerConverges(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 1, 1, 3, 0, 0, 3, 4, 0, 6, 0, 2, 2})
	f.Add([]byte{0, 0, 0, 1, 0, 2, 5, 0, 1, 0, 2, 1, 4, 0, 0, 3, 7, 0, 1, 2})
	f.Add([]byte{3, 0, 0, 4, 4, 0, 2, 4, 6, 0, 3, 0, 0, 1, 7, 1})
	f.Fuzz(func(t *testing.T, prog []byte) { fuzzBody(t, prog, 1) })
}

// FuzzMultiNamespaceConverges is FuzzInformerConverges over an informer of
// two namespaces (NewMultiNamespace), each with its own source: every
// operation hits one namespace's source, so one namespace relists, drops its
// watch or bookmarks while the other streams on, and the cache and every
// handler must still equal the union of both sources.
func FuzzMultiNamespaceConverges(f *testing.F) {
	f.Add([]byte{0, 1, 0, 6, 2, 4, 0, 2, 3, 4, 1, 1, 0, 5, 4, 0, 6, 0})
	f.Add([]byte{0, 0, 0, 4, 3, 0, 1, 0, 0, 5, 2, 5, 5, 0, 3, 4, 1, 4, 7, 0})
	f.Add([]byte{3, 0, 3, 4, 0, 0, 0, 4, 2, 0, 1, 4, 3, 4, 6, 0, 7, 1})
	f.Fuzz(func(t *testing.T, prog []byte) { fuzzBody(t, prog, 2) })
}

// fuzzBody runs prog against an informer of namespaces (1: New over one
// source; 2: NewMultiNamespace over two): each pair of bytes is an operation
// and its argument, whose low two bits pick a key and next bit a namespace.
func fuzzBody(t *testing.T, prog []byte, namespaces int) {
	{
		synctest.Test(t, func(t *testing.T) {
			nsNames := []string{"ns", "ns2"}[:namespaces]
			var srcs []*runtimetest.Source[CM]
			sources := map[string]reflector.ListerWatcher[CM]{}
			for _, ns := range nsNames {
				src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm(ns, "k0"), cm(ns, "k1"))
				srcs = append(srcs, src)
				sources[ns] = src
			}
			var inf *informer.Informer[CM]
			if namespaces == 1 {
				inf = newInformer(srcs[0], informer.Options[CM]{})
			} else {
				inf = informer.NewMultiNamespace(sources, informer.Options[CM]{})
			}
			type handler struct {
				rec *runtimetest.Recorder[CM]
				reg *informer.Registration
			}
			var hs []handler
			add := func() {
				rec, reg := addRecorder(t, inf, informer.HandlerOptions{})
				hs = append(hs, handler{rec, reg})
			}
			add()
			run(t, inf)
			for i := 0; i+1 < len(prog); i += 2 {
				name := fmt.Sprint("k", prog[i+1]%4)
				n := int(prog[i+1]/4) % namespaces
				src, ns := srcs[n], nsNames[n]
				_, exists := src.Get(ns + "/" + name)
				switch prog[i] % 8 {
				case 0:
					if exists {
						must(src.Update(cm(ns, name, fmt.Sprint(i))))
					} else {
						must(src.Add(cm(ns, name)))
					}
				case 1:
					if exists {
						must(src.Delete(cm(ns, name)))
					}
				case 2:
					src.DropWatches()
				case 3:
					src.Compact()
				case 4:
					src.Bookmark()
				case 5:
					add()
				case 6:
					if len(hs) > 1 {
						h := hs[0]
						hs = hs[1:]
						if err := inf.RemoveHandler(h.reg); err != nil {
							t.Fatal(err)
						}
					}
				case 7:
					synctest.Wait() // let the informer catch up here and there
				}
			}
			// Caught up: every goroutine is idle, the Reflector is watching
			// (so it has everything the source logged) and every handler
			// has synced. Fake time moves only while everything waits, so
			// backoffs pass instantly.
			deadline := time.Now().Add(time.Hour)
			for {
				synctest.Wait()
				synced := true
				for _, h := range hs {
					synced = synced && h.reg.HasSynced()
				}
				watching := true
				for _, src := range srcs {
					watching = watching && src.OpenWatches() > 0
				}
				if synced && watching {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("not caught up after an hour: synced=%v watching=%v last error %v", synced, watching, inf.LastError())
				}
				time.Sleep(time.Second)
			}
			want := union(srcs...)
			for _, h := range hs {
				if got := h.rec.State(); !runtimetest.SameResourceVersions(got, want) {
					t.Fatalf("%s saw %v, want %v (program %v)", h.reg.Name(), rvs(got), rvs(want), prog)
				}
				if err := h.rec.Err(); err != nil {
					t.Fatalf("%s: %v (program %v)", h.reg.Name(), err, prog)
				}
			}
			got := map[string]CM{}
			for _, o := range inf.Indexer().List() {
				got[store.Key(o)] = o
			}
			if !runtimetest.SameResourceVersions(got, want) {
				t.Fatalf("cache %v, want %v (program %v)", rvs(got), rvs(want), prog)
			}
		})
	}
}

func rvs(m map[string]CM) map[string]string {
	out := map[string]string{}
	for k, o := range m {
		out[k] = o.ResourceVersion
	}
	return out
}
