package store_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/informer-gen/informer-gen/runtime/store"
)

func pod(ns, name, node string, lbls map[string]string, containers ...string) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: lbls},
		Spec:       corev1.PodSpec{NodeName: node},
	}
	for _, c := range containers {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: c})
	}
	return p
}

func byNode(p *corev1.Pod) ([]string, error) { return store.Values(p.Spec.NodeName), nil }

// byContainer is a multi-value index func; duplicate names are allowed.
func byContainer(p *corev1.Pod) ([]string, error) {
	var out []string
	for _, c := range p.Spec.Containers {
		out = append(out, c.Name)
	}
	return out, nil
}

func names(objs []*corev1.Pod) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		out = append(out, store.Key(o))
	}
	slices.Sort(out)
	return out
}

func TestSetGetDelete(t *testing.T) {
	w := store.New(store.Options[*corev1.Pod]{Indexers: store.Indexers[*corev1.Pod]{"node": byNode}})
	ix := w.Indexer()

	a := pod("ns1", "a", "n1", nil)
	if old, existed := w.Set("ns1/a", a); existed || old != nil {
		t.Fatalf("first Set returned %v, %v", old, existed)
	}
	if got, ok := ix.Get("ns1/a"); !ok || got != a {
		t.Fatalf("Get = %v, %v; want the stored pointer", got, ok)
	}
	if _, ok := ix.Get("ns2/a"); ok {
		t.Fatal("Get of another namespace found an object")
	}
	a2 := pod("ns1", "a", "n2", nil)
	if old, existed := w.Set("ns1/a", a2); !existed || old != a {
		t.Fatalf("update Set returned %v, %v; want the old object", old, existed)
	}
	if ix.Len() != 1 {
		t.Fatalf("Len = %d after an update, want 1", ix.Len())
	}
	if got, _ := ix.ByIndex("node", "n1"); len(got) != 0 {
		t.Fatalf("ByIndex(node, n1) = %v after the value changed, want none", names(got))
	}
	if got, _ := ix.ByIndex("node", "n2"); len(got) != 1 || got[0] != a2 {
		t.Fatalf("ByIndex(node, n2) = %v, want [ns1/a]", names(got))
	}
	if old, existed := w.Delete("ns1/a"); !existed || old != a2 {
		t.Fatalf("Delete returned %v, %v", old, existed)
	}
	if _, existed := w.Delete("ns1/a"); existed {
		t.Fatal("second Delete reported existed")
	}
	if ix.Len() != 0 || len(ix.List()) != 0 || len(ix.ListIndexFuncValues("node")) != 0 ||
		len(ix.ListIndexFuncValues(store.NamespaceIndex)) != 0 {
		t.Fatal("cache or indices not empty after deleting everything")
	}
}

// TestOddKey stores objects under keys that are not Key(obj), as a caller
// with its own key func might.
func TestOddKey(t *testing.T) {
	w := store.New(store.Options[*corev1.Pod]{})
	ix := w.Indexer()
	a := pod("ns1", "a", "", nil)
	w.Set("custom-key", a)
	w.Set("ns1/b", pod("ns1", "b", "", nil))
	if got, ok := ix.Get("custom-key"); !ok || got != a {
		t.Fatal("Get(custom-key) did not find the object")
	}
	if _, ok := ix.Get("ns1/a"); ok {
		t.Fatal("Get(ns1/a) found an object stored under another key")
	}
	if got := ix.ListKeys(); !slices.Equal(sorted(got), []string{"custom-key", "ns1/b"}) {
		t.Fatalf("ListKeys = %q", got)
	}
	// Updating it with an object whose Key matches drops the odd key.
	w.Set("custom-key", pod("", "custom-key", "", nil))
	if got, _ := ix.IndexKeys(store.NamespaceIndex, ""); !slices.Equal(got, []string{"custom-key"}) {
		t.Fatalf("IndexKeys(namespace, \"\") = %q", got)
	}
	if _, ok := w.Delete("custom-key"); !ok {
		t.Fatal("Delete(custom-key) found nothing")
	}
	if ix.Len() != 1 {
		t.Fatalf("Len = %d, want 1", ix.Len())
	}
}

