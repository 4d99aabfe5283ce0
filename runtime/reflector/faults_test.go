package reflector_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

// An event whose resourceVersion cannot be resumed from (not a number,
// empty, older than or equal to the last one applied) is not applied either:
// it is reported, ends the watch, and the next watch, after a backoff step,
// resumes from the last resourceVersion applied, so no change is missed and
// no object is cached with a resourceVersion the server never gave it.
func TestUnusableResourceVersionIsNotApplied(t *testing.T) {
	for _, tc := range []struct {
		name, rv string
		want     error
	}{
		{"not a number", "notanumber", reflector.ErrInvalidResourceVersion},
		{"empty", "", reflector.ErrInvalidResourceVersion},
		{"older", "1", reflector.ErrStaleResourceVersion},
		{"repeated", "2", reflector.ErrStaleResourceVersion},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
				m := &rejectCounter{}
				h := start(t, src, src, reflector.Options{WatchList: &no, Metrics: m})
				synctest.Wait()
				must(src.Add(cm("b", "1"))) // rv 2
				synctest.Wait()
				src.Inject(watch.Event{Type: watch.Modified, Object: withRV(cm("a", "bogus"), tc.rv)})
				synctest.Wait()
				if got := h.r.LastSyncResourceVersion(); got != "2" {
					t.Errorf("LastSyncResourceVersion = %q, want 2", got)
				}
				if err := h.r.LastError(); !errors.Is(err, tc.want) || !strings.Contains(err.Error(), "ns/a") {
					t.Errorf("LastError = %v, want %v naming ns/a", err, tc.want)
				}
				must(src.Add(cm("c", "1"))) // rv 3, replayed to the next watch
				time.Sleep(time.Minute)
				synctest.Wait()
				wantRequests(t, src, "list", "watch rv=1", "watch rv=2")
				if d := backoffBetween(src, 1, 2); d < 250*time.Millisecond || d > 500*time.Millisecond {
					t.Errorf("watched again after %v, want a first backoff step (250ms-500ms)", d)
				}
				ops, _, _ := h.sink.snapshot()
				for _, op := range ops {
					if strings.HasPrefix(op, "update ns/a") {
						t.Errorf("the refused event was applied: %q", ops)
					}
				}
				if m.n.Load() != 1 || m.watchErrs.Load() != 1 {
					t.Errorf("Rejected called %d times, WatchDone with an error %d times; want 1 and 1", m.n.Load(), m.watchErrs.Load())
				}
				h.converged()
			})
		})
	}
}

// nopMetrics is a reflector.Metrics that does nothing, to embed in one that
// observes only some calls.
type nopMetrics struct{}

func (nopMetrics) ListDone(time.Duration, error)  {}
func (nopMetrics) WatchStarted(error)             {}
func (nopMetrics) WatchDone(time.Duration, error) {}
func (nopMetrics) Relist(string)                  {}
func (nopMetrics) Event(watch.EventType)          {}
func (nopMetrics) Synced(string)                  {}
func (nopMetrics) Rejected(error)                 {}

// rejectCounter counts Rejected calls and watches that ended with an error.
type rejectCounter struct {
	nopMetrics
	n, watchErrs, listErrs atomic.Int64
}

func (c *rejectCounter) Rejected(error) { c.n.Add(1) }
func (c *rejectCounter) WatchDone(_ time.Duration, err error) {
	if err != nil {
		c.watchErrs.Add(1)
	}
}

func (c *rejectCounter) ListDone(_ time.Duration, err error) {
	if err != nil {
		c.listErrs.Add(1)
	}
}

