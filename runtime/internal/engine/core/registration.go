package core

import "time"

// Registration is informer.Registration's core (the handle AddHandler
// returns; informer.Registration is a defined type over it). Its methods are safe for
// concurrent use.
type Registration struct {
	owner interface {
		LastError() error
	}
	name    string // "<informer> handler <id>", for errors and metrics
	id      int    // the handler's number in its informer, from 1, for logs
	synced  chan struct{}
	stopped chan struct{} // set by the listener
	backlog func() (int, time.Time)
	tracked bool // the informer has Options.Metrics
}

// BacklogTracked reports whether Backlog is tracked (Options.Metrics set).
func (r *Registration) BacklogTracked() bool { return r.tracked }

// Backlog returns how many notifications are queued for the handler and not
// yet delivered, and when the oldest of them was queued (more precisely: the
// first of the batch being delivered; zero when none). It is only tracked
// when the informer has Options.Metrics: otherwise it returns 0 and the zero
// time. Safe for concurrent use.
func (r *Registration) Backlog() (n int, oldest time.Time) {
	if r.backlog == nil {
		return 0, time.Time{}
	}
	return r.backlog()
}

// HasSynced reports whether the handler has processed the initial list:
// every OnAdd of the informer's initial list, or for a handler added later,
// of the synthetic adds for what was cached.
func (r *Registration) HasSynced() bool {
	select {
	case <-r.synced:
		return true
	default:
		return false
	}
}

// Synced returns a channel closed when HasSynced becomes true.
func (r *Registration) Synced() <-chan struct{} { return r.synced }

// LastError returns the informer's LastError.
func (r *Registration) LastError() error { return r.owner.LastError() }

// Name names the registration in errors: "<informer> handler <n>".
func (r *Registration) Name() string { return r.name }

// Stopped returns a channel closed when the handler's goroutine has exited
// (after RemoveHandler, or once Run stops it), after which the handler is
// never called again.
func (r *Registration) Stopped() <-chan struct{} { return r.stopped }
