package factory_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/apimachinery/pkg/runtime"

	lwt "github.com/informer-gen/informer-gen/internal/listwatchtest"
	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
)

// The merge rule, field by field: the type's own TypeOptions, then (for a
// projection) its kind's, then Options, then the default. Each case sets
// one field at some layers and reads, from the requests the informer
// makes, which layer won.
func TestSettingsMergeFieldByField(t *testing.T) {
	str := func(s string) *string { return &s }
	type layers struct{ own, kind, factory *string }
	for _, c := range []struct {
		name       string
		projection bool
		label      layers
		want       string
	}{
		{name: "default", want: ""},
		{name: "factory option", label: layers{factory: str("f=1")}, want: "f=1"},
		{name: "type over factory", label: layers{own: str("t=1"), factory: str("f=1")}, want: "t=1"},
		{name: "type clears factory", label: layers{own: str(""), factory: str("f=1")}, want: ""},
		{name: "kind reaches its projection", projection: true, label: layers{kind: str("k=1"), factory: str("f=1")}, want: "k=1"},
		{name: "projection over its kind", projection: true, label: layers{own: str("p=1"), kind: str("k=1"), factory: str("f=1")}, want: "p=1"},
		{name: "factory reaches a projection", projection: true, label: layers{factory: str("f=1")}, want: "f=1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := lwt.NewServer(t)
			opts := factory.Options{HTTPClient: srv.HTTPClient()}
			if c.label.factory != nil {
				opts.LabelSelector = *c.label.factory
			}
			if c.projection {
				opts.Types = append(opts.Types, factory.TypeOptions[*lwt.Widget]{Type: WidgetType, LabelSelector: c.label.kind})
				opts.Types = append(opts.Types, factory.TypeOptions[*WidgetSummary]{Type: WidgetSummaryType, LabelSelector: c.label.own})
			} else {
				opts.Types = append(opts.Types, factory.TypeOptions[*lwt.Widget]{Type: WidgetType, LabelSelector: c.label.own})
			}
			f := factory.New(srv.Config(), opts)
			defer f.Shutdown()
			if c.projection {
				factory.InformerFor(f, WidgetSummaryType)
			} else {
				factory.InformerFor(f, WidgetType)
			}
			ctx := deadline(t)
			f.Start(ctx)
			if err := f.WaitForCacheSync(ctx); err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if len(reqs) == 0 {
				t.Fatal("no request reached the server")
			}
			for _, r := range reqs {
				if got := r.URL.Query().Get("labelSelector"); got != c.want {
					t.Errorf("request %v: labelSelector %q, want %q", r.URL.RawQuery, got, c.want)
				}
			}
		})
	}
}

// The typed fields: a type's own Transform replaces Options.Transform, and
// its Informer edit runs last, after the factory's settings (ResyncPeriod
// from the type, over the factory's).
func TestTypedSettingsReplaceTheFactorys(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := widget("ns", "a", "n1", nil)
		a.ResourceVersion = "1"
		typeResync, factoryResync := time.Hour, time.Minute
		var sawResync time.Duration
		opts := factory.Options{
			ResyncPeriod: factoryResync,
			Transform: func(o runtime.Object) (runtime.Object, error) {
				t.Error("Options.Transform ran although the type has its own")
				return o, nil
			},
			Types: []factory.TypeOverride{factory.TypeOptions[*lwt.Widget]{
				Type:          WidgetType,
				ResyncPeriod:  &typeResync,
				ListerWatcher: fakeLW{items: []*lwt.Widget{a}},
				Transform: func(w *lwt.Widget) (*lwt.Widget, error) {
					w.Annotations = map[string]string{"by": "type"}
					return w, nil
				},
				Informer: func(o *informer.Options[*lwt.Widget]) { sawResync = o.ResyncPeriod },
			}},
		}
		f := factory.New(nil, opts)
		defer f.Shutdown()
		inf := factory.InformerFor(f, WidgetType)
		if sawResync != typeResync {
			t.Errorf("Informer edit saw ResyncPeriod %v, want the type's %v", sawResync, typeResync)
		}
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		f.Start(ctx)
		if err := f.WaitForCacheSync(ctx); err != nil {
			t.Fatal(err)
		}
		if w, _ := inf.Indexer().Get("ns/a"); w == nil || w.Annotations["by"] != "type" {
			t.Fatalf("cached %v, want the type's Transform applied", w)
		}
	})
}

