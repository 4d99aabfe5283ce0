package listwatch_test

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/util/watchlist"

	"github.com/informer-gen/informer-gen/runtime/listwatch"
)

// fakeClientset has the marker method exactly as client-gen's fake
// clientsets (and k8s.io/client-go/kubernetes/fake.Clientset) declare it; the
// fakes themselves would pull their dependencies into the root module.
type fakeClientset struct{}

func (fakeClientset) IsWatchListSemanticsUnSupported() bool { return true }

type supportsWatchList struct{}

func (supportsWatchList) IsWatchListSemanticsUnSupported() bool { return false }

// TestFuncsPassesWatchListMarker: Funcs over a client-go fake clientset
// reports the fake's "no WatchList" marker under client-go's own method name (client-go's
// watchlist package sees it), and reports nothing for other clients.
func TestFuncsPassesWatchListMarker(t *testing.T) {
	obj := metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", ResourceVersion: "7"}}
	cs := fakeClientset{}
	list := func(context.Context, metav1.ListOptions) (*metav1.PartialObjectMetadataList, error) {
		return &metav1.PartialObjectMetadataList{ListMeta: metav1.ListMeta{ResourceVersion: "7"}, Items: []metav1.PartialObjectMetadata{obj}}, nil
	}
	watchFn := func(context.Context, metav1.ListOptions) (watch.Interface, error) { return watch.NewEmptyWatch(), nil }
	newFuncs := func(client any) listwatch.Funcs[*metav1.PartialObjectMetadata, *metav1.PartialObjectMetadataList] {
		return listwatch.Funcs[*metav1.PartialObjectMetadata, *metav1.PartialObjectMetadataList]{
			ListFunc:  list,
			WatchFunc: watchFn,
			Items: func(l *metav1.PartialObjectMetadataList) []*metav1.PartialObjectMetadata {
				out := make([]*metav1.PartialObjectMetadata, len(l.Items))
				for i := range l.Items {
					out[i] = &l.Items[i]
				}
				return out
			},
			Client: client,
		}
	}
	tests := []struct {
		name   string
		client any
		want   bool
	}{
		{"client-go fake", cs, true},
		{"no client", nil, false},
		{"client without the marker", struct{}{}, false},
		{"client that supports WatchList", supportsWatchList{}, false},
	}
	for _, tt := range tests {
		lw := newFuncs(tt.client)
		if got := lw.IsWatchListSemanticsUnSupported(); got != tt.want {
			t.Errorf("%s: IsWatchListSemanticsUnSupported() = %v, want %v", tt.name, got, tt.want)
		}
		if got := watchlist.DoesClientNotSupportWatchListSemantics(lw); got != tt.want {
			t.Errorf("%s: client-go's DoesClientNotSupportWatchListSemantics = %v, want %v", tt.name, got, tt.want)
		}
	}

	// The marker changes nothing else: List and Watch still go to the funcs.
	res, err := newFuncs(cs).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 1 || res.Items[0].Name != "a" || res.ResourceVersion != "7" {
		t.Errorf("List through Funcs = %+v", res)
	}
	w, err := newFuncs(cs).Watch(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Stop()
}