func sorted(s []string) []string { slices.Sort(s); return s }

func TestIndexValuesChange(t *testing.T) {
	w := store.New(store.Options[*corev1.Pod]{Indexers: store.Indexers[*corev1.Pod]{"c": byContainer}})
	ix := w.Indexer()
	check := func(value string, want ...string) {
		t.Helper()
		got, err := ix.IndexKeys("c", value)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Sort(got); !slices.Equal(got, want) && len(got)+len(want) > 0 {
			t.Errorf("IndexKeys(c, %s) = %q, want %q", value, got, want)
		}
	}
	w.Set("ns/a", pod("ns", "a", "", nil, "x", "y", "x"))
	w.Set("ns/b", pod("ns", "b", "", nil, "y"))
	check("x", "ns/a")
	check("y", "ns/a", "ns/b")
	w.Set("ns/a", pod("ns", "a", "", nil, "z", "y"))
	check("x")
	check("y", "ns/a", "ns/b")
	check("z", "ns/a")
	w.Set("ns/b", pod("other", "b", "", nil, "z")) // namespace changes too (odd key)
	check("y", "ns/a")
	check("z", "ns/a", "ns/b")
	if got, _ := ix.IndexKeys(store.NamespaceIndex, "other"); !slices.Equal(got, []string{"ns/b"}) {
		t.Errorf("namespace index after a namespace change = %q", got)
	}
	if got := sorted(ix.ListIndexFuncValues("c")); !slices.Equal(got, []string{"y", "z"}) {
		t.Errorf("ListIndexFuncValues(c) = %q, want [y z]", got)
	}
	w.Delete("ns/a")
	check("y")
	check("z", "ns/b")
}

func TestIndexFuncError(t *testing.T) {
	var reported []string
	fail := map[string]bool{}
	fn := func(p *corev1.Pod) ([]string, error) {
		if fail[p.Name] {
			return nil, errors.New("boom")
		}
		return store.Values(p.Spec.NodeName), nil
	}
	w := store.New(store.Options[*corev1.Pod]{
		Indexers:     store.Indexers[*corev1.Pod]{"node": fn},
		OnIndexError: func(index, key string, err error) { reported = append(reported, index+" "+key+" "+err.Error()) },
	})
	ix := w.Indexer()
	w.Set("ns/a", pod("ns", "a", "n1", nil))
	fail["a"] = true // the func now fails on the old object too
	w.Set("ns/a", pod("ns", "a", "n2", nil))
	if got, _ := ix.ByIndex("node", "n1"); len(got) != 0 {
		t.Errorf("stale index entry survived a failing index func: %v", names(got))
	}
	if !slices.Equal(reported, []string{"node ns/a boom"}) {
		t.Errorf("reported = %q", reported)
	}
	if _, ok := ix.Get("ns/a"); !ok {
		t.Error("object not stored when its index func failed")
	}
	fail["a"] = false
	w.Set("ns/a", pod("ns", "a", "n3", nil))
	if got, _ := ix.IndexKeys("node", "n3"); !slices.Equal(got, []string{"ns/a"}) {
		t.Errorf("IndexKeys(node, n3) = %q after recovery", got)
	}
}

