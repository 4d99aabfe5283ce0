package runtimetest

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-gen/informer-gen/runtime/reflector"
)

// A Source's LIST: resourceVersion semantics, paging with continue tokens
// over kept snapshots, and expiry, as an API server answers them.

// List serves one page of a LIST. See Source for the paging semantics.
// It implements reflector.ListerWatcher[T].
func (s *Source[T]) List(ctx context.Context, opts metav1.ListOptions) (*reflector.ListResult[T], error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.recordLocked(verbList, opts); err != nil {
		return nil, err
	}
	sel, err := newSelector(opts)
	if err != nil {
		return nil, err
	}
	var (
		snap   []T
		at     int64
		offset int
	)
	if opts.Continue != "" {
		at, offset, err = parseContinue(opts.Continue)
		if err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid continue token %q: %v", opts.Continue, err))
		}
		var ok bool
		snap, ok = s.pages[at]
		if !ok || at < s.compact {
			return nil, s.expired("the provided continue parameter is too old to display a consistent list result")
		}
	} else {
		if err := s.checkListRVLocked(opts); err != nil {
			return nil, err
		}
		at = s.rv
		snap = s.sortedLocked()
	}
	res := &reflector.ListResult[T]{ResourceVersion: strconv.FormatInt(at, 10)}
	// The snapshot is kept unfiltered; every page of one list carries the
	// same selector, so offsets into the filtered view are stable.
	view := filter(snap, sel)
	if offset > len(view) {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("continue token %q is past the end of the list", opts.Continue))
	}
	end := len(view)
	if opts.Limit > 0 && int64(end-offset) > opts.Limit {
		end = offset + int(opts.Limit)
		res.Continue = fmt.Sprintf("%d:%d", at, end)
		remaining := int64(len(view) - end)
		res.RemainingItemCount = &remaining
		s.keepPagesLocked(at, snap)
	}
	res.Items = make([]T, 0, end-offset)
	for _, o := range view[offset:end] {
		res.Items = append(res.Items, o.DeepCopy())
	}
	return res, nil
}

// checkListRVLocked applies the resourceVersion rules of a first-page LIST.
// The source always serves its current state, which satisfies "", "0" and
// NotOlderThan; an Exact match is served only at the current resourceVersion.
func (s *Source[T]) checkListRVLocked(opts metav1.ListOptions) error {
	if opts.ResourceVersion == "" || opts.ResourceVersion == "0" {
		return nil
	}
	rv, err := strconv.ParseInt(opts.ResourceVersion, 10, 64)
	if err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("invalid resourceVersion %q", opts.ResourceVersion))
	}
	if rv > s.rv {
		return apierrors.NewTimeoutError(fmt.Sprintf("Too large resource version: %d, current: %d", rv, s.rv), 1)
	}
	if opts.ResourceVersionMatch == metav1.ResourceVersionMatchExact && rv != s.rv {
		if rv < s.compact {
			return s.expired("the requested resourceVersion was compacted")
		}
		return apierrors.NewBadRequest("runtimetest.Source serves Exact lists only at the current resourceVersion")
	}
	return nil
}

// maxSnapshots bounds the snapshots kept for continue tokens; the oldest
// go first, and their tokens then get 410 Expired, as after a compaction.
const maxSnapshots = 8

func (s *Source[T]) keepPagesLocked(at int64, snap []T) {
	s.pages[at] = snap
	for len(s.pages) > maxSnapshots {
		oldest := at
		for rv := range s.pages {
			oldest = min(oldest, rv)
		}
		delete(s.pages, oldest)
	}
}

func parseContinue(tok string) (rv int64, offset int, err error) {
	a, b, ok := strings.Cut(tok, ":")
	if !ok {
		return 0, 0, fmt.Errorf("missing ':'")
	}
	if rv, err = strconv.ParseInt(a, 10, 64); err != nil {
		return 0, 0, err
	}
	offset, err = strconv.Atoi(b)
	return rv, offset, err
}

func (s *Source[T]) sortedLocked() []T {
	keys := make([]string, 0, len(s.objects))
	for k := range s.objects {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]T, len(keys))
	for i, k := range keys {
		out[i] = s.objects[k]
	}
	return out
}

func (s *Source[T]) expired(msg string) *apierrors.StatusError {
	return apierrors.NewResourceExpired(fmt.Sprintf("%s: %s", s.resource, msg))
}
