package bench_test

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Shape of the benchmark population, shared by every area so figures compare.
const (
	benchNamespaces = 100  // pod i is in namespace ns-(i%100)
	benchApps       = 100  // label app=app-(i%100): an equality selector matches 1%
	benchNodes      = 1000 // spec.nodeName node-(i%1000): 100 pods per node at 100k
)

// newBenchPod returns pod number i of the shared benchmark population: a
// corev1.Pod with 10 labels, 3 containers and one managedFields entry, about
// 2.3 KB as JSON. Every call allocates fresh strings for the parts that vary
// with i, as a decoder would; the same i always yields an equal pod.
//
// Name pod-i is unique across namespaces; namespace, node and the app label
// follow the constants above, so selectors and indices have known sizes.
func newBenchPod(i int) *corev1.Pod {
	ns := fmt.Sprintf("ns-%d", i%benchNamespaces)
	name := fmt.Sprintf("pod-%d", i)
	rs := fmt.Sprintf("web-%d-7d9f8c6b5", i%benchApps)
	hash := fmt.Sprintf("%08x", uint32(i%1000)*2654435761)
	p := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace:         ns,
			Name:              name,
			GenerateName:      rs + "-",
			UID:               types.UID(fmt.Sprintf("6c1e2f3a-0000-4000-8000-%012d", i)),
			ResourceVersion:   strconv.Itoa(1000 + i),
			CreationTimestamp: metav1.Unix(1700000000+int64(i), 0),
			Labels: map[string]string{
				"app":                          fmt.Sprintf("app-%d", i%benchApps),
				"app.kubernetes.io/component":  []string{"frontend", "backend", "cache"}[i%3],
				"app.kubernetes.io/part-of":    "shop",
				"app.kubernetes.io/managed-by": "helm",
				"env":                          []string{"prod", "staging"}[i%2],
				"team":                         fmt.Sprintf("team-%d", i%20),
				"version":                      fmt.Sprintf("v1.%d.0", i%5),
				"region":                       fmt.Sprintf("region-%d", i%4),
				"zone":                         fmt.Sprintf("zone-%d", i%12),
				"pod-template-hash":            hash,
			},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs,
				UID:        types.UID(fmt.Sprintf("9a8b7c6d-0000-4000-8000-%012d", i%benchApps)),
				Controller: benchPtr(true), BlockOwnerDeletion: benchPtr(true),
			}},
			ManagedFields: []metav1.ManagedFieldsEntry{{
				Manager:    "kube-controller-manager",
				Operation:  metav1.ManagedFieldsOperationUpdate,
				APIVersion: "v1",
				Time:       benchPtr(metav1.Unix(1700000000+int64(i), 0)),
				FieldsType: "FieldsV1",
				FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app":{},` +
					`"f:env":{},"f:pod-template-hash":{},"f:team":{},"f:version":{}},"f:ownerReferences":{".":{},` +
					`"k:{\"uid\":\"9a8b7c6d\"}":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},` +
					`"f:image":{},"f:name":{},"f:ports":{},"f:resources":{}},"k:{\"name\":\"sidecar\"}":{".":{},` +
					`"f:image":{},"f:name":{}},"k:{\"name\":\"metrics\"}":{".":{},"f:image":{},"f:name":{}}},` +
					`"f:restartPolicy":{},"f:schedulerName":{}}}`),
			}},
		},
		Spec: corev1.PodSpec{
			NodeName:           fmt.Sprintf("node-%d", i%benchNodes),
			ServiceAccountName: "default",
			RestartPolicy:      corev1.RestartPolicyAlways,
			SchedulerName:      "default-scheduler",
			Containers: []corev1.Container{
				benchContainer("app", "registry.example.com/shop/web:1.4.2", 8080, "500m", "256Mi"),
				benchContainer("sidecar", "registry.example.com/mesh/proxy:2.0.1", 15001, "100m", "64Mi"),
				benchContainer("metrics", "registry.example.com/obs/exporter:0.9.0", 9100, "50m", "32Mi"),
			},
		},
		Status: corev1.PodStatus{
			Phase:  corev1.PodRunning,
			HostIP: fmt.Sprintf("10.0.%d.%d", i/250%250, i%250),
			PodIP:  fmt.Sprintf("10.1.%d.%d", i/250%250, i%250),
			Conditions: []corev1.PodCondition{
				{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Unix(1700000100, 0)},
			},
			StartTime: benchPtr(metav1.Unix(1700000000+int64(i), 0)),
		},
	}
	return p
}

func benchContainer(name, image string, port int32, cpu, mem string) corev1.Container {
	return corev1.Container{
		Name:  name,
		Image: image,
		Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: port, Protocol: corev1.ProtocolTCP}},
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse(cpu),
				corev1.ResourceMemory: resource.MustParse(mem),
			},
		},
		ImagePullPolicy: corev1.PullIfNotPresent,
	}
}

func benchPtr[T any](v T) *T { return &v }