func TestAddIndexers(t *testing.T) {
	w := store.New(store.Options[*corev1.Pod]{Indexers: store.Indexers[*corev1.Pod]{
		store.NamespaceIndex: func(p *corev1.Pod) ([]string, error) { return []string{p.Namespace}, nil },
	}})
	ix := w.Indexer()
	for n := range 100 {
		w.Set(fmt.Sprintf("ns/p%d", n), pod("ns", fmt.Sprintf("p%d", n), fmt.Sprintf("n%d", n%3), nil))
	}
	if _, err := ix.ByIndex("node", "n1"); !errors.Is(err, store.ErrUnknownIndex) {
		t.Fatalf("ByIndex on a missing index: err = %v, want ErrUnknownIndex", err)
	}
	if err := ix.AddIndexers(store.Indexers[*corev1.Pod]{"node": byNode}); err != nil {
		t.Fatal(err)
	}
	got, err := ix.ByIndex("node", "n1")
	if err != nil || len(got) != 33 {
		t.Fatalf("ByIndex(node, n1) after AddIndexers = %d objects, %v; want 33", len(got), err)
	}
	// Maintained from then on.
	w.Set("ns/p1", pod("ns", "p1", "n2", nil))
	if got, _ := ix.ByIndex("node", "n1"); len(got) != 32 {
		t.Fatalf("ByIndex(node, n1) after an update = %d, want 32", len(got))
	}

	if err := ix.AddIndexers(store.Indexers[*corev1.Pod]{"node": byNode}); err == nil {
		t.Error("AddIndexers accepted a duplicate name")
	}
	if err := ix.AddIndexers(store.Indexers[*corev1.Pod]{store.NamespaceIndex: byNode}); err == nil {
		t.Error("AddIndexers accepted the built-in namespace index name")
	}
	boom := errors.New("boom")
	err = ix.AddIndexers(store.Indexers[*corev1.Pod]{
		"ok":  byNode,
		"bad": func(*corev1.Pod) ([]string, error) { return nil, boom },
	})
	if !errors.Is(err, boom) {
		t.Fatalf("AddIndexers with a failing func: err = %v, want it wrapped", err)
	}
	if _, err := ix.ByIndex("ok", "n1"); !errors.Is(err, store.ErrUnknownIndex) {
		t.Error("AddIndexers added part of a failed set")
	}
}

// TestHashTableChurn exercises the key table's growth and backward-shift
// deletion with many keys, against a map.
func TestHashTableChurn(t *testing.T) {
	w := store.New(store.Options[*corev1.Pod]{})
	ix := w.Indexer()
	rng := rand.New(rand.NewPCG(7, 7))
	model := map[string]*corev1.Pod{}
	for step := range 40000 {
		n := rng.IntN(3000)
		key := fmt.Sprintf("ns%d/p%d", n%7, n)
		if rng.IntN(3) == 0 {
			_, existed := w.Delete(key)
			if _, want := model[key]; existed != want {
				t.Fatalf("step %d: Delete(%s) existed = %v, want %v", step, key, existed, want)
			}
			delete(model, key)
		} else {
			p := pod(fmt.Sprintf("ns%d", n%7), fmt.Sprintf("p%d", n), "", nil)
			w.Set(key, p)
			model[key] = p
		}
		if step%1000 == 0 || step == 39999 {
			if ix.Len() != len(model) {
				t.Fatalf("step %d: Len = %d, want %d", step, ix.Len(), len(model))
			}
			for n := range 3000 {
				key := fmt.Sprintf("ns%d/p%d", n%7, n)
				got, ok := ix.Get(key)
				if want := model[key]; got != want || ok != (want != nil) {
					t.Fatalf("step %d: Get(%s) = %p, %v; want %p", step, key, got, ok, want)
				}
			}
		}
	}
}

func TestUnknownIndex(t *testing.T) {
	ix := store.New(store.Options[*corev1.Pod]{}).Indexer()
	if _, err := ix.ByIndex("nope", "v"); !errors.Is(err, store.ErrUnknownIndex) {
		t.Errorf("ByIndex: %v", err)
	}
	if _, err := ix.IndexKeys("nope", "v"); !errors.Is(err, store.ErrUnknownIndex) {
		t.Errorf("IndexKeys: %v", err)
	}
	if got := ix.ListIndexFuncValues("nope"); len(got) != 0 {
		t.Errorf("ListIndexFuncValues = %q", got)
	}
}

