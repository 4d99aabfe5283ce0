package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/server/v3/etcdserver"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/informer-gen/informer-gen/examples/builtin/kubeapiserver"

	"github.com/informer-gen/informer-gen/bench/builtin/internal/proto"
)

// TestSeed checks that the server serves Pods the seeder wrote into its
// etcd as it serves Pods created through the API: the value the seeder
// writes is the envelope the server's storage writes (a Pod the server
// stored decodes and encodes back to the same bytes); a seeded Pod is the
// same object as the same Pod created through the API (the driver's API
// path), but for its uid, resourceVersion, timestamps and token volume
// name; GET returns what was written; LIST returns every Pod, each with a
// resourceVersion of its own; a WATCH from the LIST's resourceVersion sees
// a PATCH of a seeded Pod made after it, and GET then shows the patch. Both
// shapes, seeded into a running server (seedEtcdLive) and into a new
// server's etcd before its kube-apiserver starts (seedEtcd).
func TestSeed(t *testing.T) {
	if testing.Short() {
		t.Skip("starts kube-apiserver")
	}
	kubeapiserver.QuietKlog()
	// Waits as long as a correct server may take on a busy machine.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	srv, err := kubeapiserver.Start(ctx, kubeapiserver.Options{FeatureGates: map[string]bool{"WatchList": true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(context.Background()); err != nil {
			t.Error(err)
		}
	})
	for i := range proto.Namespaces {
		if err := srv.CreateNamespace(ctx, proto.NamespacePrefix+strconv.Itoa(i)); err != nil {
			t.Fatal(err)
		}
	}
	cfg := srv.Config()
	cfg.UserAgent = seedUserAgent
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d := &driver{cfg: driverConfig{Writers: 1}, cs: cs}

	const n = 2000
	want := 0 // Pods on the server
	templates := map[string]*corev1.Pod{}
	for _, tc := range []struct {
		shape    string
		from, to int
	}{{shapeRealistic, 0, n}, {shapeSmall, n + 1, n + 201}} {
		tmpl, err := templatePod(ctx, srv, tc.shape)
		if err != nil {
			t.Fatal(err)
		}
		templates[tc.shape] = tmpl
		s := newPodSeeder(srv.EtcdKV(), tc.shape, tmpl)
		const workers = 32
		start, cpu0 := time.Now(), processCPU(t)
		if err := s.seed(ctx, tc.from, tc.to, workers, 1); err != nil {
			t.Fatal(err)
		}
		elapsed, cpu := time.Since(start), processCPU(t)-cpu0
		load, _ := os.ReadFile("/proc/loadavg")
		t.Logf("seeded %d %s Pods in %v: %.0f Pods/s, %.0f µs CPU per Pod in this process (etcd and kube-apiserver included; load average %s)",
			tc.to-tc.from, tc.shape, elapsed.Round(time.Millisecond), float64(tc.to-tc.from)/elapsed.Seconds(),
			cpu.Seconds()/float64(tc.to-tc.from)*1e6, strings.Join(strings.Fields(string(load))[:3], " "))
		want += tc.to - tc.from

		// Pod tc.to through the API (the driver's API path), then the
		// same Pod seeded in its place.
		d.cfg.PodShape = tc.shape
		if err := d.createPodsAPI(ctx, tc.to, tc.to+1); err != nil {
			t.Fatal(err)
		}
		ref := makePod(tc.shape, namespace(tc.to), tc.to)
		viaAPI, err := cs.CoreV1().Pods(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		stored := etcdValue(ctx, t, srv, podKey(ref.Namespace, ref.Name))
		checkEnvelope(t, stored)
		zero := int64(0)
		if err := cs.CoreV1().Pods(ref.Namespace).Delete(ctx, ref.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
			t.Fatal(err)
		}
		if err := s.seed(ctx, tc.to, tc.to+1, 1, 1); err != nil {
			t.Fatal(err)
		}
		want++
		seeded, err := cs.CoreV1().Pods(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(normalize(viaAPI), normalize(seeded)); diff != "" {
			t.Errorf("%s: seeded Pod differs from the Pod created through the API (-API +seeded):\n%s", tc.shape, diff)
		}
		if seeded.UID == viaAPI.UID || seeded.UID == "" || seeded.ResourceVersion == "" {
			t.Errorf("%s: seeded Pod with uid %q, resourceVersion %q", tc.shape, seeded.UID, seeded.ResourceVersion)
		}

		// GET of a seeded Pod is what the seeder wrote, with etcd's
		// revision as its resourceVersion.
		checkGet(ctx, t, srv, cs, tc.shape, tc.from+(tc.to-tc.from)/2)
	}
	checkListWatch(ctx, t, cs, want)

	// Seeded before kube-apiserver starts (seedEtcd): a second server
	// reads the same Pods with its first LIST.
	start := time.Now()
	var seeded time.Duration
	srv2, err := kubeapiserver.Start(ctx, kubeapiserver.Options{
		FeatureGates: map[string]bool{"WatchList": true},
		BeforeAPIServer: func(ctx context.Context, kv etcdserver.RaftKV) error {
			defer func() { seeded = time.Since(start) }()
			if err := newPodSeeder(kv, shapeRealistic, templates[shapeRealistic]).seed(ctx, 0, n, 2, 1); err != nil {
				return err
			}
			return newPodSeeder(kv, shapeSmall, templates[shapeSmall]).seed(ctx, n, n+200, 2, 1)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv2.Stop(context.Background()); err != nil {
			t.Error(err)
		}
	})
	t.Logf("seeded %d Pods before kube-apiserver's start in %v, ready %v later", n+200, seeded.Round(time.Millisecond), (time.Since(start) - seeded).Round(time.Millisecond))
	for i := range proto.Namespaces {
		if err := srv2.CreateNamespace(ctx, proto.NamespacePrefix+strconv.Itoa(i)); err != nil {
			t.Fatal(err)
		}
	}
	cfg2 := srv2.Config()
	cfg2.ContentType = "application/vnd.kubernetes.protobuf"
	cs2, err := kubernetes.NewForConfig(cfg2)
	if err != nil {
		t.Fatal(err)
	}
	checkGet(ctx, t, srv2, cs2, shapeRealistic, n/2)
	checkGet(ctx, t, srv2, cs2, shapeSmall, n+100)
	checkListWatch(ctx, t, cs2, n+200)
}

// checkGet checks that GET of seeded Pod i is what the seeder wrote into
// srv's etcd, with etcd's revision as its resourceVersion.
func checkGet(ctx context.Context, t *testing.T, srv *kubeapiserver.Server, cs kubernetes.Interface, shape string, i int) {
	t.Helper()
	name := makePod(shape, namespace(i), i)
	got, err := cs.CoreV1().Pods(name.Namespace).Get(ctx, name.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	raw, rev := etcdValueRev(ctx, t, srv, podKey(name.Namespace, name.Name))
	written := decodePod(t, raw)
	written.ResourceVersion = strconv.FormatInt(rev, 10)
	written.TypeMeta = metav1.TypeMeta{} // the clientset's decoder clears it
	if !equality.Semantic.DeepEqual(written, got) {
		t.Errorf("%s: GET differs from what the seeder wrote:\n%s", shape, cmp.Diff(written, got))
	}
}

// checkListWatch checks that a paged LIST returns want Pods, each with a
// resourceVersion of its own, and that a WATCH from the LIST's
// resourceVersion sees a PATCH of one of them made after it.
func checkListWatch(ctx context.Context, t *testing.T, cs kubernetes.Interface, want int) {
	t.Helper()
	// LIST (paginated, as client-go lists) returns every Pod, each with a
	// resourceVersion of its own.
	var items []corev1.Pod
	opts := metav1.ListOptions{Limit: 500}
	var listRV string
	for {
		list, err := cs.CoreV1().Pods("").List(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, list.Items...)
		if listRV == "" {
			listRV = list.ResourceVersion
		}
		if opts.Continue = list.Continue; opts.Continue == "" {
			break
		}
	}
	if len(items) != want {
		t.Fatalf("LIST returned %d Pods, want %d", len(items), want)
	}
	rvs := map[string]bool{}
	for _, p := range items {
		if p.ResourceVersion == "" || rvs[p.ResourceVersion] {
			t.Fatalf("Pod %s/%s: resourceVersion %q empty or shared", p.Namespace, p.Name, p.ResourceVersion)
		}
		rvs[p.ResourceVersion] = true
	}

	// A WATCH from the LIST's resourceVersion sees a PATCH made after it.
	w, err := cs.CoreV1().Pods("").Watch(ctx, metav1.ListOptions{ResourceVersion: listRV})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	target := items[len(items)/3]
	patched, err := cs.CoreV1().Pods(target.Namespace).Patch(ctx, target.Name, types.MergePatchType,
		[]byte(`{"metadata":{"labels":{"patched":"yes"}}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatalf("PATCH of a seeded Pod: %v", err)
	}
	for ev := range w.ResultChan() {
		p, ok := ev.Object.(*corev1.Pod)
		if !ok {
			t.Fatalf("watch event %s of %T: %v", ev.Type, ev.Object, ev.Object)
		}
		if ev.Type != watch.Modified || p.Name != target.Name || p.Namespace != target.Namespace {
			t.Fatalf("watch from the LIST's resourceVersion: %s of %s/%s, want the PATCH of %s/%s", ev.Type, p.Namespace, p.Name, target.Namespace, target.Name)
		}
		if p.Labels["patched"] != "yes" || p.ResourceVersion != patched.ResourceVersion {
			t.Fatalf("watch: the patched Pod with labels %v at %s, want the patch's label at %s", p.Labels, p.ResourceVersion, patched.ResourceVersion)
		}
		break
	}
	got, err := cs.CoreV1().Pods(target.Namespace).Get(ctx, target.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Labels["patched"] != "yes" || got.ResourceVersion != patched.ResourceVersion {
		t.Errorf("GET after the PATCH: labels %v at %s", got.Labels, got.ResourceVersion)
	}
}

func processCPU(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime))
}

// normalize returns p without what differs between two creations of the
// same Pod: uid, resourceVersion, creation and managedFields times, the
// token volume's random suffix.
func normalize(p *corev1.Pod) *corev1.Pod {
	p = p.DeepCopy()
	p.UID, p.ResourceVersion, p.CreationTimestamp = "", "", metav1.Time{}
	for i := range p.ManagedFields {
		p.ManagedFields[i].Time = nil
	}
	rename := func(name string) string {
		if strings.HasPrefix(name, serviceAccountVolume) {
			return serviceAccountVolume + "xxxxx"
		}
		return name
	}
	for i := range p.Spec.Volumes {
		p.Spec.Volumes[i].Name = rename(p.Spec.Volumes[i].Name)
	}
	for _, cs := range [][]corev1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for c := range cs {
			for m := range cs[c].VolumeMounts {
				cs[c].VolumeMounts[m].Name = rename(cs[c].VolumeMounts[m].Name)
			}
		}
	}
	return p
}

func etcdValue(ctx context.Context, t *testing.T, srv *kubeapiserver.Server, key string) []byte {
	v, _ := etcdValueRev(ctx, t, srv, key)
	return v
}

// etcdValueRev returns the value at key and its modification revision.
func etcdValueRev(ctx context.Context, t *testing.T, srv *kubeapiserver.Server, key string) ([]byte, int64) {
	t.Helper()
	resp, err := srv.EtcdKV().Range(ctx, &etcdserverpb.RangeRequest{Key: []byte(key)})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) != 1 {
		t.Fatalf("etcd: %d values at %s", len(resp.Kvs), key)
	}
	return resp.Kvs[0].Value, resp.Kvs[0].ModRevision
}

func decodePod(t *testing.T, raw []byte) *corev1.Pod {
	t.Helper()
	obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(raw, nil, nil)
	if err != nil {
		t.Fatalf("decoding a stored Pod: %v", err)
	}
	p, ok := obj.(*corev1.Pod)
	if !ok {
		t.Fatalf("decoded a %T", obj)
	}
	return p
}

// checkEnvelope checks that a Pod the server stored is what the seeder's
// encoder writes for the same object, byte for byte.
func checkEnvelope(t *testing.T, stored []byte) {
	t.Helper()
	if !bytes.HasPrefix(stored, []byte("k8s\x00")) {
		t.Fatalf("the server stores Pods as %q…, not in the protobuf envelope", stored[:min(len(stored), 8)])
	}
	p := decodePod(t, stored)
	enc := scheme.Codecs.EncoderForVersion(protobuf.NewSerializer(scheme.Scheme, scheme.Scheme), corev1.SchemeGroupVersion)
	var buf bytes.Buffer
	if err := enc.Encode(p, &buf); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), stored) {
		t.Errorf("the seeder's encoding differs from the server's: %d bytes vs %d\n%s", buf.Len(), len(stored), fmt.Sprintf("%q\n%q", buf.Bytes(), stored))
	}
}
