package wire

import (
	"fmt"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// pbRealisticPod returns the i-th Pod of namespace ns in the shape of
// examples/builtin/objects (the end-to-end benchmark's: a Deployment's Pod
// with two containers and an init container, ~10 labels, an owner,
// resources, probes, env, a running status with conditions), with the two
// managedFields entries the API server writes for a create and a status
// update.
func pbRealisticPod(ns string, i int) *corev1.Pod {
	ptr := func(b bool) *bool { return &b }
	app := fmt.Sprintf("app-%d", i%50)
	labels := map[string]string{
		"app":                          app,
		"app.kubernetes.io/name":       app,
		"app.kubernetes.io/instance":   app + "-prod",
		"app.kubernetes.io/version":    "1.4." + strconv.Itoa(i%7),
		"app.kubernetes.io/component":  "backend",
		"app.kubernetes.io/part-of":    "shop",
		"app.kubernetes.io/managed-by": "helm",
		"pod-template-hash":            fmt.Sprintf("%08x", i%50*7919),
		"team":                         "team-" + strconv.Itoa(i%5),
		"tier":                         "web",
	}
	res := corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
		Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("256Mi")},
	}
	probe := &corev1.Probe{
		ProbeHandler:        corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(8080)}},
		InitialDelaySeconds: 5, PeriodSeconds: 10,
	}
	env := []corev1.EnvVar{
		{Name: "LOG_LEVEL", Value: "info"},
		{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
		{Name: "DATABASE_URL", Value: "postgres://db." + ns + ".svc:5432/shop"},
	}
	t := metav1.Unix(1700000000+int64(i), 0)
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: "pod-" + strconv.Itoa(i), Namespace: ns,
			UID:             types.UID(fmt.Sprintf("%08x-1111-2222-3333-%012x", i, i*7)),
			ResourceVersion: strconv.Itoa(100000 + i), CreationTimestamp: t,
			Labels:      labels,
			Annotations: map[string]string{"prometheus.io/scrape": "true", "prometheus.io/port": "9090"},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "ReplicaSet", Name: app + "-" + labels["pod-template-hash"],
				UID: types.UID(fmt.Sprintf("00000000-0000-0000-0000-%012d", i%50)), Controller: ptr(true), BlockOwnerDeletion: ptr(true),
			}},
			ManagedFields: []metav1.ManagedFieldsEntry{
				{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &t, FieldsType: "FieldsV1",
					FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{"f:labels":{` + strings.Repeat(`"f:x":{},`, 10) + `}},"f:spec":{"f:containers":{` + strings.Repeat(`"k:{\"name\":\"app\"}":{".":{},"f:image":{},"f:name":{}},`, 6) + `}}}`)},
				{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &t, FieldsType: "FieldsV1", Subresource: "status",
					FieldsV1: metav1.NewFieldsV1(`{"f:status":{"f:conditions":{` + strings.Repeat(`"k:{\"type\":\"Ready\"}":{".":{},"f:status":{},"f:type":{}},`, 5) + `}}}`)},
			},
		},
		Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{{
				Name: "migrate", Image: "registry.example.com/shop/migrate:1.4." + strconv.Itoa(i%7),
				Command: []string{"/migrate", "--wait"}, Resources: res,
			}},
			Containers: []corev1.Container{
				{
					Name: "app", Image: "registry.example.com/shop/" + app + ":1.4." + strconv.Itoa(i%7),
					Ports:     []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}, {Name: "metrics", ContainerPort: 9090}},
					Env:       env,
					Resources: res, LivenessProbe: probe, ReadinessProbe: probe,
				},
				{
					Name: "proxy", Image: "registry.example.com/mesh/proxy:2.1.0",
					Args:      []string{"proxy", "--upstream=127.0.0.1:8080"},
					Ports:     []corev1.ContainerPort{{Name: "mesh", ContainerPort: 15001}},
					Resources: res,
				},
			},
			NodeName:     "node-" + strconv.Itoa(i%100),
			NodeSelector: map[string]string{"kubernetes.io/os": "linux"},
			Tolerations:  []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "shop", Effect: corev1.TaintEffectNoSchedule}},
		},
	}
	cond := func(typ corev1.PodConditionType) corev1.PodCondition {
		return corev1.PodCondition{Type: typ, Status: corev1.ConditionTrue, LastTransitionTime: t}
	}
	running := func(name, image string) corev1.ContainerStatus {
		return corev1.ContainerStatus{
			Name: name, Image: image, ImageID: image + "@sha256:" + strings.Repeat("ab", 32), Ready: true, Started: ptr(true),
			ContainerID: "containerd://" + fmt.Sprintf("%064x", i),
			State:       corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: t}},
		}
	}
	p.Status = corev1.PodStatus{
		Phase:      corev1.PodRunning,
		Conditions: []corev1.PodCondition{cond(corev1.PodReadyToStartContainers), cond(corev1.PodInitialized), cond(corev1.PodReady), cond(corev1.ContainersReady), cond(corev1.PodScheduled)},
		HostIP:     fmt.Sprintf("10.1.%d.%d", i%100/250, i%100+1),
		PodIP:      fmt.Sprintf("10.244.%d.%d", i/250%250, i%250+1),
		StartTime:  &t,
		QOSClass:   corev1.PodQOSBurstable,
		InitContainerStatuses: []corev1.ContainerStatus{{
			Name: "migrate", Image: p.Spec.InitContainers[0].Image, Ready: true,
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", StartedAt: t, FinishedAt: t}},
		}},
		ContainerStatuses: []corev1.ContainerStatus{running("app", p.Spec.Containers[0].Image), running("proxy", p.Spec.Containers[1].Image)},
	}
	p.Status.PodIPs = []corev1.PodIP{{IP: p.Status.PodIP}}
	p.Status.HostIPs = []corev1.HostIP{{IP: p.Status.HostIP}}
	return p
}

// pbRealisticPodBytes returns the protobuf bytes of n realistic Pods in 20
// namespaces.
func pbRealisticPodBytes(tb testing.TB, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		b, err := pbRealisticPod("ns-"+strconv.Itoa(i%20), i).Marshal()
		if err != nil {
			tb.Fatal(err)
		}
		out[i] = b
	}
	return out
}

// pbDecodePodTable decodes b into a fresh Pod with d and tab.
func pbDecodePodTable(d *pbTableDecoder, tab *pbTable, b []byte) (*corev1.Pod, error) {
	p := new(corev1.Pod)
	return p, d.decode(tab, unsafe.Pointer(p), b)
}

func TestProtobufTableRealisticPod(t *testing.T) {
	tab := pbTableOf(reflect.TypeFor[corev1.Pod]())
	if tab == nil {
		t.Fatal("no table for Pod")
	}
	skip := pbWithoutManagedFieldsTable(tab)
	d := newPBTableDecoder()
	for i, b := range pbRealisticPodBytes(t, 200) {
		want := new(corev1.Pod)
		if err := want.Unmarshal(b); err != nil {
			t.Fatal(err)
		}
		got, err := pbDecodePodTable(d, tab, b)
		if err != nil {
			t.Fatalf("pod %d: %v", i, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("pod %d differs:\n got %+v\nwant %+v", i, got, want)
		}
		got, err = pbDecodePodTable(d, skip, b)
		if err != nil {
			t.Fatalf("pod %d: %v", i, err)
		}
		want.ManagedFields = nil
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("pod %d without managedFields differs", i)
		}
	}
}

// BenchmarkProtobufPodDecode decodes realistic Pods (managedFields dropped,
// as an informer does by default) with the generated gogo Unmarshal (then
// dropping them), with the byte-stripping codec path, and with the table
// decoder.
func BenchmarkProtobufPodDecode(b *testing.B) {
	pods := pbRealisticPodBytes(b, 1000)
	tab := pbWithoutManagedFieldsTable(pbTableOf(reflect.TypeFor[corev1.Pod]()))
	b.Run("gogo", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			p := new(corev1.Pod)
			if err := p.Unmarshal(pods[i%len(pods)]); err != nil {
				b.Fatal(err)
			}
			p.ManagedFields = nil
		}
	})
	b.Run("gogo-stripped", func(b *testing.B) {
		c := newProtobuf(corev1.SchemeGroupVersion.WithKind("Pod"), func() *corev1.Pod { return new(corev1.Pod) },
			func(p *corev1.Pod, b []byte) error { return p.Unmarshal(b) }).withoutManagedFields()
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if err := c.unmarshal(new(corev1.Pod), pods[i%len(pods)]); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, v := range []struct {
		name         string
		noSharedObjs bool
	}{{"table", false}, {"table-strings-maps-only", true}} {
		b.Run(v.name, func(b *testing.B) {
			d := newPBTableDecoder()
			d.noSharedObjs = v.noSharedObjs
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if _, err := pbDecodePodTable(d, tab, pods[i%len(pods)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestProtobufTableRetainedHeap reports the heap 10,000 realistic Pods
// decoded by each decoder keep after a GC (run with -v; it checks only that
// the table decoder keeps less).
func TestProtobufTableRetainedHeap(t *testing.T) {
	if testing.Short() || pbRaceEnabled {
		t.Skip("decodes 20,000 Pods and measures the heap (not in -short, not with -race)")
	}
	pods := pbRealisticPodBytes(t, 10000)
	tab := pbWithoutManagedFieldsTable(pbTableOf(reflect.TypeFor[corev1.Pod]()))
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	var kept []*corev1.Pod
	measure := func(decode func(b []byte) *corev1.Pod) uint64 {
		kept = make([]*corev1.Pod, len(pods))
		before := heap()
		for i, b := range pods {
			kept[i] = decode(b)
		}
		after := heap()
		runtime.KeepAlive(kept)
		return after - before
	}
	gogo := measure(func(b []byte) *corev1.Pod {
		p := new(corev1.Pod)
		if err := p.Unmarshal(b); err != nil {
			t.Fatal(err)
		}
		p.ManagedFields = nil
		return p
	})
	tableWith := func(d *pbTableDecoder) uint64 {
		return measure(func(b []byte) *corev1.Pod {
			p, err := pbDecodePodTable(d, tab, b)
			if err != nil {
				t.Fatal(err)
			}
			return p
		})
	}
	mapsOnly := newPBTableDecoder()
	mapsOnly.noSharedObjs = true
	tableMaps := tableWith(mapsOnly)
	table := tableWith(newPBTableDecoder())
	for i, b := range pods {
		want := new(corev1.Pod)
		if err := want.Unmarshal(b); err != nil {
			t.Fatal(err)
		}
		want.ManagedFields = nil
		if !reflect.DeepEqual(kept[i], want) {
			t.Fatalf("pod %d kept by the table decoder differs from gogo's", i)
		}
	}
	t.Logf("retained heap of %d Pods after GC: gogo %d B/pod, table sharing strings and maps %d B/pod (%.2f×), and sub-objects %d B/pod (%.2f×)",
		len(pods), gogo/uint64(len(pods)), tableMaps/uint64(len(pods)), float64(tableMaps)/float64(gogo),
		table/uint64(len(pods)), float64(table)/float64(gogo))
	if table >= tableMaps || tableMaps >= gogo {
		t.Errorf("the table decoder keeps %d B sharing sub-objects, %d B sharing strings and maps only, gogo %d B", table, tableMaps, gogo)
	}
}
