package runtimetest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/store"
	"github.com/informer-gen/informer-gen/runtime/wire"
)

// Projection serves a Source's objects as P, a projection of the Source's
// kind T: a type informer-gen generates under projections/ (FooSummary of
// Foo) holding the kind's metadata and some of its fields. It implements
// reflector.ListerWatcher[P], so the projection's informer (a generated
// NewFooSummaryInformer, or the factory's through TypeOptions.ListerWatcher with the
// projection's Type) runs over the same Source as the kind's informer: one
// fake API server drives both caches, as one resource on a real server does.
//
// Every LIST item, watch event object and bookmark is the Source's T
// projected the way the runtime's wire decoder projects it: T is encoded as
// JSON, as the API server sends it, and decoded into a fresh P by
// runtime/wire's JSON codec (wire.NewJSON[P]), the decoder a projection's
// informer uses (a generated decoder gives the same results). Fields P lacks
// are dropped; the rest, metadata and resourceVersion included, are kept. A
// watch ERROR event (a Status) is passed on as is, and so is an object
// injected with Source.Inject that is not a T.
//
// The calls go to the Source: its Requests, Calls, FailNext and
// WaitForWatches count and affect them together with the kind's own, in
// arrival order. Safe for concurrent use.
type Projection[P store.Object[P], T store.Object[T]] struct {
	src *Source[T]

	mu     sync.Mutex
	codecs map[schema.GroupVersionKind]wire.Codec[P]
}

// Project returns the Projection of src's objects as P. The type of the
// projection is given, the kind's inferred from src:
//
//	summaries := runtimetest.Project[*projv1alpha1.FooSummary](foos)
func Project[P store.Object[P], T store.Object[T]](src *Source[T]) *Projection[P, T] {
	return &Projection[P, T]{src: src, codecs: map[schema.GroupVersionKind]wire.Codec[P]{}}
}

var _ reflector.ListerWatcher[*metav1.PartialObjectMetadata] = (*Projection[*metav1.PartialObjectMetadata, *metav1.PartialObjectMetadata])(nil)

// Project returns obj projected as P, as List and Watch project it.
func (p *Projection[P, T]) Project(obj T) (P, error) {
	var out P
	b, err := json.Marshal(obj)
	if err != nil {
		return out, fmt.Errorf("runtimetest: encoding %s as JSON: %w", store.Key(obj), err)
	}
	// The object is decoded as the one item of a LIST body, which keeps its
	// apiVersion and kind, if it has them, as the server sends them.
	gvk := obj.GetObjectKind().GroupVersionKind()
	body := make([]byte, 0, len(b)+12)
	body = append(append(append(body, `{"items":[`...), b...), "]}"...)
	codec, err := p.codec(gvk)
	if err != nil {
		return out, fmt.Errorf("runtimetest: projecting %s as %T: %w", store.Key(obj), out, err)
	}
	n := 0
	_, err = codec.DecodeList(bytes.NewReader(body), func(o P) error {
		out = o
		n++
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("runtimetest: projecting %s as %T: %w", store.Key(obj), out, err)
	}
	if n != 1 {
		return out, fmt.Errorf("runtimetest: projecting %s as %T gave %d objects", store.Key(obj), out, n)
	}
	return out, nil
}

func (p *Projection[P, T]) codec(gvk schema.GroupVersionKind) (wire.Codec[P], error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c, ok := p.codecs[gvk]
	if !ok {
		var err error
		if c, err = wire.NewJSON[P](gvk); err != nil {
			return nil, err
		}
		p.codecs[gvk] = c
	}
	return c, nil
}

// Snapshot returns every object of the Source, projected, by key: the state
// a converged projection cache must equal (compare with
// SameResourceVersions, or field by field).
func (p *Projection[P, T]) Snapshot() (map[string]P, error) {
	snap := p.src.Snapshot()
	out := make(map[string]P, len(snap))
	for k, o := range snap {
		po, err := p.Project(o)
		if err != nil {
			return nil, err
		}
		out[k] = po
	}
	return out, nil
}

// List serves a page of the Source's LIST (see Source), every item
// projected. It implements reflector.ListerWatcher[P].
func (p *Projection[P, T]) List(ctx context.Context, opts metav1.ListOptions) (*reflector.ListResult[P], error) {
	res, err := p.src.List(ctx, opts)
	if err != nil {
		return nil, err
	}
	out := &reflector.ListResult[P]{
		ResourceVersion:    res.ResourceVersion,
		Continue:           res.Continue,
		RemainingItemCount: res.RemainingItemCount,
		Items:              make([]P, len(res.Items)),
	}
	for n, o := range res.Items {
		if out.Items[n], err = p.Project(o); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Watch opens a watch of the Source (see Source) whose event objects are
// projected. A T that cannot be projected ends the watch with an ERROR
// event, as an undecodable event ends a real one. It implements
// reflector.ListerWatcher[P].
func (p *Projection[P, T]) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	inner, err := p.src.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	w := &projectedWatch[P, T]{inner: inner, project: p.Project, result: make(chan watch.Event), stopped: make(chan struct{})}
	go w.run()
	return w, nil
}

// projectedWatch passes a Source's watch events on, their objects
// projected, from one goroutine that exits when the inner watch ends or
// Stop is called.
type projectedWatch[P store.Object[P], T store.Object[T]] struct {
	inner    watch.Interface
	project  func(T) (P, error)
	result   chan watch.Event
	stopOnce sync.Once
	stopped  chan struct{}
}

// Stop implements watch.Interface. It is idempotent.
func (w *projectedWatch[P, T]) Stop() {
	w.stopOnce.Do(func() {
		close(w.stopped)
		w.inner.Stop()
	})
}

// ResultChan implements watch.Interface.
func (w *projectedWatch[P, T]) ResultChan() <-chan watch.Event { return w.result }

func (w *projectedWatch[P, T]) run() {
	defer close(w.result)
	for ev := range w.inner.ResultChan() {
		failed := false
		if obj, ok := ev.Object.(T); ok && ev.Type != watch.Error {
			po, err := w.project(obj)
			if err != nil {
				st := metav1.Status{Status: metav1.StatusFailure, Code: 500, Reason: metav1.StatusReasonInternalError, Message: err.Error()}
				ev, failed = watch.Event{Type: watch.Error, Object: &st}, true
			} else {
				ev.Object = po
			}
		}
		select {
		case w.result <- ev:
		case <-w.stopped:
			return
		}
		if failed {
			w.Stop()
			return
		}
	}
}
