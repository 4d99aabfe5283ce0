package listwatch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/wire"
)

// streamWatch adapts a wire.WatchDecoder over a WATCH response body to
// watch.Interface. One goroutine reads the body and sends the events; it
// closes ResultChan when it returns, which it does when the body ends, on an
// unrecoverable decode error (after one MalformedObject event), on a read
// error, or after Stop (which closes the body).
type streamWatch[T any] struct {
	result chan watch.Event
	done   chan struct{}
	stop   sync.Once
	body   io.Closer
}

var _ watch.Interface = (*streamWatch[runtime.Object])(nil)

func newStreamWatch[T any](ctx context.Context, where string, body io.ReadCloser, dec wire.WatchDecoder[T]) *streamWatch[T] {
	w := &streamWatch[T]{result: make(chan watch.Event), done: make(chan struct{}), body: body}
	go w.run(ctx, where, dec)
	return w
}

// Stop implements watch.Interface: it closes the body, which ends the
// reading goroutine; ResultChan closes once it has returned. Safe to call
// more than once and from any goroutine.
func (w *streamWatch[T]) Stop() {
	w.stop.Do(func() {
		close(w.done)
		w.body.Close()
	})
}

// ResultChan implements watch.Interface.
func (w *streamWatch[T]) ResultChan() <-chan watch.Event { return w.result }

func (w *streamWatch[T]) send(ev watch.Event) bool {
	select {
	case w.result <- ev:
		return true
	case <-w.done:
		return false
	}
}

func (w *streamWatch[T]) run(ctx context.Context, where string, dec wire.WatchDecoder[T]) {
	defer close(w.result)
	defer w.body.Close()
	logger := klog.FromContext(ctx)
	for {
		ev, err := dec.Next()
		if err != nil {
			select {
			case <-w.done:
				return // Stop closed the body: whatever the error, it is ours
			default:
			}
			var de *wire.DecodeError
			switch {
			case errors.Is(err, io.EOF):
				logger.V(5).Info("watch stream ended", "where", where)
				return
			case errors.As(err, &de):
				// The reflector reports it (naming key and resourceVersion),
				// does not apply it and ends the watch; the type is unknown,
				// so any of ADDED/MODIFIED/DELETED would do.
				if !w.send(watch.Event{Type: watch.Modified, Object: &reflector.MalformedObject{Err: fmt.Errorf("watch %s: %w", where, err)}}) || !de.Recoverable {
					return
				}
				continue
			default:
				// A broken connection or a cancelled ctx: the reflector
				// watches again from the last resourceVersion it saw.
				if ctx.Err() == nil {
					logger.V(2).Info("watch stream broken", "where", where, "err", err)
				}
				return
			}
		}
		var out watch.Event
		if ev.Type == watch.Error {
			out = watch.Event{Type: watch.Error, Object: ev.Status}
		} else {
			obj, ok := any(ev.Object).(runtime.Object)
			if !ok {
				obj = &reflector.MalformedObject{Err: fmt.Errorf("watch %s: decoded %T, not a runtime.Object", where, ev.Object)}
			}
			out = watch.Event{Type: ev.Type, Object: obj}
		}
		if !w.send(out) {
			return
		}
	}
}
