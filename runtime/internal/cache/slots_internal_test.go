package cache

import (
	"fmt"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// boxed is an Obj that is not pointer-shaped: its interface values point to
// a boxed copy of the struct.
type boxed struct {
	*corev1.Pod
	extra int
}

func slotPod(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
}

func slotCM(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
}

func TestObjIsTwoWords(t *testing.T) {
	var o Obj
	if unsafe.Sizeof(o) != unsafe.Sizeof(iface{}) {
		t.Fatalf("an Obj takes %d bytes, iface %d", unsafe.Sizeof(o), unsafe.Sizeof(iface{}))
	}
}

// Objects of one type take one word per slot; objects of several types,
// stored in any order and over freed ids, come back as stored.
func TestObjSlotsRoundTrip(t *testing.T) {
	w := New(Options{})
	c := w.Cache()
	want := map[string]Obj{}
	set := func(o Obj) {
		w.Set(Key(o), o)
		want[Key(o)] = o
	}
	check := func(when string) {
		t.Helper()
		for k, o := range want {
			if got, ok := c.Get(k); !ok || got != o {
				t.Errorf("%s: Get(%s) = %v (%T), %v; want the object stored (%T)", when, k, got, got, ok, o)
			}
		}
		if got := len(c.List()); got != len(want) {
			t.Errorf("%s: List returns %d objects, want %d", when, got, len(want))
		}
	}

	for n := range 10 {
		set(slotPod(fmt.Sprintf("p%d", n)))
	}
	if c.objs.tabs != nil {
		t.Error("objects of one type: slots carry their own type words")
	}
	check("one type")

	w.Delete("ns/p3")
	delete(want, "ns/p3")
	set(slotCM("c0")) // reuses p3's id
	if c.objs.tabs == nil {
		t.Error("objects of two types share one type word")
	}
	check("two types")

	set(boxed{Pod: slotPod("b0"), extra: 7})
	set(slotCM("p5")) // a ConfigMap replaces nothing: another key
	w.Delete("ns/p0")
	delete(want, "ns/p0")
	set(boxed{Pod: slotPod("p0"), extra: 8}) // over a freed pod's id
	set(slotPod("b0"))                       // a pod over a boxed value's id
	check("three types")
	if got, _ := c.Get("ns/p0"); got.(boxed).extra != 8 {
		t.Errorf("boxed value came back as %+v", got)
	}
}
