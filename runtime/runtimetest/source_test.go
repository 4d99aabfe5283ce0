package runtimetest_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

type obj = *corev1.ConfigMap

func cm(name string) obj {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
}

func must[V any](v V, err error) V {
	if err != nil {
		panic(err)
	}
	return v
}

func names(items []obj) []string {
	var out []string
	for _, o := range items {
		out = append(out, o.Name+"@"+o.ResourceVersion)
	}
	return out
}

func TestWritesAssignResourceVersions(t *testing.T) {
	src := runtimetest.NewSource(runtimetest.SourceOptions{}, cm("a"))
	b := must(src.Add(cm("b")))
	if b.ResourceVersion != "2" {
		t.Errorf("Add rv = %q, want 2", b.ResourceVersion)
	}
	b.Data = map[string]string{"k": "v"}
	if u := must(src.Update(b)); u.ResourceVersion != "3" || u.Data["k"] != "v" {
		t.Errorf("Update = %+v", u)
	}
	b.Data["k"] = "mutated by the caller"
	if got, _ := src.Get("ns/b"); got.Data["k"] != "v" {
		t.Error("the source kept the caller's object instead of a copy")
	}
	if d := must(src.Delete(cm("a"))); d.ResourceVersion != "4" {
		t.Errorf("Delete rv = %q, want 4", d.ResourceVersion)
	}
	if _, err := src.Add(cm("b")); !apierrors.IsAlreadyExists(err) {
		t.Errorf("Add of existing = %v, want AlreadyExists", err)
	}
	if _, err := src.Update(cm("zz")); !apierrors.IsNotFound(err) {
		t.Errorf("Update of missing = %v, want NotFound", err)
	}
	if _, err := src.Delete(cm("a")); !apierrors.IsNotFound(err) {
		t.Errorf("Delete of missing = %v, want NotFound", err)
	}
	if snap := src.Snapshot(); len(snap) != 1 || snap["ns/b"].ResourceVersion != "3" {
		t.Errorf("Snapshot = %v", snap)
	}
	if rv := src.ResourceVersion(); rv != "4" {
		t.Errorf("ResourceVersion = %q, want 4", rv)
	}
}

func TestListPagesOverASnapshot(t *testing.T) {
	ctx := context.Background()
	src := runtimetest.NewSource(runtimetest.SourceOptions{}, cm("c"), cm("a"), cm("b"), cm("d"), cm("e"))
	p1 := must(src.List(ctx, metav1.ListOptions{Limit: 2}))
	must(src.Add(cm("aa"))) // after the snapshot: not in this list
	must(src.Delete(cm("d")))
	p2 := must(src.List(ctx, metav1.ListOptions{Limit: 2, Continue: p1.Continue}))
	p3 := must(src.List(ctx, metav1.ListOptions{Limit: 2, Continue: p2.Continue}))
	got := slices.Concat(names(p1.Items), names(p2.Items), names(p3.Items))
	if want := []string{"a@2", "b@3", "c@1", "d@4", "e@5"}; !slices.Equal(got, want) {
		t.Errorf("pages = %v, want %v", got, want)
	}
	if *p1.RemainingItemCount != 3 || *p2.RemainingItemCount != 1 || p3.RemainingItemCount != nil || p3.Continue != "" {
		t.Errorf("remaining = %d, %d, %v; last continue %q", *p1.RemainingItemCount, *p2.RemainingItemCount, p3.RemainingItemCount, p3.Continue)
	}
	for _, p := range []string{p1.ResourceVersion, p2.ResourceVersion, p3.ResourceVersion} {
		if p != "5" {
			t.Errorf("page resourceVersion = %q, want the snapshot's 5", p)
		}
	}
	full := must(src.List(ctx, metav1.ListOptions{}))
	if got, want := names(full.Items), []string{"a@2", "aa@6", "b@3", "c@1", "e@5"}; !slices.Equal(got, want) || full.ResourceVersion != "7" || full.Continue != "" {
		t.Errorf("full list = %v at %s, want %v at 7", got, full.ResourceVersion, want)
	}
}

func TestCompactExpiresContinueTokens(t *testing.T) {
	ctx := context.Background()
	src := runtimetest.NewSource(runtimetest.SourceOptions{}, cm("a"), cm("b"))
	p1 := must(src.List(ctx, metav1.ListOptions{Limit: 1}))
	src.Compact()
	if _, err := src.List(ctx, metav1.ListOptions{Limit: 1, Continue: p1.Continue}); !apierrors.IsResourceExpired(err) {
		t.Errorf("continue after Compact = %v, want 410 Expired", err)
	}
	if _, err := src.List(ctx, metav1.ListOptions{Continue: "garbage"}); !apierrors.IsBadRequest(err) {
		t.Errorf("bad continue = %v, want BadRequest", err)
	}
}

