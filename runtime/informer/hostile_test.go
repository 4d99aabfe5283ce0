package informer_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// Hostile streams, generated: a broken server or proxy in front of a fake
// source mixes into every watch events an API server never sends (each
// event type, resourceVersions older, repeated, not a number or empty,
// objects without a name, undecodable objects, unknown event types, ERROR
// events) and closes watches after a random number of events; it garbles
// LIST items too. While it lasts, writers change the source. Asserted, for
// an all-namespaces informer (one source holding two namespaces) and a
// two-namespace informer (a source per namespace), in virtual time:
//   - request rate: from 5s to 30s into the fault, each informer makes at
//     most one LIST or WATCH request a second on average;
//   - convergence: the cache equals the sources within 2s of the fault's
//     end;
//   - the fault was visible: LastError was set while it lasted.
//
// Besides the generated mix ("mixed"), each shape a broken server or proxy
// was seen to send runs on its own: "stale-rv" answers every watch with one
// MODIFIED event older than the watch's start and closes it (a reconnect
// storm for a client that resumes at once), "bogus-rv" sends a MODIFIED
// whose resourceVersion is "notanumber" and closes the watch, "garbage" an
// undecodable event and closes it, and "blank-names" blanks every name in
// LISTs and watch events.
//
// hostileSeeds seeds of the mix (and shapeSeeds of each shape) run in CI;
// FuzzHostileStreams explores more. The test logs the highest request rate
// seen per shape and informer.
const (
	hostileSeeds = 12
	shapeSeeds   = 3
)

// hostileShapes are the shapes of hostile streams hostileRun knows.
var hostileShapes = []string{"mixed", "stale-rv", "bogus-rv", "garbage", "blank-names"}

func TestHostileStreams(t *testing.T) {
	type worst struct {
		rate      float64
		converged time.Duration
	}
	highest := map[string]*worst{}
	for _, shape := range hostileShapes {
		seeds := uint64(shapeSeeds)
		if shape == "mixed" {
			seeds = hostileSeeds
		}
		for seed := range seeds {
			for _, namespaces := range []int{1, 2} {
				t.Run(fmt.Sprintf("%s/seed=%d/namespaces=%d", shape, seed, namespaces), func(t *testing.T) {
					r := hostileRun(t, shape, seed, namespaces)
					t.Logf("%.2f requests/s, at most %d in 10s; converged %v after the fault", r.rate, r.maxPer10s, r.converged)
					key := fmt.Sprintf("%s, namespaces=%d", shape, namespaces)
					if highest[key] == nil {
						highest[key] = &worst{}
					}
					highest[key].rate = max(highest[key].rate, r.rate)
					highest[key].converged = max(highest[key].converged, r.converged)
				})
			}
		}
	}
	var lines []string
	for _, shape := range hostileShapes {
		for _, namespaces := range []int{1, 2} {
			if w := highest[fmt.Sprintf("%s, namespaces=%d", shape, namespaces)]; w != nil {
				lines = append(lines, fmt.Sprintf("%-12s namespaces=%d: at most %.2f requests/s per informer, converged within %v", shape, namespaces, w.rate, w.converged))
			}
		}
	}
	t.Logf("highest per shape:\n%s", strings.Join(lines, "\n"))
}

func FuzzHostileStreams(f *testing.F) {
	f.Add(uint64(1), false, uint8(0))
	f.Add(uint64(2), true, uint8(0))
	f.Add(uint64(3), true, uint8(1))
	f.Fuzz(func(t *testing.T, seed uint64, multi bool, shape uint8) {
		hostileRun(t, hostileShapes[int(shape)%len(hostileShapes)], seed, map[bool]int{false: 1, true: 2}[multi])
	})
}

type hostileResult struct {
	rate      float64 // requests per second of the informer
	maxPer10s int
	converged time.Duration
}

// hostileFault is how long the fault lasts; the generated streams and the
// writers run that long.
const hostileFault = 30 * time.Second

