package fifo

import (
	"errors"
	"fmt"
	"slices"

	"github.com/informer-gen/informer-gen/runtime/internal/cache"
)

// ErrPartitioned is returned by the FIFO's own Replace when
// Options.Namespaces partitions it: a relist covers one namespace and goes
// through Namespace(ns).
var ErrPartitioned = errors.New("fifo: partitioned by namespace: Replace goes through Namespace(ns)")

// Partition is the producer side of one namespace of a FIFO partitioned by
// Options.Namespaces; it satisfies reflector.Sink. Add, Update and Delete are
// the FIFO's; Replace is confined to the namespace. Safe for
// concurrent use, like the FIFO.
type Partition[T cache.Obj] struct {
	f  *FIFO[T]
	ns string
}

// Namespace returns the partition of namespace ns. It panics if ns is not
// one of Options.Namespaces (a programming error).
func (f *FIFO[T]) Namespace(ns string) *Partition[T] {
	if _, ok := f.partitioned[ns]; !ok {
		panic(fmt.Sprintf("fifo %s: namespace %q is not one of Options.Namespaces", f.name, ns))
	}
	return &Partition[T]{f: f, ns: ns}
}

// Add is FIFO.Add.
func (p *Partition[T]) Add(obj T) error { return p.f.Add(obj) }

// Update is FIFO.Update.
func (p *Partition[T]) Update(obj T) error { return p.f.Update(obj) }

// Delete is FIFO.Delete.
func (p *Partition[T]) Delete(obj T) error { return p.f.Delete(obj) }

// Replace is FIFO.Replace for one namespace: objs must all be in it (else
// an error, and nothing is queued), and only keys of the namespace get
// tombstones. The partition's first Replace counts toward the initial
// population, which is complete once every partition has had one.
func (p *Partition[T]) Replace(objs []T, resourceVersion string) error {
	return p.f.replace(objs, resourceVersion, p.ns)
}

// namespaceKeyLister is implemented by *cache.Cache: its built-in
// namespace index gives one namespace's keys without listing every key.
type namespaceKeyLister interface {
	IndexKeys(indexName, value string) ([]string, error)
}

// knownKeys returns Known's keys, only those of namespace ns unless ns is ""
// (partitions never have namespace "": it stands for every key).
func (f *FIFO[T]) knownKeys(ns string) []string {
	if f.known == nil {
		return nil
	}
	if ns == "" {
		return f.known.ListKeys()
	}
	if nk, ok := f.known.(namespaceKeyLister); ok {
		if keys, err := nk.IndexKeys(cache.NamespaceIndex, ns); err == nil {
			return keys
		}
	}
	return slices.DeleteFunc(f.known.ListKeys(), func(k string) bool { return !inNamespace(k, ns) })
}

// inNamespace reports whether key ("ns/name") belongs to namespace ns.
func inNamespace(key, ns string) bool {
	return len(key) > len(ns) && key[len(ns)] == '/' && key[:len(ns)] == ns
}
