package runtimetest

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/store"
)

// Label and field selectors as a Source applies them to LIST and WATCH.

// selector is the label and field selector of a request; the zero value
// matches everything. Fields are metadata.name and metadata.namespace.
type selector struct {
	labels labels.Selector
	fields fields.Selector
}

func newSelector(opts metav1.ListOptions) (selector, error) {
	var sel selector
	var err error
	if opts.LabelSelector != "" {
		if sel.labels, err = labels.Parse(opts.LabelSelector); err != nil {
			return sel, apierrors.NewBadRequest(fmt.Sprintf("invalid label selector %q: %v", opts.LabelSelector, err))
		}
	}
	if opts.FieldSelector != "" {
		if sel.fields, err = fields.ParseSelector(opts.FieldSelector); err != nil {
			return sel, apierrors.NewBadRequest(fmt.Sprintf("invalid field selector %q: %v", opts.FieldSelector, err))
		}
	}
	return sel, nil
}

func (sel selector) all() bool { return sel.labels == nil && sel.fields == nil }

func (sel selector) matches(o metav1.Object) bool {
	if sel.labels != nil && !sel.labels.Matches(labels.Set(o.GetLabels())) {
		return false
	}
	return sel.fields == nil || sel.fields.Matches(fields.Set{"metadata.name": o.GetName(), "metadata.namespace": o.GetNamespace()})
}

// event is e as a watch with sel sees it: an object that starts matching is
// ADDED, one that stops matching is DELETED, as on the API server.
func (sel selector) event(typ watch.EventType, obj, prev metav1.Object) (watch.EventType, bool) {
	if sel.all() {
		return typ, true
	}
	now := sel.matches(obj)
	if typ != watch.Modified {
		return typ, now
	}
	switch before := sel.matches(prev); {
	case before && now:
		return watch.Modified, true
	case now:
		return watch.Added, true
	case before:
		return watch.Deleted, true
	}
	return "", false
}

func filter[T store.Object[T]](objs []T, sel selector) []T {
	if sel.all() {
		return objs
	}
	var out []T
	for _, o := range objs {
		if sel.matches(o) {
			out = append(out, o)
		}
	}
	return out
}
