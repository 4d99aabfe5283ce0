package reflector_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/internal/fifo"
	"github.com/informer-gen/informer-gen/runtime/internal/logctx"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

// A standalone Reflector names itself once under "resource"; inside a ctx
// that logctx.With marked with its name it adds nothing; inside one marked
// with another name it adds its own.
func TestReflectorLogKey(t *testing.T) {
	for _, tc := range []struct {
		name  string
		outer string // logctx.With applied before Run, "" for none
		want  string // the "resource" values each line must carry, in order
	}{
		{"standalone", "", `"resource"="cms"`},
		{"named by caller", "cms", `"resource"="cms"`},
		{"other name", "other", `"resource"="other" "resource"="cms"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var mu sync.Mutex
				var lines []string
				ctx := klog.NewContext(t.Context(), funcr.New(func(_, args string) {
					mu.Lock()
					lines = append(lines, args)
					mu.Unlock()
				}, funcr.Options{Verbosity: 10}))
				if tc.outer != "" {
					ctx = logctx.With(ctx, tc.outer)
				}
				src := runtimetest.NewSource[*corev1.ConfigMap](runtimetest.SourceOptions{})
				q := fifo.New(fifo.Options[*corev1.ConfigMap]{})
				r := reflector.New(src, reflector.Sink[*corev1.ConfigMap](q), reflector.Options{Name: "cms"})
				ctx, cancel := context.WithCancel(ctx)
				done := make(chan struct{})
				go func() { defer close(done); _ = r.Run(ctx) }()
				<-q.Synced()
				synctest.Wait()
				cancel()
				<-done
				mu.Lock()
				defer mu.Unlock()
				if len(lines) == 0 {
					t.Fatal("nothing logged")
				}
				for _, l := range lines {
					var got []string
					for _, f := range strings.Split(l, " ") {
						if strings.HasPrefix(f, `"resource"=`) {
							got = append(got, f)
						}
					}
					if g := strings.Join(got, " "); g != tc.want {
						t.Errorf("resource keys %s, want %s, in %s", g, tc.want, l)
					}
				}
			})
		})
	}
}