// A TypeOptions.Informer edit sees the informer's options as the factory
// resolved them (the factory's settings, the factory's Metrics' observers,
// its Transform, the informer's name), and not the type's index funcs, which
// are added after it; what it sets is what the informer gets.
func TestInformerEditSeesTheFactorysSettings(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := widget("ns", "a", "n1", nil)
		a.ResourceVersion = "1"
		rm, im := &listCount{}, &handlerCount{}
		var saw informer.Options[*lwt.Widget]
		opts := factory.Options{
			ResyncPeriod:      time.Minute,
			KeepManagedFields: true,
			InternStrings:     true,
			Reflector:         reflector.Options{PageSize: 7},
			Transform: func(o runtime.Object) (runtime.Object, error) {
				w := o.(*lwt.Widget)
				w.Annotations = map[string]string{"by": "factory"}
				return w, nil
			},
			Metrics: func(string) (reflector.Metrics, informer.Metrics) { return rm, im },
			Types: []factory.TypeOverride{factory.TypeOptions[*lwt.Widget]{
				Type:          WidgetType,
				ListerWatcher: fakeLW{items: []*lwt.Widget{a}},
				Informer: func(o *informer.Options[*lwt.Widget]) {
					saw = *o
					o.ResyncPeriod = time.Hour
				},
			}},
		}
		f := factory.New(nil, opts)
		defer f.Shutdown()
		inf := factory.InformerFor(f, WidgetType)
		if saw.ResyncPeriod != time.Minute || !saw.KeepManagedFields || !saw.InternStrings {
			t.Errorf("the edit saw ResyncPeriod %v, KeepManagedFields %v, InternStrings %v; want the factory's 1m0s, true, true", saw.ResyncPeriod, saw.KeepManagedFields, saw.InternStrings)
		}
		if saw.Reflector.PageSize != 7 || saw.Reflector.Name != "widgets.v1.test.informer-gen.dev" || saw.Reflector.Metrics != rm {
			t.Errorf("the edit saw Reflector %+v; want the factory's PageSize 7 and reflector metrics, named after the resource", saw.Reflector)
		}
		if saw.Metrics != im {
			t.Errorf("the edit saw Metrics %v, want the factory's informer metrics", saw.Metrics)
		}
		if saw.Indexers != nil {
			t.Errorf("the edit saw Indexers %v, want none (the type's are added after it)", saw.Indexers)
		}
		if saw.Transform == nil {
			t.Fatal("the edit saw no Transform, want the factory's")
		}
		if w, err := saw.Transform(widget("ns", "x", "n1", nil)); err != nil || w.Annotations["by"] != "factory" {
			t.Errorf("the edit's Transform returned %v, %v; want the factory's Transform applied", w, err)
		}
		if _, err := inf.AddHandler(informer.HandlerFuncs[*lwt.Widget]{}, informer.HandlerOptions{}); err != nil {
			t.Fatal(err)
		}
		if regs := inf.Handlers(); len(regs) != 1 || len(im.regs) != 1 || im.regs[0] != regs[0] {
			t.Errorf("the factory's informer metrics saw registrations %v, want the informer's %v", im.regs, regs)
		}
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		f.Start(ctx)
		if err := f.WaitForCacheSync(ctx); err != nil {
			t.Fatal(err)
		}
		if w, _ := inf.Indexer().Get("ns/a"); w == nil || w.Annotations["by"] != "factory" {
			t.Fatalf("cached %v, want the factory's Transform applied", w)
		}
	})
}

