package cache_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"unique"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-gen/informer-gen/runtime/internal/cache"
)

// decoded returns a freshly decoded copy, so no string is shared with src.
func decoded(t *testing.T, src *corev1.Pod) *corev1.Pod {
	t.Helper()
	b, err := json.Marshal(src)
	if err != nil {
		t.Fatal(err)
	}
	var p corev1.Pod
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	// Go 1.27's encoding/json may hand out one copy of a short string to
	// several decodes; the tests compare copies by their bytes' address, so
	// every string is copied once more.
	cloneStrings(reflect.ValueOf(&p).Elem())
	return &p
}

// cloneStrings replaces every string reachable from v (fields, elements,
// map keys and values) with a copy of its own.
func cloneStrings(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() {
			v.SetString(strings.Clone(v.String()))
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			cloneStrings(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				cloneStrings(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			cloneStrings(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		m := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			k := reflect.New(v.Type().Key()).Elem()
			k.Set(it.Key())
			cloneStrings(k)
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(it.Value())
			cloneStrings(e)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	}
}

func sameData(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }

func TestCompact(t *testing.T) {
	src := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Namespace:     "team-a",
		Name:          "p",
		Labels:        map[string]string{"app": "web", "tier": "frontend"},
		Annotations:   map[string]string{"note": "hello"},
		Finalizers:    []string{"example.com/cleanup"},
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply}},
		OwnerReferences: []metav1.OwnerReference{
			{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "u1"},
		},
	}}
	a, b := decoded(t, src), decoded(t, src)
	if sameData(a.Namespace, b.Namespace) {
		t.Fatal("test setup: decoded copies already share strings")
	}
	want := decoded(t, src)
	want.ManagedFields = nil

	for _, p := range []*corev1.Pod{a, b} {
		cache.Compact(p)
	}
	aj, _ := json.Marshal(a)
	wj, _ := json.Marshal(want)
	if string(aj) != string(wj) {
		t.Fatalf("Compact changed more than managedFields:\n got %s\nwant %s", aj, wj)
	}
	if a.ManagedFields != nil {
		t.Error("managedFields kept")
	}
	if !sameData(a.Namespace, b.Namespace) {
		t.Error("namespace not interned")
	}
	if !sameData(a.Labels["app"], b.Labels["app"]) {
		t.Error("label value not interned")
	}
	if !sameData(a.Finalizers[0], b.Finalizers[0]) {
		t.Error("finalizer not interned")
	}
	if !sameData(a.OwnerReferences[0].Kind, b.OwnerReferences[0].Kind) ||
		!sameData(a.OwnerReferences[0].APIVersion, b.OwnerReferences[0].APIVersion) {
		t.Error("owner reference kind/apiVersion not interned")
	}
	keyData := func(m map[string]string, k string) *byte {
		for mk := range m {
			if mk == k {
				return unsafe.StringData(mk)
			}
		}
		return nil
	}
	if keyData(a.Labels, "tier") != keyData(b.Labels, "tier") {
		t.Error("label key not interned")
	}
	if reflect.ValueOf(a.Labels).UnsafePointer() != reflect.ValueOf(b.Labels).UnsafePointer() {
		t.Error("objects with equal labels do not share one labels map")
	}
	if keyData(a.Annotations, "note") != keyData(b.Annotations, "note") {
		t.Error("annotation key not interned")
	}
	if sameData(a.Annotations["note"], b.Annotations["note"]) {
		t.Error("annotation value interned; values are meant to stay as decoded")
	}
}

