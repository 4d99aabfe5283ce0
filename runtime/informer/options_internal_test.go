package informer

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/informer-gen/informer-gen/runtime/internal/cache"
	"github.com/informer-gen/informer-gen/runtime/internal/engine/core"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/store"
)

type podOptions = Options[*corev1.Pod]

type nopMetrics struct{}

func (nopMetrics) Handler(*Registration) func(string) { return nil }

func (nopMetrics) Process() func(time.Duration, int, string) { return nil }

// nonZero returns a non-zero value for every field type Options has; a new
// field of a type not listed fails TestOptionsConversion until it is added
// here (and to the conversion).
func nonZero(t *testing.T, f reflect.StructField) reflect.Value {
	t.Helper()
	var v any
	switch f.Type {
	case reflect.TypeFor[store.Indexers[*corev1.Pod]]():
		v = store.Indexers[*corev1.Pod]{"byNode": func(p *corev1.Pod) ([]string, error) { return []string{p.Spec.NodeName}, nil }}
	case reflect.TypeFor[func(*corev1.Pod) (*corev1.Pod, error)]():
		v = func(p *corev1.Pod) (*corev1.Pod, error) { return p, nil }
	case reflect.TypeFor[bool]():
		v = true
	case reflect.TypeFor[time.Duration]():
		v = time.Minute
	case reflect.TypeFor[reflector.Options]():
		v = reflector.Options{Name: "pods"}
	case reflect.TypeFor[func(context.Context, HandlerPanicInfo)]():
		v = func(context.Context, HandlerPanicInfo) {}
	case reflect.TypeFor[Metrics]():
		var m Metrics = nopMetrics{}
		return reflect.ValueOf(&m).Elem()
	default:
		t.Fatalf("Options.%s has type %v, which this test does not know: add it here and to Options.core", f.Name, f.Type)
	}
	return reflect.ValueOf(v)
}

// TestOptionsConversion sets every field of Options in turn and checks that
// the conversion to the untyped core's options (the one conversion: nothing
// converts back) carries it, to a field of the same name, non-zero, and to
// no other field. A field of Options left out of core fails here.
func TestOptionsConversion(t *testing.T) {
	typ := reflect.TypeFor[podOptions]()
	ctyp := reflect.TypeFor[core.Options]()
	if typ.NumField() != ctyp.NumField() {
		t.Fatalf("Options has %d fields, core.Options %d: they must match one to one", typ.NumField(), ctyp.NumField())
	}
	for n := range typ.NumField() {
		f := typ.Field(n)
		t.Run(f.Name, func(t *testing.T) {
			var opts podOptions
			reflect.ValueOf(&opts).Elem().Field(n).Set(nonZero(t, f))
			c := opts.core()
			cf := reflect.ValueOf(c).FieldByName(f.Name)
			if !cf.IsValid() {
				t.Fatalf("core.Options has no field %s", f.Name)
			}
			if cf.IsZero() {
				t.Fatalf("Options.%s is lost by the conversion to core.Options", f.Name)
			}
			for m := range ctyp.NumField() {
				if name := ctyp.Field(m).Name; name != f.Name && !reflect.ValueOf(c).Field(m).IsZero() {
					t.Errorf("setting Options.%s sets core.Options.%s too", f.Name, name)
				}
			}
		})
	}
}

// A typed handler handed an object of another type (which the core never
// stores: it checks every write) panics with an error naming both types,
// which the informer recovers and reports per event; it never calls the
// handler with a nil object.
func TestTypedHandlerRefusesAnotherType(t *testing.T) {
	called := false
	h := typedHandler[*corev1.Pod]{HandlerFuncs[*corev1.Pod]{AddFunc: func(*corev1.Pod, bool) { called = true }}}
	defer func() {
		err, _ := recover().(error)
		var te *cache.TypeError
		if !errors.As(err, &te) || !strings.Contains(err.Error(), "*v1.Pod") || !strings.Contains(err.Error(), "*v1.ConfigMap") {
			t.Fatalf("OnAdd of a ConfigMap by a Pod handler panicked with %v, want a TypeError naming both types", err)
		}
		if called {
			t.Fatal("the handler was called")
		}
	}()
	h.OnAdd(&corev1.ConfigMap{}, false)
	t.Fatal("OnAdd of a ConfigMap by a Pod handler did not panic")
}

// A typed Transform handed (through the untyped core) an object of another
// type returns an error naming both types instead of transforming a nil.
func TestTypedTransformRefusesAnotherType(t *testing.T) {
	called := false
	opts := podOptions{Transform: func(p *corev1.Pod) (*corev1.Pod, error) { called = true; return p, nil }}
	_, err := opts.core().Transform(&corev1.ConfigMap{})
	var te *cache.TypeError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "*v1.Pod") || !strings.Contains(err.Error(), "*v1.ConfigMap") {
		t.Fatalf("Transform of a ConfigMap by a Pod informer: error = %v, want a TypeError naming both types", err)
	}
	if called {
		t.Fatal("the typed Transform was called")
	}
}
