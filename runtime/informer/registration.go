package informer

import (
	"time"

	"github.com/informer-gen/informer-gen/runtime/internal/engine/core"
)

// Registration is the handle AddHandler returns: one handler's place in its
// informer. Its methods are safe for concurrent use.
type Registration core.Registration

func (r *Registration) r() *core.Registration { return (*core.Registration)(r) }

// registrations converts the core's registrations.
func registrations(rs []*core.Registration) []*Registration {
	out := make([]*Registration, len(rs))
	for n, r := range rs {
		out[n] = (*Registration)(r)
	}
	return out
}

// BacklogTracked reports whether Backlog is tracked (Options.Metrics set).
func (r *Registration) BacklogTracked() bool { return r.r().BacklogTracked() }

// Backlog returns how many notifications are queued for the handler and not
// yet delivered, and when the oldest of them was queued (more precisely: the
// first of the batch being delivered; zero when none). Each holds 24 bytes
// and no copy of an object (see the package doc). It is only tracked when
// the informer has Options.Metrics: otherwise it returns 0 and the zero
// time.
func (r *Registration) Backlog() (n int, oldest time.Time) { return r.r().Backlog() }

// HasSynced reports whether the handler has processed the initial list:
// every OnAdd of the informer's initial list, or for a handler added later,
// of the synthetic adds for what was cached.
func (r *Registration) HasSynced() bool { return r.r().HasSynced() }

// Synced returns a channel closed when HasSynced becomes true.
func (r *Registration) Synced() <-chan struct{} { return r.r().Synced() }

// LastError returns the informer's LastError.
func (r *Registration) LastError() error { return r.r().LastError() }

// Name names the registration in errors: "<informer> handler <n>".
func (r *Registration) Name() string { return r.r().Name() }

// Stopped returns a channel closed when the handler's goroutine has exited
// (after RemoveHandler, or once Run stops it), after which the handler is
// never called again.
func (r *Registration) Stopped() <-chan struct{} { return r.r().Stopped() }