// TestInternStringsLeavesCanonicalAlone: an object whose maps and slices are
// canonical already (a user's transform may hand one labels map to many
// objects) is only read, never written, so interning such objects on several
// goroutines at once while others read them is not a data race (run with
// -race). The objects still compare equal and still share their strings.
//
// "Canonical" lasts only while unique keeps the copy: once nobody holds a
// handle to it, a garbage collection may free unique's entry, the next
// intern makes a new canonical copy and the shared map is written again. The
// test holds handles to every string so that the property it checks, no
// write of what is canonical, is what it measures (without them it failed
// under -race when a GC ran mid-test).
func TestInternStringsLeavesCanonicalAlone(t *testing.T) {
	tmpl := decoded(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Namespace:       "team-a",
		Labels:          map[string]string{"app": "web", "tier": "frontend"},
		Annotations:     map[string]string{"note": "hello"},
		Finalizers:      []string{"example.com/cleanup"},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "u1"}},
	}})
	var handles []unique.Handle[string]
	for _, v := range []string{"team-a", "app", "web", "tier", "frontend", "note", "example.com/cleanup", "apps/v1", "ReplicaSet"} {
		handles = append(handles, unique.Make(v))
	}
	defer runtime.KeepAlive(handles)
	cache.InternStrings(tmpl)
	want, _ := json.Marshal(tmpl)
	var wg sync.WaitGroup
	for n := range 8 {
		p := tmpl.DeepCopy() // own struct, shared maps and slices below
		p.Name = fmt.Sprint("p", n)
		p.Labels, p.Annotations, p.Finalizers, p.OwnerReferences = tmpl.Labels, tmpl.Annotations, tmpl.Finalizers, tmpl.OwnerReferences
		wg.Go(func() {
			for range 100 {
				cache.InternStrings(p)
			}
		})
		wg.Go(func() {
			for range 100 {
				_ = tmpl.Labels["app"] + tmpl.Annotations["note"] + tmpl.Finalizers[0] + tmpl.OwnerReferences[0].Kind
			}
		})
	}
	wg.Wait()
	if got, _ := json.Marshal(tmpl); string(got) != string(want) {
		t.Fatalf("shared canonical data changed:\n got %s\nwant %s", got, want)
	}
}

// TestInternStringsConcurrent interns decoded copies of the same pod on
// several goroutines at once (each with whatever per-P cache it gets): every
// copy ends up equal to the decoded object and holding unique's canonical
// copy of each interned string, so all copies share one.
//
// As in TestInternStringsLeavesCanonicalAlone, the test holds handles to the
// strings it checks: with none held, a garbage collection that drops the
// per-P caches may free unique's entry mid-test, and the next intern makes
// a new canonical copy (with GOGC=1 it failed every time).
func TestInternStringsConcurrent(t *testing.T) {
	src := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Namespace:       "team-b",
		Name:            "p",
		Labels:          map[string]string{"app": "api", "tier": "backend", "zone": "z1"},
		Finalizers:      []string{"example.com/a", "example.com/b"},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "s", UID: "u2"}},
	}}
	want, _ := json.Marshal(src)
	canon := map[string]unique.Handle[string]{}
	for _, v := range []string{"team-b", "z1", "example.com/b", "StatefulSet"} {
		canon[v] = unique.Make(v)
	}
	defer runtime.KeepAlive(canon)
	isCanon := func(s string) bool { h, ok := canon[s]; return ok && sameData(s, h.Value()) }
	const workers, each = 4, 50
	pods := make([][]*corev1.Pod, workers)
	for w := range pods {
		for range each {
			pods[w] = append(pods[w], decoded(t, src))
		}
	}
	var wg sync.WaitGroup
	for w := range pods {
		wg.Go(func() {
			for _, p := range pods[w] {
				cache.InternStrings(p)
			}
		})
	}
	wg.Wait()
	// Label maps are interned as whole sets (a cache of canonical maps that
	// outlives a test), so the copies share one map, whose strings were
	// canonical when it was built: the label is checked against the first
	// copy's, the other strings against unique's copy.
	first := pods[0][0]
	for _, ps := range pods {
		for _, p := range ps {
			if got, _ := json.Marshal(p); string(got) != string(want) {
				t.Fatalf("interned copy differs:\n got %s\nwant %s", got, want)
			}
			if !isCanon(p.Namespace) || !isCanon(p.Finalizers[1]) || !isCanon(p.OwnerReferences[0].Kind) {
				t.Fatal("a copy's strings are not unique's copy")
			}
			if !sameData(p.Labels["zone"], first.Labels["zone"]) {
				t.Fatal("copies interned on different goroutines do not share their labels' strings")
			}
		}
	}
}
