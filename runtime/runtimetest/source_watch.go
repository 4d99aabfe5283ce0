package runtimetest

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"
)

// A Source's WATCH: history replay from a resourceVersion, WatchList
// (initial events and their bookmark), bookmarks and selectors.

// bookmark returns a BOOKMARK object: an empty T carrying only rv (and the
// initial-events-end annotation when end is set), as the server sends.
func (s *Source[T]) bookmark(rv int64, end bool) T {
	var zero T
	obj := reflect.New(reflect.TypeOf(zero).Elem()).Interface().(T)
	obj.SetResourceVersion(strconv.FormatInt(rv, 10))
	if end {
		obj.SetAnnotations(map[string]string{metav1.InitialEventsAnnotationKey: "true"})
	}
	return obj
}

// Watch opens a watch. See Source for the semantics. The watch's goroutine
// ends, and its ResultChan closes, when Stop is called, ctx ends, the
// TimeoutSeconds elapse, or the source drops or expires it.
// It implements reflector.ListerWatcher[T].
func (s *Source[T]) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.recordLocked(verbWatch, opts); err != nil {
		return nil, err
	}
	sel, err := newSelector(opts)
	if err != nil {
		return nil, err
	}
	var initial []watch.Event
	live := true
	gk := schema.GroupKind{Group: s.resource.Group, Kind: s.resource.Resource}
	if opts.ResourceVersionMatch != "" && opts.SendInitialEvents == nil {
		return nil, apierrors.NewInvalid(gk, "", field.ErrorList{field.Forbidden(field.NewPath("resourceVersionMatch"),
			"resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided")})
	}
	switch {
	case opts.SendInitialEvents != nil && *opts.SendInitialEvents:
		if s.refuseWL {
			return nil, apierrors.NewInvalid(gk, "", field.ErrorList{field.Forbidden(field.NewPath("sendInitialEvents"),
				"sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled")})
		}
		if opts.ResourceVersionMatch != metav1.ResourceVersionMatchNotOlderThan || !opts.AllowWatchBookmarks {
			return nil, apierrors.NewInvalid(gk, "", field.ErrorList{field.Forbidden(field.NewPath("resourceVersionMatch"),
				"sendInitialEvents requires setting resourceVersionMatch to NotOlderThan and allowWatchBookmarks")})
		}
		for _, o := range filter(s.sortedLocked(), sel) {
			initial = append(initial, watch.Event{Type: watch.Added, Object: o.DeepCopy()})
		}
		initial = append(initial, watch.Event{Type: watch.Bookmark, Object: s.bookmark(s.rv, true)})
	case opts.ResourceVersion == "" || opts.ResourceVersion == "0":
		if opts.SendInitialEvents != nil {
			break // sendInitialEvents=false: from now, without the current state
		}
		for _, o := range filter(s.sortedLocked(), sel) {
			initial = append(initial, watch.Event{Type: watch.Added, Object: o.DeepCopy()})
		}
	default:
		from, perr := strconv.ParseInt(opts.ResourceVersion, 10, 64)
		if perr != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid resourceVersion %q", opts.ResourceVersion))
		}
		if from < s.logStart {
			st := s.expired(fmt.Sprintf("too old resource version: %d (%d)", from, s.logStart)).Status()
			initial = []watch.Event{{Type: watch.Error, Object: &st}}
			live = false
			break
		}
		for _, e := range s.log {
			if e.rv <= from {
				continue
			}
			if t, ok := sel.event(e.typ, e.obj, e.prev); ok {
				initial = append(initial, watch.Event{Type: t, Object: e.obj.DeepCopy()})
			}
		}
	}
	var timeout time.Duration
	if opts.TimeoutSeconds != nil && *opts.TimeoutSeconds > 0 {
		timeout = time.Duration(*opts.TimeoutSeconds) * time.Second
	}
	w := newFakeWatch(initial, sel, opts.AllowWatchBookmarks, !live, func(w *fakeWatch) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if _, ok := s.watches[w]; ok {
			delete(s.watches, w)
			s.watchesChangedLocked(false)
		}
	})
	if live {
		s.watches[w] = struct{}{}
		s.watchesChangedLocked(false)
	}
	go w.pump(ctx, timeout)
	return w, nil
}
