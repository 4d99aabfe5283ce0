package store_test

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-gen/informer-gen/runtime/store"
)

func TestKey(t *testing.T) {
	ns := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}}
	cl := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}
	if got := store.Key(ns); got != "ns/a" {
		t.Errorf("Key(namespaced) = %q, want ns/a", got)
	}
	if got := store.Key(cl); got != "n1" {
		t.Errorf("Key(cluster) = %q, want n1", got)
	}
}

func TestSplitKey(t *testing.T) {
	for _, tc := range []struct {
		key, ns, name string
		wantErr       bool
	}{
		{key: "ns/a", ns: "ns", name: "a"},
		{key: "a", ns: "", name: "a"},
		{key: "", wantErr: true},
		{key: "/a", wantErr: true},
		{key: "ns/", wantErr: true},
		{key: "/", wantErr: true},
		{key: "a/b/c", wantErr: true},
	} {
		ns, name, err := store.SplitKey(tc.key)
		if (err != nil) != tc.wantErr {
			t.Errorf("SplitKey(%q) error = %v, want error %v", tc.key, err, tc.wantErr)
			continue
		}
		if err == nil && (ns != tc.ns || name != tc.name) {
			t.Errorf("SplitKey(%q) = %q, %q; want %q, %q", tc.key, ns, name, tc.ns, tc.name)
		}
		if err != nil && ns+name != "" {
			t.Errorf("SplitKey(%q) returned parts %q, %q with an error", tc.key, ns, name)
		}
	}
}

func TestValues(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{nil, nil},
		{[]string{""}, nil},
		{[]string{"a"}, []string{"a"}},
		{[]string{"", "a", "", "b"}, []string{"a", "b"}},
		{[]string{"a", "b"}, []string{"a", "b"}},
	} {
		if got := store.Values(tc.in...); !slices.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
			t.Errorf("Values(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestNamedAndPointerValues(t *testing.T) {
	type zone string
	a, empty := zone("a"), zone("")
	for _, tc := range []struct {
		name      string
		got, want []string
	}{
		{"Values[zone](nil)", store.Values[zone](), nil},
		{"Values(zones, empty only)", store.Values([]zone{""}...), nil},
		{"Values(zones, mixed)", store.Values([]zone{"", "a", "b"}...), []string{"a", "b"}},
		{"Values(zones, none empty)", store.Values([]zone{"a", "b"}...), []string{"a", "b"}},
		{"Values(one zone)", store.Values(a), []string{"a"}},
		{"PointerValues(nil)", store.PointerValues[zone](nil), nil},
		{"PointerValues(nil and empty)", store.PointerValues([]*zone{nil, &empty}), nil},
		{"PointerValues(mixed)", store.PointerValues([]*zone{nil, &a, &empty, &a}), []string{"a", "a"}},
	} {
		if !slices.Equal(tc.got, tc.want) || (tc.got == nil) != (tc.want == nil) {
			t.Errorf("%s = %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}