func TestFailNextAndRequests(t *testing.T) {
	ctx := context.Background()
	src := runtimetest.NewSource[obj](runtimetest.SourceOptions{})
	boom := apierrors.NewTooManyRequests("slow down", 3)
	src.FailNext("list", boom)
	src.FailNext("list", errors.New("second"))
	if _, err := src.List(ctx, metav1.ListOptions{}); !errors.Is(err, boom) {
		t.Errorf("first list = %v, want the injected 429", err)
	}
	if _, err := src.List(ctx, metav1.ListOptions{}); err == nil || err.Error() != "second" {
		t.Errorf("second list = %v", err)
	}
	if _, err := src.List(ctx, metav1.ListOptions{Limit: 7}); err != nil {
		t.Errorf("third list = %v, want served", err)
	}
	src.FailNext("watch", boom)
	if _, err := src.Watch(ctx, metav1.ListOptions{}); !errors.Is(err, boom) {
		t.Errorf("watch = %v", err)
	}
	lists, watches := src.Calls()
	if lists != 3 || watches != 1 {
		t.Errorf("Calls = %d, %d, want 3, 1", lists, watches)
	}
	if reqs := src.Requests(); len(reqs) != 4 || reqs[2].Options.Limit != 7 || reqs[3].Verb != "watch" {
		t.Errorf("Requests = %+v", reqs)
	}
}

// recv reads n events from w.
func recv(t *testing.T, w watch.Interface, n int) []string {
	t.Helper()
	var out []string
	for range n {
		ev, ok := <-w.ResultChan()
		if !ok {
			t.Fatalf("watch closed after %v", out)
		}
		out = append(out, describe(ev))
	}
	return out
}

func describe(ev watch.Event) string {
	switch o := ev.Object.(type) {
	case obj:
		s := fmt.Sprintf("%s %s@%s", ev.Type, o.Name, o.ResourceVersion)
		if o.Annotations[metav1.InitialEventsAnnotationKey] == "true" {
			s += " end"
		}
		return s
	case *metav1.Status:
		return fmt.Sprintf("%s %d %s", ev.Type, o.Code, o.Reason)
	}
	return fmt.Sprintf("%s %T", ev.Type, ev.Object)
}

func closed(t *testing.T, w watch.Interface) {
	t.Helper()
	if ev, ok := <-w.ResultChan(); ok {
		t.Errorf("got %s, want the watch closed", describe(ev))
	}
}

func TestWatchReplaysAndStreams(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		src := runtimetest.NewSource(runtimetest.SourceOptions{}, cm("a"), cm("b"))
		must(src.Delete(cm("a")))
		w := must(src.Watch(ctx, metav1.ListOptions{ResourceVersion: "1", AllowWatchBookmarks: true}))
		defer w.Stop()
		if got, want := recv(t, w, 2), []string{"ADDED b@2", "DELETED a@3"}; !slices.Equal(got, want) {
			t.Errorf("replay = %v, want %v", got, want)
		}
		must(src.Add(cm("c")))
		src.Bookmark()
		if got, want := recv(t, w, 2), []string{"ADDED c@4", "BOOKMARK @5"}; !slices.Equal(got, want) {
			t.Errorf("live = %v, want %v", got, want)
		}
		// A watch without AllowWatchBookmarks gets no bookmarks.
		nb := must(src.Watch(ctx, metav1.ListOptions{ResourceVersion: "5"}))
		src.Bookmark()
		must(src.Add(cm("d")))
		if got, want := recv(t, nb, 1), []string{"ADDED d@7"}; !slices.Equal(got, want) {
			t.Errorf("without bookmarks = %v, want %v", got, want)
		}
		nb.Stop()
		closed(t, nb)
		// From "": the current state first.
		all := must(src.Watch(ctx, metav1.ListOptions{}))
		if got, want := recv(t, all, 3), []string{"ADDED b@2", "ADDED c@4", "ADDED d@7"}; !slices.Equal(got, want) {
			t.Errorf("from \"\" = %v, want %v", got, want)
		}
		all.Stop()
	})
}

