package generatedtest

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
	batchv1 "github.com/informer-gen/informer-gen/testdata/golden/indexes/input/apis/batch/v1"
	"github.com/informer-gen/informer-gen/testdata/golden/indexes/want/informers"
	informersv1 "github.com/informer-gen/informer-gen/testdata/golden/indexes/want/informers/batch/v1"
	listersv1 "github.com/informer-gen/informer-gen/testdata/golden/indexes/want/listers/batch/v1"
)

func task(ns, name, node string, tags ...string) *batchv1.Task {
	return &batchv1.Task{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": "demo"}},
		Spec:       batchv1.TaskSpec{NodeName: node, Tags: tags},
	}
}

func names(ts []*batchv1.Task) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Namespace+"/"+t.Name)
	}
	slices.Sort(out)
	return out
}

func wantNames(t *testing.T, what string, got []*batchv1.Task, err error, want ...string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if g := names(got); !slices.Equal(g, want) {
		t.Errorf("%s = %v, want %v", what, g, want)
	}
}

// TestGeneratedInformerAndLister runs NewTaskInformer over a fake source and
// reads through NewTaskLister: add, update, delete and index lookups, in the
// cluster-wide and the namespace-scoped lister.
func TestGeneratedInformerAndLister(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: listersv1.TaskResource},
			task("ns1", "a", "node1", "x", "y"),
			task("ns2", "b", "node1", "y"),
		)
		inf := informersv1.NewTaskInformer(src, informer.Options[*batchv1.Task]{})
		rec := runtimetest.NewRecorder[*batchv1.Task]()
		if _, err := inf.AddHandler(rec, informer.HandlerOptions{}); err != nil {
			t.Fatal(err)
		}
		ctx := runSynced(t, inf)
		lister := listersv1.NewTaskLister(inf.Indexer())

		got, err := lister.ByNode("node1")
		wantNames(t, "ByNode(node1)", got, err, "ns1/a", "ns2/b")
		got, err = lister.ByTags("y")
		wantNames(t, "ByTags(y)", got, err, "ns1/a", "ns2/b")
		got, err = lister.Tasks("ns1").ByTags("y")
		wantNames(t, "Tasks(ns1).ByTags(y)", got, err, "ns1/a")
		got, err = lister.List(labels.Everything())
		wantNames(t, "List", got, err, "ns1/a", "ns2/b")
		if a, err := lister.Tasks("ns1").Get("a"); err != nil || a.Spec.NodeName != "node1" {
			t.Fatalf("Tasks(ns1).Get(a) = %v, %v", a, err)
		}

		// Add.
		if _, err := src.Add(task("ns1", "c", "node2")); err != nil {
			t.Fatal(err)
		}
		waitFor(ctx, t, rec, func(s map[string]*batchv1.Task) bool { return s["ns1/c"] != nil })
		got, err = lister.ByNode("node2")
		wantNames(t, "ByNode(node2) after add", got, err, "ns1/c")

		// Update moves a from node1 to node2: both index entries change.
		if _, err := src.Update(task("ns1", "a", "node2")); err != nil {
			t.Fatal(err)
		}
		waitFor(ctx, t, rec, func(s map[string]*batchv1.Task) bool {
			return s["ns1/a"] != nil && s["ns1/a"].Spec.NodeName == "node2"
		})
		got, err = lister.ByNode("node1")
		wantNames(t, "ByNode(node1) after update", got, err, "ns2/b")
		got, err = lister.Tasks("ns1").ByNode("node2")
		wantNames(t, "Tasks(ns1).ByNode(node2) after update", got, err, "ns1/a", "ns1/c")
		got, err = lister.ByTags("x")
		wantNames(t, "ByTags(x) after update", got, err)

		// Delete.
		if _, err := src.Delete(task("ns2", "b", "node1")); err != nil {
			t.Fatal(err)
		}
		waitFor(ctx, t, rec, func(s map[string]*batchv1.Task) bool { return s["ns2/b"] == nil })
		if _, err := lister.Tasks("ns2").Get("b"); !apierrors.IsNotFound(err) {
			t.Errorf("Get after delete: err = %v, want NotFound", err)
		} else if se, ok := err.(apierrors.APIStatus); !ok || se.Status().Details.Group != "batch.example.com" || se.Status().Details.Kind != "tasks" {
			t.Errorf("NotFound names the wrong resource: %v", err)
		}
		got, err = lister.ByNode("node1")
		wantNames(t, "ByNode(node1) after delete", got, err)
		if err := rec.Err(); err != nil {
			t.Error(err)
		}
	})
}

// TestGeneratedFactory goes through the generated factory's accessor chain
// and ForResource with a per-type fake ListerWatcher, and no rest.Config.
func TestGeneratedFactory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: listersv1.TaskResource},
			task("ns1", "a", "node1"))
		var opts factory.Options
		factory.SetListerWatcher(&opts, informersv1.TaskType, src)
		f := informers.NewSharedInformerFactory(nil, opts)
		defer f.Shutdown()
		tasks := f.Batch().V1().Tasks()
		lister := tasks.Lister()
		if tasks.Informer() != f.Batch().V1().Tasks().Informer() {
			t.Error("the factory returned two informers for one type")
		}
		f.Start(ctx)
		if err := f.WaitForCacheSync(ctx); err != nil {
			t.Fatal(err)
		}
		got, err := lister.ByNode("node1")
		wantNames(t, "factory lister ByNode(node1)", got, err, "ns1/a")

		gvr := batchv1.SchemeGroupVersion.WithResource("tasks")
		if informersv1.TaskType.Resource != gvr {
			t.Errorf("TaskType.Resource = %v, want %v", informersv1.TaskType.Resource, gvr)
		}
		if _, err := f.ForResource(gvr); err != nil {
			t.Errorf("ForResource(%v): %v", gvr, err)
		}
		if _, err := f.ForResource(batchv1.SchemeGroupVersion.WithResource("nope")); err == nil {
			t.Error("ForResource of an unknown resource succeeded")
		}
		cancel()
	})
}

func waitFor(ctx context.Context, t *testing.T, rec *runtimetest.Recorder[*batchv1.Task], cond func(map[string]*batchv1.Task) bool) {
	t.Helper()
	if err := rec.WaitFor(ctx, cond); err != nil {
		t.Fatal(err)
	}
}