func hostileRun(t *testing.T, shape string, seed uint64, namespaces int) (res hostileResult) {
	synctest.Test(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(seed, 0x5eed))
		var mu sync.Mutex // guards rng: sources and writers share it
		rnd := func(n int) int { mu.Lock(); defer mu.Unlock(); return rng.IntN(n) }

		nss := []string{"a", "b"}
		var srcs []*runtimetest.Source[CM]
		var lws []*hostileLW
		var inf *informer.Informer[CM]
		opts := informer.Options[CM]{Reflector: reflector.Options{Name: "configmaps.v1"}}
		if namespaces == 1 {
			src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm("a", "k0", "0"), cm("b", "k0", "0"))
			srcs = append(srcs, src)
			lws = append(lws, &hostileLW{Source: src, rnd: rnd, shape: shape})
			inf = informer.New[CM](lws[0], opts)
		} else {
			sources := map[string]reflector.ListerWatcher[CM]{}
			for _, ns := range nss {
				src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm(ns, "k0", "0"))
				lw := &hostileLW{Source: src, rnd: rnd, shape: shape}
				srcs, lws = append(srcs, src), append(lws, lw)
				sources[ns] = lw
			}
			inf = informer.NewMultiNamespace(sources, opts)
		}
		ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logr.Discard()))
		done := make(chan error, 1)
		go func() { done <- inf.Run(ctx) }()
		defer func() { cancel(); <-done }()
		synctest.Wait()
		if !inf.HasSynced() {
			t.Fatal("not synced before the fault")
		}

		for _, lw := range lws {
			lw.setHostile(true)
			lw.DropWatches() // the informers meet the fault at once
		}
		start := time.Now()
		sawErr := false
		for time.Since(start) < hostileFault {
			n := rnd(len(srcs))
			src := srcs[n]
			ns := nss[rnd(len(nss))]
			if namespaces == 2 {
				ns = nss[n]
			}
			key := fmt.Sprint("k", rnd(4))
			old, exists := src.Get(ns + "/" + key)
			switch {
			case !exists:
				must(src.Add(cm(ns, key, "0")))
			case rnd(4) == 0:
				must(src.Delete(old))
			default:
				o := old.DeepCopy()
				o.Data = map[string]string{"v": strconv.Itoa(rnd(1000))}
				must(src.Update(o))
			}
			time.Sleep(time.Duration(50+rnd(300)) * time.Millisecond)
			sawErr = sawErr || inf.LastError() != nil
		}
		for _, lw := range lws {
			lw.setHostile(false)
		}
		ended := time.Now()
		if !sawErr {
			t.Errorf("LastError stayed nil throughout the fault; %s", lws[0].describe())
		}
		// Per informer (a multi-namespace informer's Reflectors share one
		// Budget): its requests after the first few seconds, averaged over
		// the next 25s (a whole number of seconds: requests a second apart
		// may fit 26 in a window of 25.3s), and the most in any 10s.
		from, to := start.Add(5*time.Second), start.Add(hostileFault)
		count := 0
		for _, lw := range lws {
			count += lw.countIn(from, to)
		}
		res.rate = float64(count) / to.Sub(from).Seconds()
		res.maxPer10s = maxPerWindow(lws, from, to, 10*time.Second)
		if res.rate > 1.0 {
			t.Errorf("%d requests in the fault's seconds 5 to 30 (%.2f/s), want at most one a second for the informer: %s", count, res.rate, describeAll(lws))
		}
		want := union(srcs...)
		for {
			synctest.Wait()
			got := map[string]CM{}
			for _, o := range inf.Indexer().List() {
				got[store.Key(o)] = o
			}
			if runtimetest.SameResourceVersions(got, want) {
				break
			}
			if time.Since(ended) > 2*time.Second {
				t.Fatalf("cache %s 2s after the fault ended, want the sources' %v (LastError %v)", cacheRVs(inf), rvsOf(want), inf.LastError())
			}
			time.Sleep(10 * time.Millisecond)
		}
		res.converged = time.Since(ended)
	})
	return res
}

