package store_test

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informer-gen/informer-gen/runtime/store"
)

var podsResource = schema.GroupResource{Resource: "pods"}

func TestListerNamespaced(t *testing.T) {
	w := store.New(store.Options[*corev1.Pod]{Indexers: store.Indexers[*corev1.Pod]{"node": byNode}})
	for _, p := range []*corev1.Pod{
		pod("a", "x", "n1", map[string]string{"app": "web"}),
		pod("a", "y", "n2", map[string]string{"app": "db"}),
		pod("b", "x", "n1", map[string]string{"app": "web"}),
	} {
		w.Set(store.Key(p), p)
	}
	l := store.NewLister(w.Indexer(), podsResource)
	web := labels.SelectorFromSet(labels.Set{"app": "web"})

	if got, err := l.List(web); err != nil || !equal(names(got), "a/x", "b/x") {
		t.Errorf("List(app=web) = %q, %v", names(got), err)
	}
	if got, err := l.ByIndex("node", "n1"); err != nil || !equal(names(got), "a/x", "b/x") {
		t.Errorf("ByIndex(node, n1) = %q, %v", names(got), err)
	}
	a := l.Namespace("a")
	if got, err := a.List(web); err != nil || !equal(names(got), "a/x") {
		t.Errorf("Namespace(a).List(app=web) = %q, %v", names(got), err)
	}
	if got, err := a.List(labels.Everything()); err != nil || !equal(names(got), "a/x", "a/y") {
		t.Errorf("Namespace(a).List(everything) = %q, %v", names(got), err)
	}
	if got, err := a.ByIndex("node", "n1"); err != nil || !equal(names(got), "a/x") {
		t.Errorf("Namespace(a).ByIndex(node, n1) = %q, %v", names(got), err)
	}
	if got, err := a.ByIndex(store.NamespaceIndex, "b"); err != nil || len(got) != 0 {
		t.Errorf("Namespace(a).ByIndex(namespace, b) = %q, %v", names(got), err)
	}
	if _, err := a.ByIndex("nope", "v"); !errors.Is(err, store.ErrUnknownIndex) {
		t.Errorf("Namespace(a).ByIndex(nope) err = %v", err)
	}
	if got, err := a.Get("y"); err != nil || store.Key(got) != "a/y" {
		t.Errorf("Namespace(a).Get(y) = %v, %v", got, err)
	}
	_, err := l.Namespace("b").Get("y")
	if !apierrors.IsNotFound(err) {
		t.Fatalf("Get of a missing object: err = %v, want NotFound", err)
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Details.Name != "y" || status.Status().Details.Kind != "pods" {
		t.Errorf("NotFound details = %+v, want name y resource pods", status.Status().Details)
	}
}

func TestListerClusterScoped(t *testing.T) {
	w := store.New(store.Options[*corev1.Node]{})
	n1 := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}
	w.Set(store.Key(n1), n1)
	l := store.NewLister(w.Indexer(), schema.GroupResource{Resource: "nodes"})
	if got, err := l.Get("n1"); err != nil || got != n1 {
		t.Errorf("Get(n1) = %v, %v", got, err)
	}
	if _, err := l.Get("n2"); !apierrors.IsNotFound(err) {
		t.Errorf("Get(n2) err = %v, want NotFound", err)
	}
}

func equal(got []string, want ...string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}
