package store

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/informer-gen/informer-gen/runtime/internal/cache"
)

// TestCacheOptionsConversion sets every field of Options in turn and checks
// that cacheOptions carries it to the field of the same name of
// cache.Options, and only there: forgetting a field fails here.
func TestCacheOptionsConversion(t *testing.T) {
	typ := reflect.TypeFor[Options[*corev1.Pod]]()
	ctyp := reflect.TypeFor[cache.Options]()
	if typ.NumField() != ctyp.NumField() {
		t.Fatalf("Options has %d fields, cache.Options %d: they must match one to one", typ.NumField(), ctyp.NumField())
	}
	values := map[reflect.Type]any{
		reflect.TypeFor[Indexers[*corev1.Pod]]():       Indexers[*corev1.Pod]{"x": func(*corev1.Pod) ([]string, error) { return nil, nil }},
		reflect.TypeFor[func(string, string, error)](): func(string, string, error) {},
		reflect.TypeFor[[]string]():                    []string{"ns"},
	}
	for n := range typ.NumField() {
		f := typ.Field(n)
		v, ok := values[f.Type]
		if !ok {
			t.Fatalf("Options.%s has type %v, which this test does not know: add it here and to cacheOptions", f.Name, f.Type)
		}
		var opts Options[*corev1.Pod]
		reflect.ValueOf(&opts).Elem().Field(n).Set(reflect.ValueOf(v))
		c := reflect.ValueOf(cacheOptions(opts))
		for m := range ctyp.NumField() {
			if set, same := !c.Field(m).IsZero(), ctyp.Field(m).Name == f.Name; set != same {
				t.Errorf("setting Options.%s: cache.Options.%s set = %v", f.Name, ctyp.Field(m).Name, set)
			}
		}
	}
}
