package core

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-gen/informer-gen/runtime/internal/cache"
)

var podType = reflect.TypeFor[*corev1.Pod]()

// wantTypeError fails unless err is a *cache.TypeError naming both types.
func wantTypeError(t *testing.T, what string, err error) {
	t.Helper()
	var te *cache.TypeError
	if !errors.As(err, &te) {
		t.Fatalf("%s: error = %v, want a *cache.TypeError", what, err)
	}
	for _, name := range []string{"*v1.Pod", "*v1.ConfigMap"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("%s: error %q does not name %s", what, err, name)
		}
	}
}

// A transform that returns another type than the informer's is an error
// naming both types (the FIFO then refuses the event), never a stored
// object of the wrong type.
func TestTransformOfAnotherTypeIsAnError(t *testing.T) {
	opts := Options{Transform: func(o cache.Obj) (cache.Obj, error) {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: o.GetName()}}, nil
	}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}
	for _, keep := range []bool{false, true} {
		opts.KeepManagedFields = keep
		out, err := transform(&opts, podType)(pod)
		wantTypeError(t, "transform", err)
		if out != cache.Obj(pod) {
			t.Errorf("transform returned %T on error, want the input object", out)
		}
	}
}

// Seed refuses an object of another type than the informer's, with an error
// naming both types, and stores nothing.
func TestSeedOfAnotherTypeIsAnError(t *testing.T) {
	s := NewShared(nil, podType, Options{})
	err := s.Seed(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"}})
	wantTypeError(t, "Seed", err)
	if n := s.Cache().Len(); n != 0 {
		t.Errorf("the cache holds %d objects after a refused Seed, want 0", n)
	}
}

// CheckType, the check a typed view makes before it is handed out, names
// both types on a mismatch.
func TestCheckType(t *testing.T) {
	s := NewShared(nil, podType, Options{})
	if err := s.CheckType(podType); err != nil {
		t.Fatalf("CheckType of the informer's own type: %v", err)
	}
	wantTypeError(t, "CheckType", s.CheckType(reflect.TypeFor[*corev1.ConfigMap]()))
}