func rvsOf(m map[string]CM) map[string]string {
	out := map[string]string{}
	for k, o := range m {
		out[k] = o.ResourceVersion
	}
	return out
}

// hostileLW is a Source behind a broken proxy: while hostile, every watch
// gets generated hostile events mixed into the source's and is closed after
// a random number of events, and LISTs get a garbled item half the time.
type hostileLW struct {
	*runtimetest.Source[CM]
	rnd   func(int) int
	shape string // one of hostileShapes

	mu       sync.Mutex
	hostile  bool
	requests []time.Time
}

func (h *hostileLW) setHostile(on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.hostile = on
}

func (h *hostileLW) isHostile() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.hostile
}

func (h *hostileLW) record() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.requests = append(h.requests, time.Now())
	return h.hostile
}

// maxPerWindow returns the most requests of lws together in any window of
// length w that starts in [from, to).
func maxPerWindow(lws []*hostileLW, from, to time.Time, w time.Duration) int {
	var all []time.Time
	for _, h := range lws {
		h.mu.Lock()
		all = append(all, h.requests...)
		h.mu.Unlock()
	}
	slices.SortFunc(all, time.Time.Compare)
	most := 0
	for i, at := range all {
		if at.Before(from) || !at.Before(to) {
			continue
		}
		n := 0
		for _, b := range all[i:] {
			if b.Sub(at) < w {
				n++
			}
		}
		most = max(most, n)
	}
	return most
}

func describeAll(lws []*hostileLW) string {
	var s []string
	for n, lw := range lws {
		s = append(s, fmt.Sprintf("source %d: %s", n, lw.describe()))
	}
	return strings.Join(s, "; ")
}

// countIn returns how many requests came in [from, to).
func (h *hostileLW) countIn(from, to time.Time) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, at := range h.requests {
		if !at.Before(from) && at.Before(to) {
			n++
		}
	}
	return n
}

func (h *hostileLW) describe() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return fmt.Sprintf("%d requests in all", len(h.requests))
}

func (h *hostileLW) List(ctx context.Context, opts metav1.ListOptions) (*reflector.ListResult[CM], error) {
	hostile := h.record()
	res, err := h.Source.List(ctx, opts)
	if err != nil || !hostile || len(res.Items) == 0 {
		return res, err
	}
	switch h.shape {
	case "blank-names":
		for i, o := range res.Items {
			o = o.DeepCopy()
			o.Name = ""
			res.Items[i] = o
		}
		return res, nil
	case "mixed":
	default:
		return res, nil
	}
	if h.rnd(2) == 0 {
		return res, nil
	}
	i := h.rnd(len(res.Items))
	o := res.Items[i].DeepCopy()
	if h.rnd(2) == 0 {
		o.Name = ""
	} else {
		o.ResourceVersion = []string{"", "notanumber", "-1"}[h.rnd(3)]
	}
	res.Items[i] = o
	return res, nil
}

func (h *hostileLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	hostile := h.record()
	w, err := h.Source.Watch(ctx, opts)
	if err != nil || !hostile {
		return w, err
	}
	start, _ := strconv.ParseUint(opts.ResourceVersion, 10, 64)
	if h.shape != "mixed" {
		sw := &shapeWatch{inner: w, out: make(chan watch.Event), stop: make(chan struct{}), lw: h, start: start}
		go sw.run()
		return sw, nil
	}
	hw := &hostileWatch{inner: w, out: make(chan watch.Event), stop: make(chan struct{}), lw: h, start: start, closeAfter: 1 + h.rnd(6)}
	go hw.run()
	return hw, nil
}