func TestListSelectorEverythingAndNothing(t *testing.T) {
	w := store.New(store.Options[*corev1.Pod]{})
	ix := w.Indexer()
	w.Set("a/x", pod("a", "x", "", map[string]string{"k": "v"}))
	w.Set("b/y", pod("b", "y", "", nil))
	if got := names(ix.ListSelector("", labels.Everything())); !slices.Equal(got, []string{"a/x", "b/y"}) {
		t.Errorf("Everything = %q", got)
	}
	if got := names(ix.ListSelector("", nil)); len(got) != 2 {
		t.Errorf("nil selector = %q", got)
	}
	if got := names(ix.ListSelector("b", labels.Everything())); !slices.Equal(got, []string{"b/y"}) {
		t.Errorf("Everything in b = %q", got)
	}
	if got := ix.ListSelector("", labels.Nothing()); len(got) != 0 {
		t.Errorf("Nothing = %q", names(got))
	}
	if got := names(ix.ListSelector("", labels.SelectorFromSet(labels.Set{"k": "v"}))); !slices.Equal(got, []string{"a/x"}) {
		t.Errorf("k=v = %q", got)
	}
}

// TestKeysWithSlashes covers keys no well-formed object has: a leading "/"
// and names containing "/". They must still round-trip exactly.
func TestKeysWithSlashes(t *testing.T) {
	w := store.New(store.Options[*corev1.Pod]{})
	ix := w.Indexer()
	x := pod("", "x", "", nil)
	w.Set("/x", x)
	if _, ok := ix.Get("x"); ok {
		t.Error(`Get("x") found the object stored under "/x"`)
	}
	if got, ok := ix.Get("/x"); !ok || got != x {
		t.Error(`Get("/x") did not find its object`)
	}
	ab := pod("", "a/b", "", nil)
	w.Set(store.Key(ab), ab)
	nsab := pod("a", "b", "", nil)
	w.Set(store.Key(nsab), nsab) // same key "a/b": replaces
	if got, ok := ix.Get("a/b"); !ok || got != nsab || ix.Len() != 2 {
		t.Errorf(`Get("a/b") = %v, %v with Len %d; want the second object and 2`, got, ok, ix.Len())
	}
	if got, err := store.NewLister(ix, podsResource).Namespace("a").Get("b"); err != nil || got != nsab {
		t.Errorf(`Namespace("a").Get("b") = %v, %v`, got, err)
	}
	w.Set("a/b", ab) // back to the cluster-scoped one, now odd
	if got, err := store.NewLister(ix, podsResource).Get("a/b"); err != nil || got != ab {
		t.Errorf(`Get("a/b") on the cluster lister = %v, %v`, got, err)
	}
}