func TestWatchTooOldGetsExpired(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		src := runtimetest.NewSource(runtimetest.SourceOptions{EventLogSize: 2}, cm("a"), cm("b"), cm("c"))
		w := must(src.Watch(ctx, metav1.ListOptions{ResourceVersion: "0"}))
		w.Stop()
		old := must(src.Watch(ctx, metav1.ListOptions{ResourceVersion: "1"}))
		// rv 1 is still resumable: the log holds 2 and 3.
		if got := recv(t, old, 2); !slices.Equal(got, []string{"ADDED b@2", "ADDED c@3"}) {
			t.Errorf("resume from 1 = %v", got)
		}
		old.Stop()
		must(src.Add(cm("d"))) // log: 3, 4
		tooOld := must(src.Watch(ctx, metav1.ListOptions{ResourceVersion: "1"}))
		if got := recv(t, tooOld, 1); !slices.Equal(got, []string{"ERROR 410 Expired"}) {
			t.Errorf("resume from 1 = %v, want 410", got)
		}
		closed(t, tooOld)
		if n := src.OpenWatches(); n != 0 {
			t.Errorf("open watches = %d", n)
		}
	})
}

func TestCompactEndsOpenWatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		src := runtimetest.NewSource(runtimetest.SourceOptions{}, cm("a"))
		w := must(src.Watch(ctx, metav1.ListOptions{ResourceVersion: "1"}))
		must(src.Add(cm("b"))) // queued, never read: Compact discards it
		synctest.Wait()
		src.Compact()
		synctest.Wait()
		if got := recv(t, w, 1); !slices.Equal(got, []string{"ERROR 410 Expired"}) {
			t.Errorf("after Compact = %v", got)
		}
		closed(t, w)
		late := must(src.Watch(ctx, metav1.ListOptions{ResourceVersion: "1"}))
		if got := recv(t, late, 1); !slices.Equal(got, []string{"ERROR 410 Expired"}) {
			t.Errorf("watch from before the compaction = %v", got)
		}
		closed(t, late)
		cur := must(src.Watch(ctx, metav1.ListOptions{ResourceVersion: "2"}))
		must(src.Add(cm("c")))
		if got := recv(t, cur, 1); !slices.Equal(got, []string{"ADDED c@3"}) {
			t.Errorf("watch from the compaction point = %v", got)
		}
		cur.Stop()
	})
}

func TestDropWatchesLosesUndelivered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{})
		w := must(src.Watch(ctx, metav1.ListOptions{ResourceVersion: "0"}))
		if err := src.WaitForWatches(ctx, 1); err != nil {
			t.Fatal(err)
		}
		must(src.Add(cm("a")))
		must(src.Add(cm("b")))
		synctest.Wait()
		src.DropWatches()
		synctest.Wait()
		closed(t, w)
		w.Stop()
		short, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		if err := src.WaitForWatches(short, 1); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("WaitForWatches with none open = %v", err)
		}
	})
}

func TestWatchList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		src := runtimetest.NewSource(runtimetest.SourceOptions{}, cm("b"), cm("a"))
		yes := true
		opts := metav1.ListOptions{SendInitialEvents: &yes, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true}
		w := must(src.Watch(ctx, opts))
		must(src.Add(cm("c")))
		if got, want := recv(t, w, 4), []string{"ADDED a@2", "ADDED b@1", "BOOKMARK @2 end", "ADDED c@3"}; !slices.Equal(got, want) {
			t.Errorf("watch-list = %v, want %v", got, want)
		}
		w.Stop()
		closed(t, w)

		src.RefuseWatchList(true)
		if _, err := src.Watch(ctx, opts); !apierrors.IsInvalid(err) {
			t.Errorf("refused watch-list = %v, want 422 Invalid", err)
		}
		src.RefuseWatchList(false)
		bad := opts
		bad.ResourceVersionMatch = ""
		if _, err := src.Watch(ctx, bad); !apierrors.IsInvalid(err) {
			t.Errorf("watch-list without NotOlderThan = %v, want 422 Invalid", err)
		}
	})
}

func TestWatchTimeoutAndContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{})
		secs := int64(60)
		start := time.Now()
		w := must(src.Watch(t.Context(), metav1.ListOptions{ResourceVersion: "0", TimeoutSeconds: &secs}))
		closed(t, w)
		if d := time.Since(start); d != time.Minute {
			t.Errorf("watch closed after %v, want its 60s timeout", d)
		}
		ctx, cancel := context.WithCancel(t.Context())
		w = must(src.Watch(ctx, metav1.ListOptions{ResourceVersion: "0"}))
		cancel()
		closed(t, w)
		if _, err := src.Watch(ctx, metav1.ListOptions{}); !errors.Is(err, context.Canceled) {
			t.Errorf("Watch with a done ctx = %v", err)
		}
	})
}

