package factory

import (
	"context"
	"fmt"
	"reflect"
	"slices"
)

// RemoveInformer stops the factory's shared informer for typ (the kind's,
// or a projection's when typ.Projection is set) and forgets it, while the
// factory's other informers keep running. It is for controllers whose
// watched kinds change at run time (a CRD uninstalled, a provider removed).
//
// What happens, in order: the informer's Reflector stops (its watch is
// closed), its queue closes, its handlers stop (every Registration's
// Stopped channel closes; no handler call starts after RemoveInformer
// returns), and RemoveInformer returns once all of the informer's
// goroutines have exited. The factory then holds no reference to the
// informer: its cache is garbage as soon as the caller drops the Informer,
// Lister and Registrations it got from it (reads through them keep working
// on the last state until then, and never change again).
//
// A later InformerFor (or ForResource) of typ creates a fresh informer, with
// its own LIST, started at once if the factory is started. RemoveInformer
// reports whether there was an informer to remove. It is safe for
// concurrent use; calling it from one of the informer's own handlers
// deadlocks (it waits for that handler to return).
func (f *Factory) RemoveInformer(typ AnyType) bool {
	return f.remove(typ.key(), nil)
}

// RemoveInformerOf is RemoveInformer for the informer whose objects have
// obj's Go type (a *v1.Foo for the kind, a *v1.FooSummary for a
// projection), for callers that hold an object rather than a Type
// (controller-runtime's Cache.RemoveInformer). It returns false and no
// error when the factory has no such informer, and an error when several
// informers have obj's type (one Go type registered for two resources).
func (f *Factory) RemoveInformerOf(obj any) (bool, error) {
	t := reflect.TypeOf(obj)
	f.mu.Lock()
	var found []typeKey
	for _, k := range f.order {
		if f.entries[k].objectType == t {
			found = append(found, k)
		}
	}
	f.mu.Unlock()
	switch len(found) {
	case 0:
		return false, nil
	case 1:
		return f.remove(found[0], nil), nil
	default:
		return false, fmt.Errorf("remove informer of %v: %d informers have that type (%v); remove it by its Type", t, len(found), found)
	}
}

// RunInformer runs typ's shared informer until ctx ends, for a caller that
// owns one informer's lifetime rather than the factory's: controller-runtime's
// cache runs each informer with a context of its own, which it cancels on
// Cache.RemoveInformer and on shutdown.
//
// If the informer is not running, RunInformer starts it (creating it if
// needed) with a context derived from ctx and nothing else: the factory's
// other informers are not started. When ctx ends, that informer is stopped
// and removed as by RemoveInformer (a later InformerFor creates a fresh
// one), and RunInformer returns once its goroutines have exited. If the
// informer is already running (the factory's Start runs it), RunInformer
// only waits for ctx: the factory's Start context and Shutdown govern it.
// After Shutdown, RunInformer starts nothing and returns when ctx ends.
func (f *Factory) RunInformer(ctx context.Context, typ AnyType) {
	k := typ.key()
	e := f.informerFor(k, typ.info)
	f.mu.Lock()
	mine := !e.started && !f.shutdown && f.entries[k] == e
	if mine {
		f.startLocked(ctx, e)
	}
	f.mu.Unlock()
	<-ctx.Done()
	if mine {
		f.remove(k, e)
	}
}

// remove stops the informer of k and drops it from the factory (see
// RemoveInformer); when want is not nil, only if that is still k's entry, so
// that RunInformer never removes a fresh informer that replaced its own.
func (f *Factory) remove(k typeKey, want *entry) bool {
	f.mu.Lock()
	e, ok := f.entries[k]
	ok = ok && (want == nil || e == want)
	if ok {
		delete(f.entries, k)
		f.order = slices.DeleteFunc(f.order, func(o typeKey) bool { return o == k })
	}
	f.mu.Unlock()
	if !ok {
		if want != nil && want.stop != nil {
			// Already removed (or replaced): make sure it stopped.
			<-want.stopped
		}
		return false
	}
	if e.stop != nil {
		e.stop()
		<-e.stopped
	}
	return true
}
