package main

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informer-gen/informer-gen/examples/builtin/objects"
)

// The Pod shapes the benchmark writes (-pod-shape).
const (
	// shapeRealistic is objects.Pod with objects.PodStatus: a Deployment's
	// Pod (two containers and an init container, ~10 labels, probes, env,
	// a status with conditions), ~4.5 KB in protobuf.
	shapeRealistic = "realistic"
	// shapeSmall is one container, four labels, an owner and a short
	// status (phase, one condition, IPs), ~1 KB in protobuf: the shape
	// the API server itself can hold a million of on this machine.
	shapeSmall = "small"
)

var podShapes = []string{shapeRealistic, shapeSmall}

// makePod returns the i-th Pod of namespace ns in shape, as a client
// creates it (no status: the server drops a status sent with a create).
func makePod(shape, ns string, i int) *corev1.Pod {
	if shape == shapeSmall {
		return smallPod(ns, i)
	}
	return objects.Pod(ns, i)
}

// setPodStatus sets p's status in shape, as a kubelet reports a running
// Pod.
func setPodStatus(shape string, p *corev1.Pod, i int) {
	if shape == shapeSmall {
		smallPodStatus(p, i)
		return
	}
	objects.PodStatus(p, i)
}

func smallPod(ns string, i int) *corev1.Pod {
	app := fmt.Sprintf("app-%d", i%50)
	hash := fmt.Sprintf("%08x", i%50*7919)
	controller := true
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:      "pod-" + strconv.Itoa(i),
			Namespace: ns,
			Labels: map[string]string{
				"app":               app,
				"pod-template-hash": hash,
				"team":              "team-" + strconv.Itoa(i%5),
				"tier":              "web",
			},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "ReplicaSet", Name: app + "-" + hash,
				UID: types.UID(fmt.Sprintf("00000000-0000-0000-0000-%012d", i%50)), Controller: &controller,
			}},
		},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "app", Image: "registry.example.com/shop/" + app + ":1.4." + strconv.Itoa(i%7)}},
			NodeName:   "node-" + strconv.Itoa(i%100),
		},
	}
}

func smallPodStatus(p *corev1.Pod, i int) {
	t := metav1.Unix(1700000000+int64(i), 0)
	p.Status = corev1.PodStatus{
		Phase:      corev1.PodRunning,
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: t}},
		HostIP:     fmt.Sprintf("10.1.0.%d", i%100+1),
		PodIP:      fmt.Sprintf("10.244.%d.%d", i/250%250, i%250+1),
		StartTime:  &t,
		QOSClass:   corev1.PodQOSBestEffort,
	}
	p.Status.PodIPs = []corev1.PodIP{{IP: p.Status.PodIP}}
	p.Status.HostIPs = []corev1.HostIP{{IP: p.Status.HostIP}}
}
