package runtimetest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
	"github.com/informer-gen/informer-gen/runtime/store"
	"github.com/informer-gen/informer-gen/runtime/wire"
)

// PodSummary is what informer-gen generates for
// --projection 'k8s.io/api/core/v1.Pod:PodSummary=.spec.nodeName;.status.phase'.
type PodSummary struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              PodSummarySpec   `json:"spec,omitempty"`
	Status            PodSummaryStatus `json:"status,omitempty"`
}

type PodSummarySpec struct {
	NodeName string `json:"nodeName,omitempty"`
}

type PodSummaryStatus struct {
	Phase corev1.PodPhase `json:"phase,omitempty"`
}

func (in *PodSummary) DeepCopyInto(out *PodSummary) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

func (in *PodSummary) DeepCopy() *PodSummary {
	if in == nil {
		return nil
	}
	out := new(PodSummary)
	in.DeepCopyInto(out)
	return out
}

func (in *PodSummary) DeepCopyObject() runtime.Object { return in.DeepCopy() }

type summary = *PodSummary

func pod(name, node string, phase corev1.PodPhase) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: map[string]string{"app": name}},
		Spec: corev1.PodSpec{
			NodeName:   node,
			Containers: []corev1.Container{{Name: "main", Image: "registry.example/" + name + ":1", Args: []string{"--serve"}}},
		},
		Status: corev1.PodStatus{Phase: phase, PodIP: "10.0.0.1"},
	}
}

// runInformer runs an informer over lw with a Recorder until the test's
// bubble ends.
func runInformer[T store.Object[T]](t *testing.T, ctx context.Context, wg *sync.WaitGroup, inf *informer.Informer[T]) *runtimetest.Recorder[T] {
	t.Helper()
	rec := new(runtimetest.Recorder[T])
	if _, err := inf.AddHandler(rec, informer.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	wg.Go(func() { _ = inf.Run(ctx) })
	return rec
}

// One Source drives the kind's informer and its projection's: through
// writes, a compaction (410, relist) and a dropped watch, both caches hold
// the same keys at the same resourceVersions, and the projection's objects
// are exactly the Source's projected (metadata and the projected fields,
// nothing else).
func TestProjectionDrivesBothCaches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource(runtimetest.SourceOptions{}, pod("a", "n1", corev1.PodRunning), pod("b", "n2", corev1.PodPending))
		summaries := runtimetest.Project[summary](src)
		ctx, cancel := context.WithCancel(klog.NewContext(t.Context(), logr.Discard()))
		var wg sync.WaitGroup
		defer wg.Wait()
		defer cancel()
		pods := runInformer(t, ctx, &wg, informer.New(src, informer.Options[*corev1.Pod]{}))
		sums := runInformer(t, ctx, &wg, informer.New(summaries, informer.Options[summary]{}))

		caughtUp := func(step string) {
			t.Helper()
			time.Sleep(time.Minute) // any backoff
			synctest.Wait()
			want, err := summaries.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			if !runtimetest.SameResourceVersions(pods.State(), src.Snapshot()) {
				t.Fatalf("%s: the kind's cache %v, want the source's", step, pods.State())
			}
			if got := sums.State(); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: the projection's cache\n %+v\nwant the source's objects projected\n %+v", step, got, want)
			}
		}
		caughtUp("initial sync")
		b, _ := src.Get("ns/b")
		b.Spec.NodeName, b.Status.Phase = "n3", corev1.PodRunning
		must(src.Update(b))
		must(src.Delete(pod("a", "", "")))
		caughtUp("update and delete")
		src.Compact() // both watches get 410 and relist
		must(src.Add(pod("c", "n1", corev1.PodSucceeded)))
		caughtUp("after a compaction")
		src.DropWatches()
		must(src.Add(pod("d", "n2", corev1.PodFailed)))
		caughtUp("after a dropped watch")

		got := sums.State()["ns/b"]
		if got.Spec.NodeName != "n3" || got.Status.Phase != corev1.PodRunning || got.Labels["app"] != "b" || got.ResourceVersion != pods.State()["ns/b"].ResourceVersion {
			t.Errorf("projected b = %+v, want node n3, phase Running, its labels and the pod's resourceVersion", got)
		}
		if err := sums.Err(); err != nil {
			t.Error(err)
		}
		if err := pods.Err(); err != nil {
			t.Error(err)
		}
	})
}

