package clientgo_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr/testr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/informer/clientgo"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

// cgLog records what client-go style handlers were called with.
type cgLog struct {
	mu  sync.Mutex
	evs []string
}

func (l *cgLog) add(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.evs = append(l.evs, fmt.Sprintf(format, args...))
}

func (l *cgLog) snapshot() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.evs...)
}

// waitLen advances the bubble's fake clock until l has n events (the
// Reflector may be in a backoff).
func (l *cgLog) waitLen(t *testing.T, n int) {
	t.Helper()
	for range 10000 {
		if len(l.snapshot()) >= n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("got %d events, want %d: %q", len(l.snapshot()), n, l.snapshot())
}

func cgConfigMap(ns, name, v string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string]string{"v": v}}
}

// cgScenario runs an informer over a fake source with the handler added by
// add, and goes through: initial list (a, b), update a, delete a (seen), then
// b deleted while the watch is down (noticed on relist: final state unknown).
func cgScenario(t *testing.T, add func(*informer.Informer[*corev1.ConfigMap]) (*informer.Registration, error), log *cgLog) {
	src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: schema.GroupResource{Resource: "configmaps"}}, cgConfigMap("ns", "a", "1"), cgConfigMap("ns", "b", "1"))
	inf := informer.New[*corev1.ConfigMap](src, informer.Options[*corev1.ConfigMap]{Reflector: reflector.Options{Name: "configmaps.v1"}})
	reg, err := add(inf)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), testr.New(t)))
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	if err := informer.WaitForCacheSync(ctx, reg); err != nil {
		t.Fatal(err)
	}
	log.waitLen(t, 2)
	if _, err := src.Update(cgConfigMap("ns", "a", "2")); err != nil {
		t.Fatal(err)
	}
	log.waitLen(t, 3)
	if _, err := src.Delete(cgConfigMap("ns", "a", "")); err != nil {
		t.Fatal(err)
	}
	log.waitLen(t, 4)

	src.FailNext("watch", apierrors.NewServiceUnavailable("down"))
	src.DropWatches()
	synctest.Wait()
	if _, err := src.Delete(cgConfigMap("ns", "b", "")); err != nil {
		t.Fatal(err)
	}
	src.Compact()
	log.waitLen(t, 5)
}

func TestAddHandlerDeliversTombstones(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		log := &cgLog{}
		h := cache.ResourceEventHandlerFuncs{
			AddFunc: func(obj any) { log.add("add %s", obj.(*corev1.ConfigMap).Name) },
			UpdateFunc: func(oldObj, newObj any) {
				log.add("update %s %s->%s", newObj.(*corev1.ConfigMap).Name, oldObj.(*corev1.ConfigMap).Data["v"], newObj.(*corev1.ConfigMap).Data["v"])
			},
			DeleteFunc: func(obj any) {
				switch o := obj.(type) {
				case *corev1.ConfigMap:
					log.add("delete %s", o.Name)
				case cache.DeletedFinalStateUnknown:
					key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
					log.add("delete tombstone key=%s obj=%s dhkey=%s err=%v", o.Key, o.Obj.(*corev1.ConfigMap).Name, key, err)
				default:
					log.add("delete %T", obj)
				}
			},
		}
		cgScenario(t, func(inf *informer.Informer[*corev1.ConfigMap]) (*informer.Registration, error) {
			return clientgo.AddHandler(inf, h, informer.HandlerOptions{})
		}, log)
		equal(t, "client-go handler calls", sortInitial(log.snapshot()), []string{
			"add a", "add b", "update a 1->2", "delete a",
			"delete tombstone key=ns/b obj=b dhkey=ns/b err=<nil>",
		})
	})
}

func TestTypedHandlerDeliversDeletedObject(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		log := &cgLog{}
		h := cache.TypedResourceEventHandlerFuncs[*corev1.ConfigMap]{
			AddFunc: func(obj *corev1.ConfigMap) { log.add("add %s", obj.Name) },
			UpdateFunc: func(oldObj, newObj *corev1.ConfigMap) {
				log.add("update %s %s->%s", newObj.Name, oldObj.Data["v"], newObj.Data["v"])
			},
			DeleteFunc: func(d cache.DeletedObject[*corev1.ConfigMap]) {
				if d.FinalStateUnknown != nil {
					log.add("delete %s key=%s unknown obj=%s", d.OptionalObj.Name, d.GetKey(), d.FinalStateUnknown.Obj.(*corev1.ConfigMap).Name)
					return
				}
				log.add("delete %s key=%s", d.OptionalObj.Name, d.GetKey())
			},
		}
		cgScenario(t, func(inf *informer.Informer[*corev1.ConfigMap]) (*informer.Registration, error) {
			return inf.AddHandler(clientgo.TypedHandler(h), informer.HandlerOptions{})
		}, log)
		equal(t, "typed client-go handler calls", sortInitial(log.snapshot()), []string{
			"add a", "add b", "update a 1->2", "delete a key=ns/a",
			"delete b key=ns/b unknown obj=b",
		})
	})
}

func equal(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s:\n got  %q\n want %q", what, got, want)
	}
}

// sortInitial orders the two initial adds, whose relative order is not part
// of the contract.
func sortInitial(evs []string) []string {
	if len(evs) >= 2 && evs[0] > evs[1] {
		evs[0], evs[1] = evs[1], evs[0]
	}
	return evs
}