// A server that answers every watch with one event older than the watch's
// resourceVersion and closes it (what a proxy replaying a stale stream
// does) is met with backoff: the events are never applied, watch and list
// requests stay at one a second or fewer once the backoff is at its cap,
// and the cache equals the server's as soon as the server recovers.
func TestStaleEventsAreBackedOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"), cm("b", "1"))
		var hostile atomic.Bool
		hostile.Store(true)
		lw := &staleWatches{Source: src, hostile: &hostile}
		m := &rejectCounter{}
		h := start(t, lw, src, reflector.Options{WatchList: &no, Metrics: m})
		synctest.Wait()
		time.Sleep(30 * time.Second)
		synctest.Wait()
		// One a second on average after the first 5s (the backoff's
		// jitter is random: a window of 10s may hold 11).
		if n := requestsAfter(src.Requests(), 5*time.Second); n > 25 {
			t.Errorf("%d requests in the 25s after the first 5s, want at most 25 (one a second)", n)
		}
		if n := len(src.Requests()); n < 10 {
			t.Errorf("%d requests in 30s, want the Reflector to keep trying (>= 10)", n)
		}
		// LastError is cleared while a new watch is open and before its stale
		// event arrives: sample it for a few (fake) seconds.
		for deadline := time.Now().Add(5 * time.Second); !errors.Is(h.r.LastError(), reflector.ErrStaleResourceVersion) && time.Now().Before(deadline); {
			time.Sleep(50 * time.Millisecond)
			synctest.Wait()
		}
		if err := h.r.LastError(); !errors.Is(err, reflector.ErrStaleResourceVersion) {
			t.Errorf("LastError = %v for 5s, want ErrStaleResourceVersion", err)
		}
		if m.n.Load() < 10 {
			t.Errorf("Rejected called %d times, want one per watch", m.n.Load())
		}
		ops, _, _ := h.sink.snapshot()
		for _, op := range ops {
			if !strings.HasPrefix(op, "replace") {
				t.Errorf("a stale event was applied: %q", ops)
				break
			}
		}
		must(src.Add(cm("c", "1")))
		hostile.Store(false)
		ended := time.Now()
		for !sameAsSource(h) {
			if time.Since(ended) > 2*time.Second {
				t.Fatalf("not converged 2s after the server recovered")
			}
			time.Sleep(10 * time.Millisecond)
			synctest.Wait()
		}
	})
}

// staleWatches answers every watch, while hostile, with one MODIFIED event
// one resourceVersion older than the watch's, and closes it.
type staleWatches struct {
	*runtimetest.Source[obj]
	hostile *atomic.Bool
}

func (s *staleWatches) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if !s.hostile.Load() {
		return s.Source.Watch(ctx, opts)
	}
	// Recorded in the Source's requests, without opening one of its watches.
	s.Source.FailNext("watch", errAnswered)
	_, _ = s.Source.Watch(ctx, opts)
	rv, _ := strconv.ParseUint(opts.ResourceVersion, 10, 64)
	w := watch.NewFakeWithChanSize(1, false)
	w.Modify(withRV(cm("a", "stale"), strconv.FormatUint(max(rv, 1)-1, 10)))
	w.Stop()
	return w, nil
}

var errAnswered = errors.New("answered by the test")

// requestsAfter returns how many requests came skip or more after the
// first.
func requestsAfter(reqs []runtimetest.Request, skip time.Duration) int {
	n := 0
	for _, r := range reqs {
		if r.Time.Sub(reqs[0].Time) >= skip {
			n++
		}
	}
	return n
}

func sameAsSource(h *harness) bool {
	_, got, _ := h.sink.snapshot()
	return runtimetest.SameResourceVersions(got, h.src.Snapshot())
}

// A LIST at an invalid resourceVersion is not used: it would make every
// later watch fail.
func TestListAtInvalidResourceVersionIsRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
		lw := &badListRV{Source: src, bad: 2}
		h := start(t, lw, src, reflector.Options{WatchList: &no})
		time.Sleep(time.Minute)
		synctest.Wait()
		wantRequests(t, src, "list", "list", "list", "watch rv=1")
		if _, _, n := h.sink.snapshot(); n != 1 {
			t.Errorf("replaces = %d, want 1 (only the valid list)", n)
		}
		for _, err := range h.errs.all() {
			if !errors.Is(err, reflector.ErrInvalidResourceVersion) {
				t.Errorf("error %v, want ErrInvalidResourceVersion", err)
			}
		}
	})
}