// A projected object is what runtime/wire's JSON codec decodes from the
// API server's LIST body of the kind (the path a projection's informer takes
// on a real server), and keeps none of the fields the projection lacks.
func TestProjectionProjectsAsTheWireDecoder(t *testing.T) {
	p := pod("a", "n1", corev1.PodRunning)
	p.Annotations = map[string]string{"note": "kept"}
	p.UID, p.ResourceVersion, p.Generation = "uid-1", "42", 3
	p.APIVersion, p.Kind = "v1", "Pod"
	got, err := runtimetest.Project[summary](runtimetest.NewSource[*corev1.Pod](runtimetest.SourceOptions{})).Project(p)
	if err != nil {
		t.Fatal(err)
	}

	body, err := json.Marshal(&corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"}, Items: []corev1.Pod{*p}})
	if err != nil {
		t.Fatal(err)
	}
	var want summary
	if _, err := must(wire.NewJSON[summary](corev1.SchemeGroupVersion.WithKind("Pod"))).DecodeList(bytes.NewReader(body), func(s summary) error {
		want = s
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Project = %+v\nthe wire decoder gives %+v", got, want)
	}
	if got.Spec.NodeName != "n1" || got.Status.Phase != corev1.PodRunning || !reflect.DeepEqual(got.ObjectMeta, p.ObjectMeta) || got.Kind != "Pod" {
		t.Errorf("Project = %+v, want the pod's metadata, kind, node and phase", got)
	}
	out, _ := json.Marshal(got)
	for _, dropped := range []string{"containers", "podIP", "registry.example"} {
		if strings.Contains(string(out), dropped) {
			t.Errorf("the projection kept %q: %s", dropped, out)
		}
	}
}

// BadSummary cannot hold a Pod's spec.nodeName (a string).
type BadSummary struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		NodeName int `json:"nodeName"`
	} `json:"spec"`
}

func (in *BadSummary) DeepCopy() *BadSummary          { out := *in; return &out }
func (in *BadSummary) DeepCopyObject() runtime.Object { return in.DeepCopy() }

// An object the projection cannot decode fails the LIST, and ends a watch
// with an ERROR event (as an undecodable event ends a real watch); the
// Source's own ERROR events pass through unchanged.
func TestProjectionReportsUndecodableObjects(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[*corev1.Pod](runtimetest.SourceOptions{})
		bad := runtimetest.Project[*BadSummary](src)
		must(src.Add(pod("a", "n1", corev1.PodRunning)))
		if _, err := bad.List(t.Context(), metav1.ListOptions{}); err == nil || !strings.Contains(err.Error(), "ns/a") {
			t.Fatalf("List = %v, want an error naming ns/a", err)
		}
		w, err := bad.Watch(t.Context(), metav1.ListOptions{ResourceVersion: "0"})
		if err != nil {
			t.Fatal(err)
		}
		ev := <-w.ResultChan()
		if st, ok := ev.Object.(*metav1.Status); ev.Type != watch.Error || !ok || !strings.Contains(st.Message, "ns/a") {
			t.Fatalf("event %s %#v, want an ERROR naming ns/a", ev.Type, ev.Object)
		}
		if _, open := <-w.ResultChan(); open {
			t.Fatal("the watch goes on after the ERROR")
		}

		sums := runtimetest.Project[summary](src)
		w, err = sums.Watch(t.Context(), metav1.ListOptions{ResourceVersion: "1"})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		src.Compact()
		ev = <-w.ResultChan()
		if st, ok := ev.Object.(*metav1.Status); ev.Type != watch.Error || !ok || st.Code != 410 {
			t.Fatalf("event %s %#v, want the source's 410 ERROR", ev.Type, ev.Object)
		}
	})
}

// One Source feeds the kind's informer and its projection's: a write
// reaches both caches, the projection holding only its fields.
func ExampleProject() {
	pods := runtimetest.NewSource(runtimetest.SourceOptions{}, pod("web", "n1", corev1.PodPending))
	summaries := runtimetest.Project[*PodSummary](pods)
	full := informer.New(pods, informer.Options[*corev1.Pod]{})
	projected := informer.New(summaries, informer.Options[*PodSummary]{})
	fullRec, projectedRec := new(runtimetest.Recorder[*corev1.Pod]), new(runtimetest.Recorder[*PodSummary])
	_, _ = full.AddHandler(fullRec, informer.HandlerOptions{})
	_, _ = projected.AddHandler(projectedRec, informer.HandlerOptions{})
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logr.Discard()))
	var wg sync.WaitGroup
	wg.Go(func() { _ = full.Run(ctx) })
	wg.Go(func() { _ = projected.Run(ctx) })
	defer wg.Wait()
	defer cancel()

	stored := must(pods.Update(pod("web", "n1", corev1.PodRunning)))
	_ = fullRec.WaitFor(ctx, func(got map[string]*corev1.Pod) bool {
		return got["ns/web"] != nil && got["ns/web"].ResourceVersion == stored.ResourceVersion
	})
	_ = projectedRec.WaitFor(ctx, func(got map[string]*PodSummary) bool {
		return got["ns/web"] != nil && got["ns/web"].ResourceVersion == stored.ResourceVersion
	})
	p, s := fullRec.State()["ns/web"], projectedRec.State()["ns/web"]
	fmt.Println("pod:", p.Status.Phase, len(p.Spec.Containers), "container(s), rv", p.ResourceVersion)
	fmt.Println("summary:", s.Status.Phase, s.Spec.NodeName, "rv", s.ResourceVersion)
	// Output:
	// pod: Running 1 container(s), rv 2
	// summary: Running n1 rv 2
}
