package cache

import (
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A typed index func handed an object of another type returns a TypeError
// naming both types and the index, and the cache reports it as an index
// error instead of calling the func with a nil object.
func TestIndexersOfReportsATypeMismatch(t *testing.T) {
	called := false
	byNode := map[string]func(*corev1.Pod) ([]string, error){
		"byNode": func(p *corev1.Pod) ([]string, error) { called = true; return []string{p.Spec.NodeName}, nil },
	}
	var got error
	w := New(Options{Indexers: IndexersOf(byNode), OnIndexError: func(index, key string, err error) { got = err }})
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"}}
	w.Set(Key(cm), cm)
	if called {
		t.Fatal("the typed index func was called with an object of another type")
	}
	var te *TypeError
	if !errors.As(got, &te) {
		t.Fatalf("index error = %v, want a *TypeError", got)
	}
	for _, want := range []string{"*v1.Pod", "*v1.ConfigMap", `"byNode"`} {
		if !strings.Contains(got.Error(), want) {
			t.Errorf("index error %q does not name %s", got, want)
		}
	}
}

// MustAs panics with a TypeError naming both types on a mismatch, returns
// the zero value for nil, and the object otherwise.
func TestMustAs(t *testing.T) {
	p := &corev1.Pod{}
	if got := MustAs[*corev1.Pod](p, "read"); got != p {
		t.Fatalf("MustAs of a Pod = %p, want %p", got, p)
	}
	if got := MustAs[*corev1.Pod](nil, "read"); got != nil {
		t.Fatalf("MustAs of nil = %v, want nil", got)
	}
	defer func() {
		err, _ := recover().(*TypeError)
		if err == nil || !strings.Contains(err.Error(), "*v1.Pod") || !strings.Contains(err.Error(), "*v1.ConfigMap") {
			t.Fatalf("MustAs of a ConfigMap as a Pod panicked with %v, want a TypeError naming both types", err)
		}
	}()
	MustAs[*corev1.Pod](&corev1.ConfigMap{}, "read")
	t.Fatal("MustAs of a ConfigMap as a Pod did not panic")
}