type badListRV struct {
	*runtimetest.Source[obj]
	bad int
}

func (b *badListRV) List(ctx context.Context, opts metav1.ListOptions) (*reflector.ListResult[obj], error) {
	res, err := b.Source.List(ctx, opts)
	if err == nil && b.bad > 0 {
		b.bad--
		res.ResourceVersion = "12ab"
	}
	return res, err
}

// A watch the server rejects (400, 422, 410: as its answer or as an ERROR
// event) leads to a relist, never to a retry from the same resourceVersion.
func TestRejectedWatchRelists(t *testing.T) {
	invalid := apierrors.NewInvalid(schema.GroupKind{Kind: "ConfigMap"}, "", field.ErrorList{field.Invalid(field.NewPath("resourceVersion"), "x", "bad")})
	for _, tc := range []struct {
		name  string
		err   *apierrors.StatusError
		event bool
	}{
		{"400 answer", apierrors.NewBadRequest("invalid resourceVersion"), false},
		{"422 answer", invalid, false},
		{"410 answer", apierrors.NewResourceExpired("too old"), false},
		{"400 event", apierrors.NewBadRequest("invalid resourceVersion"), true},
		{"422 event", invalid, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
				h := start(t, src, src, reflector.Options{WatchList: &no})
				synctest.Wait()
				must(src.Add(cm("b", "1"))) // rv 2
				time.Sleep(2 * time.Second)
				if tc.event {
					st := tc.err.Status()
					src.Inject(watch.Event{Type: watch.Error, Object: &st})
				} else {
					src.FailNext("watch", tc.err)
					src.DropWatches()
				}
				time.Sleep(time.Minute)
				synctest.Wait()
				want := []string{"list", "watch rv=1", "list", "watch rv=2"}
				if !tc.event {
					want = []string{"list", "watch rv=1", "watch rv=2", "list", "watch rv=2"}
				}
				wantRequests(t, src, want...)
				h.converged()
			})
		})
	}
}

// flaky serves a watch that delivers what events returns and then closes,
// for at most max watches (then watches that stay open), over a Source for
// everything else.
type flaky struct {
	*runtimetest.Source[obj]
	mu      sync.Mutex
	max     int
	watches []time.Time
	events  func(n int) []watch.Event
	openErr func(n int) error
}

func (f *flaky) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	f.mu.Lock()
	n := len(f.watches)
	f.watches = append(f.watches, time.Now())
	f.mu.Unlock()
	if n >= f.max {
		return f.Source.Watch(ctx, opts)
	}
	if f.openErr != nil {
		if err := f.openErr(n); err != nil {
			return nil, err
		}
	}
	evs := f.events(n)
	w := watch.NewFakeWithChanSize(len(evs), false)
	for _, ev := range evs {
		w.Action(ev.Type, ev.Object)
	}
	w.Stop() // closes the channel after the buffered events
	return w, nil
}

func (f *flaky) count(within time.Duration) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.watches) == 0 {
		return 0
	}
	n := 0
	for _, at := range f.watches {
		if at.Sub(f.watches[0]) < within {
			n++
		}
	}
	return n
}

func withRV(o obj, rv string) obj { o.ResourceVersion = rv; return o }

