package reflector

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/informer-gen/informer-gen/runtime/internal/scope"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// What a Reflector refuses to apply (see the package doc, "Hostile
// servers"): resourceVersions it cannot resume from, objects without a
// valid key, and LISTs with any such item.

// validRV reports whether rv is a resourceVersion the Reflector may resume
// from: a decimal uint64, as the API server's (etcd revisions) are.
func validRV(rv string) bool {
	_, err := strconv.ParseUint(rv, 10, 64)
	return err == nil
}

// validObjectRV reports whether rv may be an object's resourceVersion: a
// valid one, and not 0 (the revision of nothing; etcd's start at 1).
func validObjectRV(rv string) bool {
	n, err := strconv.ParseUint(rv, 10, 64)
	return err == nil && n > 0
}

// quoteRV quotes a server-sent resourceVersion for an error message, cut
// short: it may be anything.
func quoteRV(rv string) string {
	if len(rv) > 32 {
		rv = rv[:32] + "..."
	}
	return strconv.Quote(rv)
}

// checkKey returns why obj cannot be stored (no name, or a namespace that
// contradicts the resource's scope when the runtime set it:
// settings.Reflector.Scope), or "".
func (r *Reflector[T]) checkKey(obj T) string {
	name, ns := obj.GetName(), obj.GetNamespace()
	switch {
	case name == "":
		return "has no metadata.name"
	case strings.Contains(name, "/"):
		return "has a \"/\" in metadata.name"
	case r.opts.runtime.Scope == scope.Namespaced && ns == "":
		return "has no metadata.namespace (the resource is namespaced)"
	case r.opts.runtime.Scope == scope.Cluster && ns != "":
		return "has a metadata.namespace (the resource is cluster-scoped)"
	}
	return ""
}

// checkItems returns why items, the content of a LIST or WatchList at rv,
// cannot replace the Sink's (ErrInvalidObject, ErrInvalidResourceVersion),
// naming up to three of the items at fault, or nil. A partial list would
// delete the objects it lacks from the cache, so it is refused whole and
// retried (see the package doc, "Hostile servers").
func (r *Reflector[T]) checkItems(what string, items []T, rv string) error {
	var bad []string
	var kind error
	n := 0
	for i, o := range items {
		why := r.checkKey(o)
		err := ErrInvalidObject
		if why == "" && r.objectRVs && !validObjectRV(o.GetResourceVersion()) {
			why, err = "has an invalid resourceVersion", ErrInvalidResourceVersion
		}
		if why == "" {
			continue
		}
		if n == 0 {
			kind = err
		}
		n++
		if len(bad) < 3 {
			bad = append(bad, fmt.Sprintf("item %d (%s, resourceVersion %s) %s", i, store.Key(o), quoteRV(o.GetResourceVersion()), why))
		}
	}
	if n == 0 {
		return nil
	}
	return fmt.Errorf("%s %s at resourceVersion %s: %w: %d of %d items unusable, not applied: %s", what, r.opts.Name, rv, kind, n, len(items), strings.Join(bad, "; "))
}