func TestInject(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{})
		w := must(src.Watch(t.Context(), metav1.ListOptions{ResourceVersion: "0"}))
		defer w.Stop()
		src.Inject(watch.Event{Type: watch.Added, Object: &corev1.Secret{}})
		if got := recv(t, w, 1); got[0] != "ADDED *v1.Secret" {
			t.Errorf("injected = %v", got)
		}
		if rv := src.ResourceVersion(); rv != "0" {
			t.Errorf("Inject changed the resourceVersion to %s", rv)
		}
	})
}

func TestWatchOptionsValidation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		src := runtimetest.NewSource(runtimetest.SourceOptions{}, cm("a"))
		if _, err := src.Watch(ctx, metav1.ListOptions{ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan}); !apierrors.IsInvalid(err) {
			t.Errorf("resourceVersionMatch without sendInitialEvents = %v, want 422 Invalid", err)
		}
		no := false
		w := must(src.Watch(ctx, metav1.ListOptions{SendInitialEvents: &no}))
		must(src.Add(cm("b")))
		if got := recv(t, w, 1); got[0] != "ADDED b@2" {
			t.Errorf("sendInitialEvents=false from \"\" = %v, want only the new event", got)
		}
		w.Stop()
	})
}

func TestOldestContinueSnapshotsAreEvicted(t *testing.T) {
	ctx := context.Background()
	src := runtimetest.NewSource(runtimetest.SourceOptions{}, cm("a"), cm("b"))
	var tokens []string
	for i := range 9 { // nine paged lists at nine resourceVersions
		tokens = append(tokens, must(src.List(ctx, metav1.ListOptions{Limit: 1})).Continue)
		must(src.Add(cm(fmt.Sprint("x", i))))
	}
	if _, err := src.List(ctx, metav1.ListOptions{Limit: 1, Continue: tokens[0]}); !apierrors.IsResourceExpired(err) {
		t.Errorf("oldest token = %v, want 410 Expired", err)
	}
	for _, tok := range tokens[1:] {
		if _, err := src.List(ctx, metav1.ListOptions{Limit: 1, Continue: tok}); err != nil {
			t.Errorf("token %s = %v, want served", tok, err)
		}
	}
}

func labelled(name, tier string) obj {
	o := cm(name)
	o.Labels = map[string]string{"tier": tier}
	return o
}

func TestSelectors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		src := runtimetest.NewSource(runtimetest.SourceOptions{},
			labelled("a", "web"), labelled("b", "db"), labelled("c", "web"), labelled("d", "web"))
		other := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "e", Labels: map[string]string{"tier": "web"}}}
		must(src.Add(other))

		web := metav1.ListOptions{LabelSelector: "tier=web", FieldSelector: "metadata.namespace=ns", Limit: 2}
		p1 := must(src.List(ctx, web))
		web.Continue = p1.Continue
		p2 := must(src.List(ctx, web))
		if got := append(names(p1.Items), names(p2.Items)...); !slices.Equal(got, []string{"a@1", "c@3", "d@4"}) || *p1.RemainingItemCount != 1 || p2.Continue != "" {
			t.Errorf("selected pages = %v (remaining %d, continue %q)", got, *p1.RemainingItemCount, p2.Continue)
		}
		if _, err := src.List(ctx, metav1.ListOptions{LabelSelector: "tier in (("}); !apierrors.IsBadRequest(err) {
			t.Errorf("bad selector = %v, want BadRequest", err)
		}

		w := must(src.Watch(ctx, metav1.ListOptions{ResourceVersion: "5", LabelSelector: "tier=web"}))
		defer w.Stop()
		b, _ := src.Get("ns/b")
		b.Labels["tier"] = "web" // starts matching: ADDED
		must(src.Update(b))
		a, _ := src.Get("ns/a")
		a.Labels["tier"] = "db" // stops matching: DELETED
		must(src.Update(a))
		a.Data = map[string]string{"still": "db"} // no longer seen
		must(src.Update(a))
		must(src.Add(labelled("x", "db"))) // never seen
		c, _ := src.Get("ns/c")
		c.Data = map[string]string{"k": "v"} // still matching: MODIFIED
		must(src.Update(c))
		must(src.Delete(c))
		want := []string{"ADDED b@6", "DELETED a@7", "MODIFIED c@10", "DELETED c@11"}
		if got := recv(t, w, len(want)); !slices.Equal(got, want) {
			t.Errorf("selected watch = %v, want %v", got, want)
		}
		// A watch resuming from 5 gets the same view replayed.
		re := must(src.Watch(ctx, metav1.ListOptions{ResourceVersion: "5", LabelSelector: "tier=web"}))
		defer re.Stop()
		if got := recv(t, re, len(want)); !slices.Equal(got, want) {
			t.Errorf("replayed = %v, want %v", got, want)
		}
	})
}