// Whatever a server does with watches — close each after one event, after a
// bookmark, at once, with an ERROR, with an undecodable event, or refuse them
// — the Reflector opens a bounded number per second: it backs off on watches
// that end early whatever they delivered.
func TestWatchRequestsStayBounded(t *testing.T) {
	status := func(err *apierrors.StatusError) *metav1.Status { st := err.Status(); return &st }
	for _, tc := range []struct {
		name    string
		events  func(n int) []watch.Event
		openErr func(n int) error
	}{
		{"one event each", func(n int) []watch.Event {
			return []watch.Event{{Type: watch.Modified, Object: withRV(cm("a", fmt.Sprint(n)), fmt.Sprint(n+2))}}
		}, nil},
		{"one bookmark each", func(n int) []watch.Event {
			return []watch.Event{{Type: watch.Bookmark, Object: withRV(cm("", ""), fmt.Sprint(n+2))}}
		}, nil},
		{"closed at once", func(int) []watch.Event { return nil }, nil},
		{"internal error event", func(int) []watch.Event {
			return []watch.Event{{Type: watch.Error, Object: status(apierrors.NewInternalError(errors.New("boom")))}}
		}, nil},
		{"expired event", func(int) []watch.Event {
			return []watch.Event{{Type: watch.Error, Object: status(apierrors.NewResourceExpired("gone"))}}
		}, nil},
		{"undecodable event", func(int) []watch.Event {
			return []watch.Event{{Type: watch.Added, Object: &reflector.MalformedObject{Err: errors.New("garbage")}}}
		}, nil},
		{"refused", nil, func(int) error { return apierrors.NewServiceUnavailable("down") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
				lw := &flaky{Source: src, max: 1000, events: tc.events, openErr: tc.openErr}
				start(t, lw, src, reflector.Options{WatchList: &no})
				time.Sleep(time.Minute)
				synctest.Wait()
				// 500ms doubling to 2s, waits in the upper half: about 40
				// watches in a minute; a tight loop opens all 1000 at once.
				if n := lw.count(time.Minute); n > 60 || n < 20 {
					t.Errorf("%d watches in the first minute, want 20..60", n)
				}
				lists, _ := src.Calls()
				if lists > 60 {
					t.Errorf("%d lists in a minute, want at most 60", lists)
				}
			})
		})
	}
}

// The backoff starts again from InitialBackoff after a success: a watch that
// fails after a long healthy one waits at most 500ms, however many failures
// came before.
func TestBackoffResetsOnSuccess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
		for range 8 {
			src.FailNext("list", apierrors.NewServiceUnavailable("down"))
		}
		h := start(t, src, src, reflector.Options{WatchList: &no})
		time.Sleep(time.Minute) // eight failed lists, at the cap by now; then list+watch
		synctest.Wait()
		time.Sleep(time.Minute) // a long-lived watch
		src.FailNext("watch", apierrors.NewServiceUnavailable("blip"))
		src.DropWatches()
		time.Sleep(time.Minute)
		synctest.Wait()
		reqs := src.Requests()
		if len(reqs) != 12 {
			t.Fatalf("requests %q, want 8 failed lists, a list, a watch, a failed watch, a watch", verbs(reqs))
		}
		if d := reqs[11].Time.Sub(reqs[10].Time); d > 500*time.Millisecond {
			t.Errorf("after a healthy watch, a failed watch was retried after %v, want at most 500ms", d)
		}
		if d := reqs[8].Time.Sub(reqs[7].Time); d < time.Second || d > 2*time.Second {
			t.Errorf("the eighth failure waited %v, want in [1s, 2s] (the cap)", d)
		}
		h.converged()
	})
}