// TestUpdateReindexTransitions updates one key through every shape of change
// an index can see (same value, new value, one value to several and back,
// duplicates, none, a failing index func, a namespace that differs from the
// key's) and checks after each step that every index holds the key exactly
// under the current object's values. An update skips reading the old object
// when it can prove nothing changed; this pins that the proof holds.
func TestUpdateReindexTransitions(t *testing.T) {
	errNode := errors.New("bad node")
	byNodeOrErr := func(p *corev1.Pod) ([]string, error) {
		if p.Spec.NodeName == "bad" {
			return nil, errNode
		}
		return store.Values(p.Spec.NodeName), nil
	}
	w := store.New(store.Options[*corev1.Pod]{
		Indexers:     store.Indexers[*corev1.Pod]{"c": byContainer, "node": byNodeOrErr},
		OnIndexError: func(string, string, error) {},
	})
	ix := w.Indexer()
	steps := []struct {
		key string
		obj *corev1.Pod
	}{
		{"a/p", pod("a", "p", "n1", nil, "x")},
		{"a/p", pod("a", "p", "n1", nil, "x")},
		{"a/p", pod("a", "p", "n2", nil, "y")},
		{"a/p", pod("a", "p", "n2", nil, "x", "y")},
		{"a/p", pod("a", "p", "n2", nil, "y")},
		{"a/p", pod("a", "p", "bad", nil, "y", "y")},
		{"a/p", pod("a", "p", "n1", nil)},
		{"a/p", pod("a", "p", "n1", nil, "x")},
		{"a/p", pod("b", "p", "n1", nil, "x")}, // not the key's namespace
		{"a/p", pod("b", "p", "n1", nil, "x")},
		{"a/p", pod("a", "p", "n1", nil, "x")},
		{"p", pod("", "p", "n1", nil, "z")}, // cluster-scoped key
		{"p", pod("a", "p", "n1", nil, "z")},
		{"p", pod("", "p", "n3", nil, "z")},
		{"a/p", pod("a", "p", "bad", nil, "x")},
		{"a/p", pod("a", "p", "n3", nil, "x")},
	}
	for n, s := range steps {
		w.Set(s.key, s.obj)
		objs := map[string]*corev1.Pod{}
		for _, st := range steps[:n+1] {
			objs[st.key] = st.obj
		}
		want := func(index, value string) []string {
			var keys []string
			for k, o := range objs {
				var vals []string
				switch index {
				case store.NamespaceIndex:
					vals = []string{o.Namespace}
				case "c":
					vals, _ = byContainer(o)
				case "node":
					vals, _ = byNodeOrErr(o)
				}
				if slices.Contains(vals, value) {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			return keys
		}
		check := func(index string, values ...string) {
			t.Helper()
			for _, v := range values {
				got, err := ix.IndexKeys(index, v)
				if err != nil {
					t.Fatal(err)
				}
				slices.Sort(got)
				if w := want(index, v); !slices.Equal(got, w) {
					t.Fatalf("step %d (%s): IndexKeys(%q, %q) = %q, want %q", n, s.key, index, v, got, w)
				}
			}
		}
		check(store.NamespaceIndex, "", "a", "b")
		check("c", "x", "y", "z")
		check("node", "n1", "n2", "n3", "bad")
	}
}

// TestUpdateLabelIndexTransitions walks an object through every shape of
// label change on indexed label keys and checks the label index, through
// equality selectors (answered from the index alone), against the objects
// after each step.
func TestUpdateLabelIndexTransitions(t *testing.T) {
	w := store.New(store.Options[*corev1.Pod]{})
	ix := w.Indexer()
	l := func(kv ...string) map[string]string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	sel := func(k, v string) labels.Selector { return labels.SelectorFromSet(labels.Set{k: v}) }
	w.Set("a/q", pod("a", "q", "", l("app", "x", "tier", "1")))
	ix.ListSelector("", sel("app", "x"))  // index "app"
	ix.ListSelector("", sel("tier", "1")) // and "tier"
	steps := []map[string]string{
		l("app", "x"),
		l("app", "x"),              // unchanged
		l("app", "y"),              // value changed
		l("app", "y", "tier", "1"), // other key added
		l("tier", "1"),             // app removed
		l(),                        // all removed
		l("app", "x"),              // app added back
		l("app", "x", "tier", "2"),
		l("app", "y", "tier", "2"),
		nil,
		l("app", "y"),
	}
	for n, lbls := range steps {
		w.Set("a/p", pod("a", "p", "", lbls))
		objs := map[string]map[string]string{"a/p": lbls, "a/q": l("app", "x", "tier", "1")}
		for _, k := range []string{"app", "tier"} {
			for _, v := range []string{"x", "y", "1", "2"} {
				var got, want []string
				for _, o := range ix.ListSelector("", sel(k, v)) {
					got = append(got, o.Namespace+"/"+o.Name)
				}
				for key, ol := range objs {
					if ov, ok := ol[k]; ok && ov == v {
						want = append(want, key)
					}
				}
				slices.Sort(got)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Fatalf("step %d: %s=%s lists %q, want %q", n, k, v, got, want)
				}
			}
		}
	}
}
