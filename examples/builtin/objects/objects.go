// Package objects makes realistic built-in objects for examples/builtin's
// end-to-end tests and bench/builtin's benchmark (one shape of object for
// both): Pods shaped as a Deployment's Pods are (two containers and
// an init container, ~10 labels, an owner, resources, probes, env, a status
// with conditions), and Secrets with data of a given size.
package objects

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Pod returns the i-th Pod of namespace ns (named pod-<i>), as a
// Deployment's ReplicaSet would create it; its status is set by PodStatus
// (the API server ignores a status sent with a create).
func Pod(ns string, i int) *corev1.Pod {
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
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:        "pod-" + strconv.Itoa(i),
			Namespace:   ns,
			Labels:      labels,
			Annotations: map[string]string{"prometheus.io/scrape": "true", "prometheus.io/port": "9090"},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "ReplicaSet", Name: app + "-" + labels["pod-template-hash"],
				UID: types.UID(fmt.Sprintf("00000000-0000-0000-0000-%012d", i%50)), Controller: ptr(true), BlockOwnerDeletion: ptr(true),
			}},
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
}

// PodStatus sets p's status as a kubelet reports a running Pod.
func PodStatus(p *corev1.Pod, i int) {
	t := metav1.Unix(1700000000+int64(i), 0)
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
}

// Secret returns the i-th Secret of namespace ns (named secret-<i>) with
// four keys holding size bytes of data in all.
func Secret(ns string, i, size int) *corev1.Secret {
	data := map[string][]byte{}
	keys := []string{"tls.crt", "tls.key", "ca.crt", "token"}
	for n, k := range keys {
		b := make([]byte, size/len(keys))
		for j := range b {
			b[j] = byte('a' + (i+j+n)%26)
		}
		data[k] = b
	}
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name: "secret-" + strconv.Itoa(i), Namespace: ns,
			Labels: map[string]string{"app": fmt.Sprintf("app-%d", i%50), "team": "team-" + strconv.Itoa(i%5)},
		},
		Type: corev1.SecretTypeOpaque,
		Data: data,
	}
}

func ptr[T any](v T) *T { return &v }
