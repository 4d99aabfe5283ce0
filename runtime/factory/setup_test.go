package factory_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"

	lwt "github.com/informer-gen/informer-gen/internal/listwatchtest"
	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/reflector"
)

// unreachable is a rest.Config nothing listens at: a set-up mistake must be
// reported before any request.
var unreachable = &rest.Config{Host: "https://127.0.0.1:1"}

// checkFailsAtOnce starts f (whose informers were created by the caller,
// one of them with a set-up mistake), then checks that WaitForCacheSync,
// with a ctx that never ends, returns at once (no fake time passes: no
// backoff, no wait for the other informers) one error wrapping
// factory.ErrSetup and containing each of want; that the mistake is logged
// once and never retried, however long the informer runs; and that
// LastError of the failing informer (by name) reports it.
func checkFailsAtOnce(t *testing.T, f *factory.Factory, failing string, want ...string) {
	t.Helper()
	var logs logLines
	ctx, cancel := context.WithCancel(logs.context(t.Context()))
	defer cancel()
	f.Start(ctx)
	start := time.Now()
	err := f.WaitForCacheSync(ctx) // ctx has no deadline
	if waited := time.Since(start); waited != 0 {
		t.Errorf("WaitForCacheSync returned after %v of (fake) time, want at once", waited)
	}
	if !errors.Is(err, factory.ErrSetup) {
		t.Fatalf("WaitForCacheSync = %v, want an error wrapping factory.ErrSetup", err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("WaitForCacheSync = %q, want it to say %q", err, w)
		}
	}
	time.Sleep(time.Hour) // an hour of retries would show in the log
	synctest.Wait()
	var errorLines []string
	for _, l := range logs.all() {
		if strings.Contains(l, `"error"=`) {
			errorLines = append(errorLines, l)
		}
	}
	if len(errorLines) != 1 {
		t.Errorf("%d error lines in an hour, want the mistake logged once:\n%s", len(errorLines), strings.Join(errorLines, "\n"))
	}
	var found bool
	for _, g := range f.Informers() {
		if g.Informer().Name() != failing {
			continue
		}
		found = true
		if last := g.Informer().LastError(); !errors.Is(last, factory.ErrSetup) {
			t.Errorf("%s: LastError = %v, want the set-up mistake", failing, last)
		}
	}
	if !found {
		t.Errorf("no informer named %s", failing)
	}
	cancel()
	f.Shutdown()
}

// No rest.Config and no ListerWatcher for a type: WaitForCacheSync fails at
// once, though another informer (with a source that never answers) would
// keep it waiting.
func TestSetupMistakeNoConfigFailsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		opts := factory.Options{}
		opts.Types = append(opts.Types, factory.TypeOptions[*WidgetSummary]{Type: WidgetSummaryType, ListerWatcher: reflector.ListerWatcher[*WidgetSummary](silentLW[*WidgetSummary]{})})
		f := factory.New(nil, opts)
		factory.InformerFor(f, WidgetSummaryType) // never syncs
		factory.InformerFor(f, WidgetType)        // cannot be built
		name := "widgets.v1.test.informer-gen.dev"
		checkFailsAtOnce(t, f, name, name, "no rest.Config", "TypeOptions.ListerWatcher")
	})
}

// The issue as a user met it: a projection's informer with no ListerWatcher
// and no rest.Config, and WaitForCacheSync without a deadline.
func TestSetupMistakeProjectionWithoutSourceFailsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := factory.New(nil, factory.Options{})
		factory.InformerFor(f, WidgetSummaryType)
		checkFailsAtOnce(t, f, summaryName, summaryName, "no rest.Config")
	})
}

// A type its group-version's AddToScheme does not register: fails at once,
// naming the Go type and the group-version.
func TestSetupMistakeTypeNotInSchemeFailsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		typ := WidgetType
		typ.AddToScheme = func(*runtime.Scheme) error { return nil } // registers nothing
		f := factory.New(unreachable, factory.Options{})
		factory.InformerFor(f, typ)
		name := "widgets.v1.test.informer-gen.dev"
		checkFailsAtOnce(t, f, name, name, "*listwatchtest.Widget is not registered in group-version "+lwt.GVR.GroupVersion().String())
	})
}

// A projection's Type without Kind: fails at once, naming the projection
// and the missing Type.Kind.
func TestSetupMistakeProjectionWithoutKindFailsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		typ := WidgetSummaryType
		typ.Kind = ""
		f := factory.New(unreachable, factory.Options{})
		factory.InformerFor(f, typ)
		checkFailsAtOnce(t, f, summaryName, summaryName, "has no Type.Kind")
	})
}

// silentLW is a source that never answers: its calls wait for their ctx.
type silentLW[T any] struct{}

func (silentLW[T]) List(ctx context.Context, _ metav1.ListOptions) (*reflector.ListResult[T], error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (silentLW[T]) Watch(ctx context.Context, _ metav1.ListOptions) (watch.Interface, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}
