package core

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// What an informer reports about itself: whether it has synced, the
// Reflectors' last error and resourceVersion.

// HasSynced reports whether the informer has synced: the cache holds the
// initial list (the FIFO's initial population has been applied) and the
// server has accepted a watch after it, in every namespace of a
// multi-namespace informer (see reflector.Reflector.HasSynced). So a
// client that may list but not watch (RBAC) is never synced, and LastError
// names the watch it was refused. Handlers may still be delivering the
// list: use Registration.HasSynced for a handler's view. It stays true once
// true.
func (i *Shared) HasSynced() bool {
	select {
	case <-i.synced:
		return true
	default:
		return false
	}
}

// Synced returns a channel closed when HasSynced becomes true.
func (i *Shared) Synced() <-chan struct{} { return i.synced }

// LastError returns the Reflector's last list/watch error (a 403 on LIST,
// say), or nil once a later list or watch has succeeded. With several
// namespaces (NewMultiNamespace) it joins the last error of each namespace
// that has one, each wrapped as `namespace "a": ...` (errors.As and
// apierrors.IsForbidden see through both).
func (i *Shared) LastError() error {
	if i.namespaces == nil {
		return i.reflectors[0].LastError()
	}
	var errs []error
	for n, r := range i.reflectors {
		if err := r.LastError(); err != nil {
			errs = append(errs, fmt.Errorf("namespace %q: %w", i.namespaces[n], err))
		}
	}
	return errors.Join(errs...)
}

// LastSyncResourceVersion returns the resourceVersion of the last list,
// event or bookmark the Reflector saw ("" before the first list). It may be
// ahead of what the cache has applied (the FIFO holds what lies between):
// to know what a Lister returns, use LastStoreSyncResourceVersion. With
// several namespaces each has its own, and it returns them as
// "a=RV,b=RV" in the order of the sources: for logs, not for a LIST.
func (i *Shared) LastSyncResourceVersion() string {
	if i.namespaces == nil {
		return i.reflectors[0].LastSyncResourceVersion()
	}
	var b strings.Builder
	for n, r := range i.reflectors {
		if n > 0 {
			b.WriteByte(',')
		}
		b.WriteString(i.namespaces[n])
		b.WriteByte('=')
		b.WriteString(r.LastSyncResourceVersion())
	}
	return b.String()
}

// LastStoreSyncResourceVersion returns the resourceVersion of the last list,
// event or bookmark applied to the cache ("" before the first): never ahead
// of what a Lister returns, so a read made after it returned r sees every
// change the server made up to r. For a multi-namespace informer it is the
// oldest of the namespaces' ("" until each has one, or when two are not
// comparable); Cache().NamespaceResourceVersion gives each. This is
// client-go's Store.LastStoreSyncResourceVersion, which KEP-5647's
// consumers read. See cache.Cache.ResourceVersion.
func (i *Shared) LastStoreSyncResourceVersion() string { return i.indexer.ResourceVersion() }

// WaitForResourceVersion blocks until the cache has applied resourceVersion
// rv for namespace ns ("" or any namespace for an informer over all
// namespaces; a multi-namespace informer waits for that namespace's, or for
// every namespace's when ns is ""), or until ctx ends (then it returns ctx's
// error). No goroutine, no polling: the pop loop's write that reaches rv
// wakes it. rv not comparable (store.ErrNotComparable) or a namespace the
// informer does not watch (store.ErrUnknownNamespace) are errors at once.
// See cache.Cache.WaitForResourceVersion.
func (i *Shared) WaitForResourceVersion(ctx context.Context, ns, rv string) error {
	return i.indexer.WaitForResourceVersion(ctx, ns, rv)
}