// Mistakes in Options.Types do not panic: each is a set-up mistake that
// WaitForCacheSync returns at once, naming the types involved.
func TestTypeOptionsMistakesAreSetupErrors(t *testing.T) {
	other := factory.Type[*WidgetSummary]{Resource: lwt.GVR, Namespaced: true} // widgets, as another Go type
	for _, c := range []struct {
		name  string
		types []factory.TypeOverride
		want  []string
	}{
		{"two for one type", []factory.TypeOverride{
			factory.TypeOptions[*lwt.Widget]{Type: WidgetType, ListerWatcher: fakeLW{}},
			factory.TypeOptions[*lwt.Widget]{Type: WidgetType},
		}, []string{widgetName, "2 TypeOptions"}},
		{"another Go type for the resource", []factory.TypeOverride{
			factory.TypeOptions[*WidgetSummary]{Type: other},
		}, []string{widgetName, "*factory_test.WidgetSummary", "*listwatchtest.Widget"}},
		{"no Type", []factory.TypeOverride{
			factory.TypeOptions[*lwt.Widget]{LabelSelector: new(string)},
		}, []string{"has no Type", "*listwatchtest.Widget"}},
		{"nil", []factory.TypeOverride{nil}, []string{"Options.Types[0] is nil"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := factory.New(nil, factory.Options{Types: c.types})
				defer f.Shutdown()
				factory.InformerFor(f, WidgetType)
				f.Start(t.Context())
				err := f.WaitForCacheSync(t.Context()) // no deadline: it must not wait
				if !errors.Is(err, factory.ErrSetup) {
					t.Fatalf("WaitForCacheSync = %v, want ErrSetup", err)
				}
				for _, w := range c.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not say %q", err, w)
					}
				}
			})
		})
	}
}

// Two Types of different Go types for one resource and projection: the
// second InformerFor does not panic; it gets an informer that never syncs,
// and WaitForCacheSync names both Go types.
func TestInformerForOfAnotherGoTypeIsASetupError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := factory.New(nil, factory.Options{Types: []factory.TypeOverride{
			factory.TypeOptions[*WidgetSummary]{Type: WidgetSummaryType, ListerWatcher: summaryLW{}},
		}})
		defer f.Shutdown()
		factory.InformerFor(f, WidgetSummaryType)
		other := factory.Type[*lwt.Widget]{Resource: lwt.GVR, Namespaced: true, Projection: "WidgetSummary", Kind: "Widget"}
		inf := factory.InformerFor(f, other)
		if inf == nil || inf.HasSynced() {
			t.Fatalf("InformerFor of another Go type = %v, want an informer that never syncs", inf)
		}
		f.Start(t.Context())
		err := f.WaitForCacheSync(t.Context())
		if !errors.Is(err, factory.ErrSetup) {
			t.Fatalf("WaitForCacheSync = %v, want ErrSetup", err)
		}
		for _, w := range []string{summaryName, "*factory_test.WidgetSummary", "*listwatchtest.Widget"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q does not say %q", err, w)
			}
		}
	})
}

// Namespaces: the type's list replaces the factory's; "" among them, or an
// empty list, is all namespaces; cluster-scoped types ignore them. Read
// from the namespaces the per-namespace sources were asked for.
func TestNamespacesMerge(t *testing.T) {
	for _, c := range []struct {
		name           string
		factory, typ   []string
		clusterScoped  bool
		wantSourcesFor []string
	}{
		{name: "default", wantSourcesFor: []string{""}},
		{name: "factory", factory: []string{"b", "a", "b"}, wantSourcesFor: []string{"a", "b"}},
		{name: "type over factory", factory: []string{"a"}, typ: []string{"c"}, wantSourcesFor: []string{"c"}},
		{name: "type's empty list is all", factory: []string{"a"}, typ: []string{}, wantSourcesFor: []string{""}},
		{name: "all among them", factory: []string{"a", ""}, wantSourcesFor: []string{""}},
		{name: "cluster-scoped", factory: []string{"a", "b"}, clusterScoped: true, wantSourcesFor: []string{""}},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				typ := WidgetType
				typ.Namespaced = !c.clusterScoped
				var asked []string
				f := factory.New(nil, factory.Options{Namespaces: c.factory, Types: []factory.TypeOverride{
					factory.PerNamespace(factory.TypeOptions[*lwt.Widget]{Type: typ, Namespaces: c.typ}, func(ns string) reflector.ListerWatcher[*lwt.Widget] {
						asked = append(asked, ns)
						return fakeLW{}
					}),
				}})
				defer f.Shutdown()
				factory.InformerFor(f, typ)
				if !slices.Equal(asked, c.wantSourcesFor) {
					t.Errorf("sources asked for namespaces %q, want %q", asked, c.wantSourcesFor)
				}
			})
		})
	}
}
