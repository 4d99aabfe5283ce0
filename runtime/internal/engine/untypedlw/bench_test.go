package untypedlw_test

import (
	"context"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/internal/cache"
	"github.com/informer-gen/informer-gen/runtime/internal/engine/untypedlw"
	"github.com/informer-gen/informer-gen/runtime/internal/listpage"
	"github.com/informer-gen/informer-gen/runtime/reflector"
)

// pages serves objs in pages of opts.Limit, as slices of objs (no copy).
type pages struct{ objs []*corev1.ConfigMap }

func (p pages) List(_ context.Context, opts metav1.ListOptions) (*reflector.ListResult[*corev1.ConfigMap], error) {
	from, _ := strconv.Atoi(opts.Continue)
	to := min(from+int(opts.Limit), len(p.objs))
	res := &reflector.ListResult[*corev1.ConfigMap]{Items: p.objs[from:to:to], ResourceVersion: "1"}
	if to < len(p.objs) {
		res.Continue = strconv.Itoa(to)
		rest := int64(len(p.objs) - to)
		res.RemainingItemCount = &rest
	}
	return res, nil
}

func (pages) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) {
	return watch.NewEmptyWatch(), nil
}

// BenchmarkCollectList collects a LIST of 100k objects in pages of 500 into
// one []cache.Obj, as the Reflector does: through List (a []cache.Obj per
// page, then appended) and through AppendList (appended as converted).
// ns/op and B/op are per LIST.
func BenchmarkCollectList(b *testing.B) {
	objs := make([]*corev1.ConfigMap, 100_000)
	for i := range objs {
		objs[i] = cm(strconv.Itoa(i))
	}
	lw := untypedlw.New[*corev1.ConfigMap](pages{objs})
	ctx := context.Background()
	b.Run("via=List", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			opts := metav1.ListOptions{Limit: 500}
			var items []cache.Obj
			for {
				res, _ := lw.List(ctx, opts)
				items = append(listpage.Reserve(items, len(res.Items), listpage.Page{Continue: res.Continue, RemainingItemCount: res.RemainingItemCount}), res.Items...)
				if res.Continue == "" {
					break
				}
				opts.Continue = res.Continue
			}
			if len(items) != len(objs) {
				b.Fatalf("%d items", len(items))
			}
		}
	})
	b.Run("via=AppendList", func(b *testing.B) {
		app := lw.(listpage.Appender[cache.Obj])
		b.ReportAllocs()
		for b.Loop() {
			opts := metav1.ListOptions{Limit: 500}
			var items []cache.Obj
			for {
				next, p, _, _ := app.AppendList(ctx, opts, items)
				items = next
				if p.Continue == "" {
					break
				}
				opts.Continue = p.Continue
			}
			if len(items) != len(objs) {
				b.Fatalf("%d items", len(items))
			}
		}
	})
}