// hostileWatch passes a source's watch on with hostile events mixed in.
type hostileWatch struct {
	inner      watch.Interface
	out        chan watch.Event
	stop       chan struct{}
	once       sync.Once
	lw         *hostileLW
	start      uint64
	closeAfter int // events sent before the stream ends

	last *watch.Event // the last real event passed on
}

func (w *hostileWatch) Stop()                          { w.once.Do(func() { close(w.stop) }) }
func (w *hostileWatch) ResultChan() <-chan watch.Event { return w.out }

func (w *hostileWatch) send(ev watch.Event) bool {
	select {
	case w.out <- ev:
		w.closeAfter--
		return w.closeAfter > 0
	case <-w.stop:
		return false
	}
}

func (w *hostileWatch) run() {
	defer close(w.out)
	defer func() {
		w.inner.Stop()
		for range w.inner.ResultChan() {
		}
	}()
	// A hostile answer may come before anything real.
	if w.lw.rnd(2) == 0 && !w.hostileEvent() {
		return
	}
	for {
		select {
		case <-w.stop:
			return
		case ev, ok := <-w.inner.ResultChan():
			if !ok {
				return
			}
			if w.lw.isHostile() && w.lw.rnd(3) == 0 && !w.hostileEvent() {
				return
			}
			// A copy to garble later: the informer owns what it is sent.
			last := ev
			if o, ok := ev.Object.(CM); ok {
				last.Object = o.DeepCopy()
			}
			if !w.send(ev) && w.lw.isHostile() {
				return
			}
			w.last = &last
		}
	}
}

// hostileEvent sends one generated event an API server never sends; false
// once the stream is to end.
func (w *hostileWatch) hostileEvent() bool {
	rnd := w.lw.rnd
	o := cm("a", fmt.Sprint("k", rnd(4)), "hostile")
	if w.last != nil {
		if l, ok := w.last.Object.(CM); ok {
			o = l.DeepCopy()
		}
	}
	typ := []watch.EventType{watch.Added, watch.Modified, watch.Deleted}[rnd(3)]
	switch rnd(9) {
	case 0: // older than the watch's start
		o.ResourceVersion = strconv.FormatUint(w.start-min(w.start, uint64(1+rnd(3))), 10)
	case 1: // not a number
		o.ResourceVersion = "notanumber"
	case 2: // empty
		o.ResourceVersion = ""
	case 3: // repeated: the last real event again
		if w.last != nil {
			ev := *w.last
			if o, ok := ev.Object.(CM); ok {
				ev.Object = o.DeepCopy()
			}
			return w.send(ev)
		}
		o.ResourceVersion = strconv.FormatUint(w.start, 10)
	case 4: // no name
		o.Name = ""
		o.ResourceVersion = strconv.FormatUint(w.start+1000, 10)
	case 5:
		return w.send(watch.Event{Type: typ, Object: &reflector.MalformedObject{Err: errors.New("garbage")}})
	case 6:
		return w.send(watch.Event{Type: "WAT", Object: o})
	case 7: // a bookmark older than the watch's start
		b := cm("", "")
		b.ResourceVersion = strconv.FormatUint(w.start-min(w.start, 1), 10)
		if w.start == 0 {
			b.ResourceVersion = "x"
		}
		return w.send(watch.Event{Type: watch.Bookmark, Object: b})
	default:
		st := apierrors.NewInternalError(errors.New("hostile")).Status()
		return w.send(watch.Event{Type: watch.Error, Object: &st})
	}
	return w.send(watch.Event{Type: typ, Object: o})
}

// shapeWatch passes a source's watch on as one of the named shapes does
// (see hostileShapes): while hostile, stale-rv, bogus-rv and garbage send
// their one event at once and close the stream; blank-names blanks the name
// of every event's object.
type shapeWatch struct {
	inner watch.Interface
	out   chan watch.Event
	stop  chan struct{}
	once  sync.Once
	lw    *hostileLW
	start uint64
}

func (w *shapeWatch) Stop()                          { w.once.Do(func() { close(w.stop) }) }
func (w *shapeWatch) ResultChan() <-chan watch.Event { return w.out }

