package untypedlw_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/internal/cache"
	"github.com/informer-gen/informer-gen/runtime/internal/engine/untypedlw"
	"github.com/informer-gen/informer-gen/runtime/internal/known"
	"github.com/informer-gen/informer-gen/runtime/internal/listpage"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

func cm(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
}

func names(objs []cache.Obj) []string {
	out := make([]string, len(objs))
	for n, o := range objs {
		out[n] = o.GetName()
	}
	return out
}

// The adapter appends each page of the typed source to the list it is
// given, the first page sizing it for the whole list (remainingItemCount),
// so a paged list is collected in one slice with no copy per page; List
// returns the same pages as new slices.
func TestPagesAreAppendedToTheList(t *testing.T) {
	src := runtimetest.NewSource[*corev1.ConfigMap](runtimetest.SourceOptions{}, cm("a"), cm("b"), cm("c"), cm("d"), cm("e"))
	lw := untypedlw.New[*corev1.ConfigMap](src)
	app, ok := lw.(listpage.Appender[cache.Obj])
	if !ok {
		t.Fatalf("%T is not a listpage.Appender", lw)
	}
	ctx := context.Background()
	opts := metav1.ListOptions{Limit: 2}
	var items []cache.Obj
	var first *cache.Obj
	for pages := 1; ; pages++ {
		next, p, ok, err := app.AppendList(ctx, opts, items)
		if err != nil || !ok {
			t.Fatalf("page %d: ok %v, err %v", pages, ok, err)
		}
		items = next
		if pages == 1 {
			if cap(items) != 5 {
				t.Errorf("after the first page: cap %d, want 5 (2 items + 3 remaining)", cap(items))
			}
			first = &items[0]
		}
		if p.Continue == "" {
			if pages != 3 {
				t.Errorf("%d pages, want 3", pages)
			}
			break
		}
		opts.Continue = p.Continue
	}
	if got, want := names(items), []string{"a", "b", "c", "d", "e"}; !slices.Equal(got, want) {
		t.Errorf("items = %q, want %q", got, want)
	}
	if &items[0] != first {
		t.Error("the list was reallocated after the first page")
	}

	res, err := lw.List(ctx, metav1.ListOptions{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	typed, _ := src.List(ctx, metav1.ListOptions{Limit: 2})
	if got := names(res.Items); !slices.Equal(got, []string{"a", "b"}) || res.Continue == "" ||
		res.ResourceVersion != typed.ResourceVersion || *res.RemainingItemCount != 3 {
		t.Errorf("List = %q, rv %q, continue %q, remaining %v", got, res.ResourceVersion, res.Continue, res.RemainingItemCount)
	}
}

// broken returns what it is told to from List.
type broken struct {
	page *reflector.ListResult[*corev1.ConfigMap]
	err  error
}

func (b broken) List(context.Context, metav1.ListOptions) (*reflector.ListResult[*corev1.ConfigMap], error) {
	return b.page, b.err
}

func (broken) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) {
	return nil, errors.New("no watch")
}

// A source's error, or a missing page, leaves the list as it was and says
// so (ok false without a page), for the Reflector to report.
func TestFailedPageLeavesTheList(t *testing.T) {
	boom := errors.New("boom")
	page := &reflector.ListResult[*corev1.ConfigMap]{Items: []*corev1.ConfigMap{cm("x")}, ResourceVersion: "1"}
	for _, tc := range []struct {
		name   string
		src    broken
		wantOK bool
	}{
		{"no page, no error", broken{}, false},
		{"no page, error", broken{err: boom}, false},
		{"page and error", broken{page: page, err: boom}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := untypedlw.New[*corev1.ConfigMap](tc.src).(listpage.Appender[cache.Obj])
			before := []cache.Obj{cm("a")}
			items, _, ok, err := app.AppendList(context.Background(), metav1.ListOptions{}, before)
			if ok != tc.wantOK || !errors.Is(err, tc.src.err) || err == nil && tc.src.err != nil {
				t.Errorf("ok %v, err %v; want ok %v, err %v", ok, err, tc.wantOK, tc.src.err)
			}
			if got := names(items); !slices.Equal(got, []string{"a"}) {
				t.Errorf("items = %q, want [a]", got)
			}
		})
	}
}

