package cache

import (
	"fmt"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Obj is what the untyped cache (Cache) and the runtime's untyped cores hold:
// any API object with ObjectMeta. Every store.Object[T] is an Obj. The typed
// API (store.Indexer[T], store.Lister[T], informer.Informer[T]) is a thin
// view over cores that hold Obj, so that code generated for many types
// compiles the runtime's machinery once, in the runtime, instead of once per
// package that uses it (see docs/generated-code.md).
type Obj interface {
	metav1.Object
	runtime.Object
}

// Collector receives the objects of a read, under the read lock: Reserve, at
// most once and first, with the number of objects expected, then Add for each
// one. The typed views (store.Indexer[T]) collect straight into a []T this
// way, without an intermediate []Obj. Add must not call the Cache.
type Collector interface {
	Reserve(n int)
	Add(o Obj)
}

// objects collects Objs.
type objects []Obj

func (o *objects) Reserve(n int) { *o = make([]Obj, 0, n) }
func (o *objects) Add(obj Obj)   { *o = append(*o, obj) }

// TypeError is the error of a typed view handed an object of another Go type
// than its own: the untyped core and the view disagree. It names both types.
type TypeError struct {
	// Want is the view's type, Got the object's (nil for a nil object).
	Want, Got reflect.Type
	// Where says what was converted ("index func \"byNode\"", "transform").
	Where string
}

// Error reads "<where>: object is <got>, not <want>".
func (e *TypeError) Error() string {
	got := "<nil>"
	if e.Got != nil {
		got = e.Got.String()
	}
	return fmt.Sprintf("%s: object is %s, not %v", e.Where, got, e.Want)
}

// As returns o as T, or a *TypeError naming both types when o is not a T
// (a nil o included). where says what converts, for the error.
func As[T any](o Obj, where string) (T, error) {
	if t, ok := o.(T); ok {
		return t, nil
	}
	var zero T
	return zero, &TypeError{Want: reflect.TypeFor[T](), Got: reflect.TypeOf(o), Where: where}
}

// MustAs returns o as T. It is for reads of a cache whose every write was
// checked to be a T (the informer checks what it stores: see TypeError), so a
// mismatch is a bug in the runtime; it panics then with the TypeError, which
// names both types. A nil o is T's zero value (a read that found nothing).
// Small enough to be inlined: reads call it per object.
func MustAs[T any](o Obj, where string) T {
	t, ok := o.(T)
	if !ok && o != nil {
		panic(mismatch[T](o, where))
	}
	return t
}

func mismatch[T any](o Obj, where string) error {
	_, err := As[T](o, where)
	return err
}

// IndexersOf returns typed index funcs (a store.Indexers[T]) as index funcs
// over Obj, for a Cache whose objects are all T. Nil funcs stay nil. An
// object that is not a T makes the func return a *TypeError naming both types
// (and the index), which the cache reports as any index func's error.
func IndexersOf[T Obj, F ~func(T) ([]string, error), M ~map[string]F](indexers M) Indexers {
	if indexers == nil {
		return nil
	}
	out := make(Indexers, len(indexers))
	for name, fn := range indexers {
		if fn == nil {
			out[name] = nil
			continue
		}
		where := fmt.Sprintf("index func %q", name)
		out[name] = func(o Obj) ([]string, error) {
			t, err := As[T](o, where)
			if err != nil {
				return nil, err
			}
			return fn(t)
		}
	}
	return out
}
