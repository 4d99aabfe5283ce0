package informer

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Syncable is anything WaitForCacheSync can wait for: informers and registrations.
type Syncable interface {
	Synced() <-chan struct{}
	LastError() error
}

// WaitForCacheSync blocks until every s has synced (nil) or ctx ends; then it
// returns a *NotSyncedError naming the unsynced ones (by their Name method if
// they have one) and wrapping their LastError (for example a 403 on LIST, so
// apierrors.IsForbidden(err) holds) as well as ctx's error, rather than a
// bare timeout. It does not poll: it waits on the Synced channels.
func WaitForCacheSync(ctx context.Context, s ...Syncable) error {
	for _, x := range s {
		select {
		case <-x.Synced():
			continue
		case <-ctx.Done():
		}
		break
	}
	var e NotSyncedError
	for n, x := range s {
		select {
		case <-x.Synced():
			continue
		default:
		}
		name := fmt.Sprintf("%T #%d", x, n)
		if nx, ok := x.(interface{ Name() string }); ok {
			name = nx.Name()
		}
		e.Names = append(e.Names, name)
		if err := x.LastError(); err != nil && !slices.ContainsFunc(e.LastErrors, func(o error) bool { return o == err }) {
			e.LastErrors = append(e.LastErrors, err)
		}
	}
	if len(e.Names) == 0 {
		return nil
	}
	e.Cause = ctx.Err()
	return &e
}

// NotSyncedError is WaitForCacheSync's error. It unwraps to every LastError
// and to Cause, so errors.Is(err, context.DeadlineExceeded) and
// apierrors.IsForbidden(err) work on it.
type NotSyncedError struct {
	// Names of what had not synced, in the order given.
	Names []string
	// LastErrors are the distinct LastError values of those, if any.
	LastErrors []error
	// Cause is the error of the context that ended the wait.
	Cause error
}

// Error reads "caches not synced for a, b: last error: <errors> (<cause>)".
func (e *NotSyncedError) Error() string {
	var b strings.Builder
	b.WriteString("caches not synced for ")
	b.WriteString(strings.Join(e.Names, ", "))
	if len(e.LastErrors) > 0 {
		b.WriteString(": last error: ")
		for n, err := range e.LastErrors {
			if n > 0 {
				b.WriteString("; ")
			}
			b.WriteString(err.Error())
		}
		b.WriteString(" (")
		b.WriteString(fmt.Sprint(e.Cause))
		b.WriteString(")")
	} else {
		b.WriteString(": ")
		b.WriteString(fmt.Sprint(e.Cause))
	}
	return b.String()
}

// Unwrap returns the LastErrors and Cause.
func (e *NotSyncedError) Unwrap() []error {
	out := slices.Clone(e.LastErrors)
	if e.Cause != nil {
		out = append(out, e.Cause)
	}
	return out
}