// lookupLW records the relist Lookup for its own type that each request's
// context carries (runtime/internal/known).
type lookupLW struct {
	reflector.ListerWatcher[*corev1.ConfigMap]
	seen []known.Lookup[*corev1.ConfigMap]
}

func (l *lookupLW) List(ctx context.Context, opts metav1.ListOptions) (*reflector.ListResult[*corev1.ConfigMap], error) {
	l.seen = append(l.seen, known.From[*corev1.ConfigMap](ctx))
	return &reflector.ListResult[*corev1.ConfigMap]{}, nil
}

func (l *lookupLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	l.seen = append(l.seen, known.From[*corev1.ConfigMap](ctx))
	return watch.NewFake(), nil
}

// The Reflector's Lookup is of cache.Obj; the typed source's codec asks for
// one of its own type: the adapter passes it on, as that type, to List,
// AppendList and Watch.
func TestLookupIsPassedOnTyped(t *testing.T) {
	a := cm("a")
	ctx := known.With(context.Background(), known.Lookup[cache.Obj](func(ns, name, rv []byte) (cache.Obj, bool) {
		if string(ns) == "ns" && string(name) == "a" && string(rv) == "1" {
			return a, true
		}
		return nil, false
	}))
	src := &lookupLW{}
	lw := untypedlw.New[*corev1.ConfigMap](src)
	if _, err := lw.List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := lw.(listpage.Appender[cache.Obj]).AppendList(ctx, metav1.ListOptions{}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := lw.Watch(ctx, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := lw.List(context.Background(), metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(src.seen) != 4 || src.seen[3] != nil {
		t.Fatalf("lookups seen %d, the last (a context without one) non-nil: %v", len(src.seen), src.seen)
	}
	for i, l := range src.seen[:3] {
		if l == nil {
			t.Fatalf("request %d: no typed Lookup", i)
		}
		if got, ok := l([]byte("ns"), []byte("a"), []byte("1")); !ok || got != a {
			t.Errorf("request %d: Lookup(ns/a@1) = %v, %v; want the cached object", i, got, ok)
		}
		if _, ok := l([]byte("ns"), []byte("a"), []byte("2")); ok {
			t.Errorf("request %d: Lookup(ns/a@2) found one", i)
		}
	}
}

// untypedPages serves objs, as cache.Obj, in one page.
type untypedPages struct{ objs []cache.Obj }

func (p untypedPages) List(context.Context, metav1.ListOptions) (*reflector.ListResult[cache.Obj], error) {
	return &reflector.ListResult[cache.Obj]{Items: p.objs, ResourceVersion: "7", Continue: "next"}, nil
}

func (untypedPages) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) {
	return watch.NewEmptyWatch(), nil
}

// Typed is a ListerWatcher of T over an untyped source, which New unwraps
// (the untyped source itself, not a wrapper of a wrapper); its own List
// converts every item and refuses one of another type.
func TestTypedIsUnwrappedByNew(t *testing.T) {
	src := untypedPages{objs: []cache.Obj{cm("a"), cm("b")}}
	view := untypedlw.Typed[*corev1.ConfigMap](src)
	if got, ok := untypedlw.New(view).(untypedPages); !ok || len(got.objs) != 2 {
		t.Fatalf("New(Typed(src)) = %T, want src itself", untypedlw.New(view))
	}
	page, err := view.List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 2 || page.Items[0].Name != "a" || page.Items[1].Name != "b" || page.ResourceVersion != "7" || page.Continue != "next" {
		t.Fatalf("Typed's List = %+v, want a and b at resourceVersion 7, continue next", page)
	}
	bad := untypedlw.Typed[*corev1.ConfigMap](untypedPages{objs: []cache.Obj{cm("a"), &corev1.Secret{}}})
	var te *cache.TypeError
	if _, err := bad.List(context.Background(), metav1.ListOptions{}); !errors.As(err, &te) {
		t.Fatalf("Typed's List of a Secret as a ConfigMap: error = %v, want a cache.TypeError", err)
	}
}