// An event the ListerWatcher could not decode ends the watch, and the
// Reflector resumes after a backoff step from the last resourceVersion, so
// the change it stood for is read again instead of lost.
func TestUndecodableEventIsReadAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
		h := start(t, src, src, reflector.Options{WatchList: &no})
		synctest.Wait()
		must(src.Add(cm("b", "1"))) // rv 2
		synctest.Wait()
		// The garbled event stands for an update the Reflector never saw.
		src.Inject(watch.Event{Type: watch.Modified, Object: &reflector.MalformedObject{Err: errors.New("invalid character 'x'")}})
		b, _ := src.Get("ns/b")
		b.Data["v"] = "2"
		must(src.Update(b)) // rv 3
		time.Sleep(time.Second)
		synctest.Wait()
		wantRequests(t, src, "list", "watch rv=1", "watch rv=2")
		if d := backoffBetween(src, 1, 2); d < 250*time.Millisecond || d > 500*time.Millisecond {
			t.Errorf("watched again after %v, want a first backoff step (250ms-500ms)", d)
		}
		es := h.errs.all()
		if len(es) != 1 || !errors.Is(es[0], reflector.ErrMalformedEvent) || !strings.Contains(es[0].Error(), "invalid character") {
			t.Errorf("reported %v, want one ErrMalformedEvent with the decode error", es)
		}
		h.converged()
	})
}

// A stream that lost its framing sends one undecodable event and closes
// (the wire package's contract); what it delivered before is kept, and the
// rest is read again after a backoff step.
func TestTruncatedWatchIsReadAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
		lw := &flaky{Source: src, max: 1, events: func(int) []watch.Event {
			// b is added (rv 2) and updated (rv 3) while this watch is open;
			// the stream delivers the add, then breaks on the update.
			b := must(src.Add(cm("b", "1")))
			b.Data["v"] = "2"
			must(src.Update(b))
			return []watch.Event{{Type: watch.Added, Object: b}, {Type: watch.Modified, Object: &reflector.MalformedObject{Err: errors.New("unexpected EOF")}}}
		}}
		h := start(t, lw, src, reflector.Options{WatchList: &no})
		time.Sleep(time.Second)
		synctest.Wait()
		wantRequests(t, src, "list", "watch rv=2")
		h.converged()
	})
}

// Undecodable events that keep coming at the same resourceVersion make the
// Reflector relist after a few quick resumes.
func TestPersistentUndecodableEventRelists(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
		lw := &flaky{Source: src, max: 4, events: func(int) []watch.Event {
			return []watch.Event{{Type: watch.Added, Object: &reflector.MalformedObject{Err: errors.New("garbage")}}}
		}}
		h := start(t, lw, src, reflector.Options{WatchList: &no})
		time.Sleep(time.Minute)
		synctest.Wait()
		wantRequests(t, src, "list", "list", "watch rv=1")
		if _, _, n := h.sink.snapshot(); n != 2 {
			t.Errorf("replaces = %d, want 2", n)
		}
	})
}

// remainingClaim replaces every page's remainingItemCount by claim.
type remainingClaim struct {
	*runtimetest.Source[obj]
	claim int64
}

func (r *remainingClaim) List(ctx context.Context, opts metav1.ListOptions) (*reflector.ListResult[obj], error) {
	res, err := r.Source.List(ctx, opts)
	if res != nil && res.Continue != "" {
		claim := r.claim
		res.RemainingItemCount = &claim
	}
	return res, err
}

// remainingItemCount only sizes the Reflector's buffer: a server claiming a
// negative or absurd count gets the same list as one telling the truth, and
// no crash or huge allocation.
func TestHostileRemainingItemCountIsOnlyAHint(t *testing.T) {
	for _, claim := range []int64{-5, -1 << 62, 1 << 62, 0} {
		t.Run(strconv.FormatInt(claim, 10), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"), cm("b", "1"), cm("c", "1"))
				h := start(t, &remainingClaim{Source: src, claim: claim}, src, reflector.Options{WatchList: &no, PageSize: 2})
				synctest.Wait()
				wantRequests(t, src, "list limit=2", "list limit=2 continue", "watch rv=3")
				ops, _, _ := h.sink.snapshot()
				if want := []string{"replace 3 [ns/a ns/b ns/c]"}; !slices.Equal(ops, want) {
					t.Errorf("ops = %q, want %q", ops, want)
				}
				if err := h.r.LastError(); err != nil {
					t.Errorf("LastError = %v, want nil", err)
				}
			})
		})
	}
}
