package informer

import (
	"errors"
	"fmt"
	"strings"
)

// What an informer reports about itself: whether it has synced, the
// Reflectors' last error and resourceVersion.

// HasSynced reports whether the cache holds the initial list (the FIFO's
// initial population has been applied). Handlers may still be delivering
// it: use Registration.HasSynced for a handler's view.
func (i *Shared) HasSynced() bool { return i.fifo.HasSynced() }

// Synced returns a channel closed when HasSynced becomes true.
func (i *Shared) Synced() <-chan struct{} { return i.fifo.Synced() }

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
// event or bookmark the Reflector saw ("" before the first list). With
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
