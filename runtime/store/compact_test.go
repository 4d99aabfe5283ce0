package store_test

import (
	"encoding/json"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-gen/informer-gen/runtime/store"
)

// decoded returns a freshly decoded copy, so no string is shared with src.
func decoded(t *testing.T, src *corev1.Pod) *corev1.Pod {
	t.Helper()
	b, err := json.Marshal(src)
	if err != nil {
		t.Fatal(err)
	}
	var p corev1.Pod
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	return &p
}

func sameData(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }

func TestCompact(t *testing.T) {
	src := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Namespace:     "team-a",
		Name:          "p",
		Labels:        map[string]string{"app": "web", "tier": "frontend"},
		Annotations:   map[string]string{"note": "hello"},
		Finalizers:    []string{"example.com/cleanup"},
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply}},
		OwnerReferences: []metav1.OwnerReference{
			{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "u1"},
		},
	}}
	a, b := decoded(t, src), decoded(t, src)
	if sameData(a.Namespace, b.Namespace) {
		t.Fatal("test setup: decoded copies already share strings")
	}
	want := decoded(t, src)
	want.ManagedFields = nil

	for _, p := range []*corev1.Pod{a, b} {
		if got := store.Compact(p); got != p {
			t.Fatal("Compact did not return its argument")
		}
	}
	aj, _ := json.Marshal(a)
	wj, _ := json.Marshal(want)
	if string(aj) != string(wj) {
		t.Fatalf("Compact changed more than managedFields:\n got %s\nwant %s", aj, wj)
	}
	if a.ManagedFields != nil {
		t.Error("managedFields kept")
	}
	if !sameData(a.Namespace, b.Namespace) {
		t.Error("namespace not interned")
	}
	if !sameData(a.Labels["app"], b.Labels["app"]) {
		t.Error("label value not interned")
	}
	if !sameData(a.Finalizers[0], b.Finalizers[0]) {
		t.Error("finalizer not interned")
	}
	if !sameData(a.OwnerReferences[0].Kind, b.OwnerReferences[0].Kind) ||
		!sameData(a.OwnerReferences[0].APIVersion, b.OwnerReferences[0].APIVersion) {
		t.Error("owner reference kind/apiVersion not interned")
	}
	keyData := func(m map[string]string, k string) *byte {
		for mk := range m {
			if mk == k {
				return unsafe.StringData(mk)
			}
		}
		return nil
	}
	if keyData(a.Labels, "tier") != keyData(b.Labels, "tier") {
		t.Error("label key not interned")
	}
	if keyData(a.Annotations, "note") != keyData(b.Annotations, "note") {
		t.Error("annotation key not interned")
	}
	if sameData(a.Annotations["note"], b.Annotations["note"]) {
		t.Error("annotation value interned; values are meant to stay as decoded")
	}
}
