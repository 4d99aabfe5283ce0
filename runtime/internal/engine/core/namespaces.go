package core

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/informer-gen/informer-gen/runtime/internal/budget"
	"github.com/informer-gen/informer-gen/runtime/internal/cache"
	"github.com/informer-gen/informer-gen/runtime/reflector"
)

// NamespaceSource is one namespace of a multi-namespace informer and a
// ListerWatcher of only that namespace (an entry of informer.NewMultiNamespace's
// map, untyped).
type NamespaceSource struct {
	Namespace     string
	ListerWatcher reflector.ListerWatcher[cache.Obj]
}

// NewSharedMultiNamespace returns the untyped core of one informer over
// several namespaces, whose objects must all have the Go type objectType
// (informer.NewMultiNamespace is the typed constructor): a
// Reflector per source (each with its own resourceVersion, relists and
// backoff, as the API server has no resourceVersion spanning namespaces, and
// all sharing one request budget, a budget.Budget, so that their retries together make about one request
// a second however many namespaces fail)
// feeding one DeltaFIFO partitioned by namespace, so handlers get one event
// stream, the Indexer (and any Lister over it) is one cache holding exactly
// the watched namespaces, and a relist after a 410 in one namespace
// tombstones only that namespace's vanished objects. HasSynced turns true
// once every namespace has been listed and applied. LastError and
// LastSyncResourceVersion report per namespace.
//
// The sources are taken in namespace order, whatever their order in
// sources. It panics on no sources, on "" (all namespaces: use NewShared)
// and on a namespace given twice: programming errors.
func NewSharedMultiNamespace(sources []NamespaceSource, objectType reflect.Type, opts Options) *Shared {
	if len(sources) == 0 {
		panic("informer: NewMultiNamespace without sources")
	}
	sources = slices.SortedFunc(slices.Values(sources), func(a, b NamespaceSource) int { return strings.Compare(a.Namespace, b.Namespace) })
	namespaces := make([]string, len(sources))
	seen := make(map[string]bool, len(sources))
	for n, src := range sources {
		if src.Namespace == "" || seen[src.Namespace] {
			panic(fmt.Sprintf("informer: NewMultiNamespace: namespace %q is empty or given twice", src.Namespace))
		}
		seen[src.Namespace] = true
		namespaces[n] = src.Namespace
	}
	i, q := newShared(opts, objectType, namespaces)
	// One request budget for the informer, not one per namespace.
	b := budget.New(0)
	for _, src := range sources {
		sink := reflector.Sink[cache.Obj](q.Namespace(src.Namespace))
		i.reflectors = append(i.reflectors, reflector.New(src.ListerWatcher, sink, i.reflectorOptions(opts, objectType, src.Namespace, b)))
	}
	return i
}