func (w *shapeWatch) send(ev watch.Event) bool {
	select {
	case w.out <- ev:
		return true
	case <-w.stop:
		return false
	}
}

func (w *shapeWatch) run() {
	defer close(w.out)
	defer func() {
		w.inner.Stop()
		for range w.inner.ResultChan() {
		}
	}()
	if w.lw.shape != "blank-names" {
		o := cm("a", fmt.Sprint("k", w.lw.rnd(4)), "hostile")
		switch w.lw.shape {
		case "stale-rv":
			o.ResourceVersion = strconv.FormatUint(w.start-min(w.start, 1), 10)
			w.send(watch.Event{Type: watch.Modified, Object: o})
		case "bogus-rv":
			o.ResourceVersion = "notanumber"
			w.send(watch.Event{Type: watch.Modified, Object: o})
		default: // garbage
			w.send(watch.Event{Type: watch.Modified, Object: &reflector.MalformedObject{Err: errors.New("garbage")}})
		}
		return
	}
	for {
		select {
		case <-w.stop:
			return
		case ev, ok := <-w.inner.ResultChan():
			if !ok {
				return
			}
			if o, isCM := ev.Object.(CM); isCM && ev.Type != watch.Bookmark && w.lw.isHostile() {
				o = o.DeepCopy()
				o.Name = ""
				ev.Object = o
			}
			if !w.send(ev) {
				return
			}
		}
	}
}

// In a multi-namespace informer, a namespace whose server keeps answering
// with a reconnect storm (stale-rv) costs the informer about one request a
// second, and the healthy namespace pays nothing for it: its watch stays
// open, its changes reach the cache at once, and when the server ends that
// watch after more than a minute it is resumed at once.
func TestHostileNamespaceDoesNotHoldBackAHealthyOne(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(1, 2)).IntN
		bad := &hostileLW{Source: runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm("a", "k0", "0")), rnd: rnd, shape: "stale-rv"}
		good := &hostileLW{Source: runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm("b", "k0", "0")), rnd: rnd, shape: "stale-rv"}
		inf := informer.NewMultiNamespace(map[string]reflector.ListerWatcher[CM]{
			"a": bad,
			"b": good,
		}, informer.Options[CM]{Reflector: reflector.Options{Name: "configmaps.v1"}})
		ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logr.Discard()))
		done := make(chan error, 1)
		go func() { done <- inf.Run(ctx) }()
		defer func() { cancel(); <-done }()
		synctest.Wait()
		bad.setHostile(true)
		bad.DropWatches()
		start := time.Now()
		before := good.countIn(start.Add(-time.Hour), start.Add(time.Hour))
		for i := range 90 {
			time.Sleep(time.Second)
			o := must(good.Update(cm("b", "k0", strconv.Itoa(i))))
			synctest.Wait()
			if got, ok := inf.Indexer().Get("b/k0"); !ok || got.ResourceVersion != o.ResourceVersion {
				t.Fatalf("b/k0 not in the cache at once after its update %d (LastError %v)", i, inf.LastError())
			}
		}
		ended := time.Now()
		if n := good.countIn(start.Add(-time.Hour), ended.Add(time.Hour)) - before; n != 0 {
			t.Errorf("healthy namespace made %d requests in %v, want 0 (its watch stays open)", n, ended.Sub(start))
		}
		from := start.Add(5 * time.Second)
		if n := bad.countIn(from, ended); float64(n) > ended.Sub(from).Seconds() {
			t.Errorf("hostile namespace made %d requests in %v, want at most one a second", n, ended.Sub(from))
		}
		dropped := time.Now()
		good.DropWatches()
		synctest.Wait()
		if n := good.countIn(dropped, dropped.Add(time.Nanosecond)); n != 1 {
			t.Errorf("healthy namespace's watch, ended after 90s, resumed with %d requests at once, want 1", n)
		}
	})
}
