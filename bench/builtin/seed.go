package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/server/v3/etcdserver"
	etcderrors "go.etcd.io/etcd/server/v3/etcdserver/errors"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	k8sv1 "k8s.io/kubernetes/pkg/apis/core/v1"

	"github.com/informer-gen/informer-gen/examples/builtin/kubeapiserver"
)

// seedUserAgent is the user agent of every client that writes the
// benchmark's objects through the API, so the field manager the server
// records ("bench-builtin-seed") is the same whichever way a Pod was
// written.
const seedUserAgent = "bench-builtin-seed"

// serviceAccountVolume is the prefix of the projected token volume the
// ServiceAccount admission plugin adds to every Pod (a random suffix
// follows).
const serviceAccountVolume = "kube-api-access-"

// podSeeder writes Pods straight into the server's etcd as kube-apiserver
// stores them, ~20× faster than creating them through the API (two writes
// each: create, then status): the key /registry/pods/<ns>/<name>, the value
// the storage codec's protobuf envelope ("k8s\x00" and a runtime.Unknown of
// the v1 Pod), no resourceVersion (etcd's revision of the write is it). The
// Pods are the ones the API path writes (makePod, setPodStatus), with what
// the server adds to them taken from a template Pod created through the API
// once: the defaults (the v1 defaulting functions kube-apiserver runs),
// what admission adds (the ServiceAccount's token volume and its mounts,
// the not-ready/unreachable tolerations, priority) and the two
// managedFields entries (the create's and the status update's); a uid, a
// creationTimestamp and a token volume name of its own per Pod. TestSeed
// checks a seeded Pod against one created through the API.
type podSeeder struct {
	kv    etcdserver.RaftKV
	shape string
	tmpl  *corev1.Pod
	enc   runtime.Encoder
}

// templatePod creates a template Pod of shape through the API as the
// driver's API path does (create, then status, as seedUserAgent), reads it
// back and deletes it. It needs the namespace namespace(0) with its
// ServiceAccount "default".
func templatePod(ctx context.Context, srv *kubeapiserver.Server, shape string) (*corev1.Pod, error) {
	if !slices.Contains(podShapes, shape) {
		return nil, fmt.Errorf("unknown Pod shape %q (known: %s)", shape, strings.Join(podShapes, ", "))
	}
	cfg := srv.Config()
	cfg.UserAgent = seedUserAgent
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	p := makePod(shape, namespace(0), 0)
	p.Name = "seed-template-" + shape
	pods := cs.CoreV1().Pods(p.Namespace)
	created, err := pods.Create(ctx, p, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("creating the seeder's template Pod: %w", err)
	}
	setPodStatus(shape, created, 0)
	tmpl, err := pods.UpdateStatus(ctx, created, metav1.UpdateOptions{})
	if err != nil {
		return nil, fmt.Errorf("writing the seeder's template Pod's status: %w", err)
	}
	zero := int64(0)
	if err := pods.Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		return nil, fmt.Errorf("deleting the seeder's template Pod: %w", err)
	}
	return tmpl, nil
}

// newPodSeeder returns a seeder of Pods of shape into kv, with what the
// server adds to a Pod taken from tmpl (templatePod of the same shape, from
// a server of the same version).
func newPodSeeder(kv etcdserver.RaftKV, shape string, tmpl *corev1.Pod) *podSeeder {
	return &podSeeder{kv: kv, shape: shape, tmpl: tmpl, enc: podEncoder()}
}

// podEncoder encodes as kube-apiserver's storage does: the protobuf
// envelope of a v1 object.
func podEncoder() runtime.Encoder {
	return scheme.Codecs.EncoderForVersion(protobuf.NewSerializer(scheme.Scheme, scheme.Scheme), corev1.SchemeGroupVersion)
}

// writeTemplate writes tmpl into path (podEncoder's bytes), for a server
// process that seeds before its kube-apiserver starts (readTemplate).
func writeTemplate(path string, tmpl *corev1.Pod) error {
	var buf bytes.Buffer
	if err := podEncoder().Encode(tmpl, &buf); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o600)
}

// readTemplate reads a Pod writeTemplate wrote.
func readTemplate(path string) (*corev1.Pod, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(b, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("decoding the template Pod %s: %w", path, err)
	}
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return nil, fmt.Errorf("template %s: a %T, not a Pod", path, obj)
	}
	return p, nil
}

// pod returns the i-th Pod as the server would store it after its create
// at now and its status update.
func (s *podSeeder) pod(i int, now metav1.Time) *corev1.Pod {
	p := makePod(s.shape, namespace(i), i)
	setPodStatus(s.shape, p, i)
	t := s.tmpl
	// The pull policy the server's defaulting gave the template's
	// container of the same name (the images differ only in their
	// versioned tags): defaulting would parse each image reference, a
	// quarter of this function's CPU.
	for _, cs := range [][2][]corev1.Container{{p.Spec.InitContainers, t.Spec.InitContainers}, {p.Spec.Containers, t.Spec.Containers}} {
		for c := range cs[0] {
			for _, tc := range cs[1] {
				if tc.Name == cs[0][c].Name && cs[0][c].ImagePullPolicy == "" {
					cs[0][c].ImagePullPolicy = tc.ImagePullPolicy
				}
			}
		}
	}
	k8sv1.SetObjectDefaults_Pod(p)
	p.UID = uuid.NewUUID()
	p.CreationTimestamp = now
	p.Generation = t.Generation
	p.ManagedFields = slices.Clone(t.ManagedFields)
	// managedFields key the list items that merge by a key (podIPs by
	// IP, ownerReferences by uid) by its value: the template's values
	// become this Pod's.
	var keys []string
	if p.Status.PodIP != t.Status.PodIP {
		keys = append(keys, `\"ip\":\"`+t.Status.PodIP+`\"`, `\"ip\":\"`+p.Status.PodIP+`\"`)
	}
	for k := range min(len(p.OwnerReferences), len(t.OwnerReferences)) {
		if p.OwnerReferences[k].UID != t.OwnerReferences[k].UID {
			keys = append(keys, `\"uid\":\"`+string(t.OwnerReferences[k].UID)+`\"`, `\"uid\":\"`+string(p.OwnerReferences[k].UID)+`\"`)
		}
	}
	rekey := strings.NewReplacer(keys...)
	for j := range p.ManagedFields {
		f := &p.ManagedFields[j]
		f.Time = &now
		if f.FieldsV1 != nil && len(keys) > 0 {
			f.FieldsV1 = metav1.NewFieldsV1(rekey.Replace(f.FieldsV1.GetRawString()))
		}
	}
	sp, ts := &p.Spec, &t.Spec
	sp.ServiceAccountName, sp.DeprecatedServiceAccount = ts.ServiceAccountName, ts.DeprecatedServiceAccount
	sp.Priority, sp.PreemptionPolicy = ts.Priority, ts.PreemptionPolicy
	for _, tol := range ts.Tolerations {
		if !slices.ContainsFunc(sp.Tolerations, func(have corev1.Toleration) bool { return have.MatchToleration(&tol) }) {
			sp.Tolerations = append(sp.Tolerations, tol)
		}
	}
	for _, v := range ts.Volumes {
		if !strings.HasPrefix(v.Name, serviceAccountVolume) {
			continue
		}
		tmplName := v.Name
		v.Name = serviceAccountVolume + utilrand.String(5)
		sp.Volumes = append(sp.Volumes, v)
		addMounts := func(cs []corev1.Container, tcs []corev1.Container) {
			for c := range cs {
				for _, tc := range tcs {
					if tc.Name != cs[c].Name {
						continue
					}
					for _, m := range tc.VolumeMounts {
						if m.Name == tmplName {
							m.Name = v.Name
							cs[c].VolumeMounts = append(cs[c].VolumeMounts, m)
						}
					}
				}
			}
		}
		addMounts(sp.InitContainers, ts.InitContainers)
		addMounts(sp.Containers, ts.Containers)
	}
	return p
}

// podKey is where kube-apiserver stores the Pod ns/name.
func podKey(ns, name string) string {
	return kubeapiserver.EtcdPrefix + "/pods/" + ns + "/" + name
}

// maxSeedTxnBytes bounds one seeding transaction's values, under etcd's
// request limit (--max-request-bytes, 1.5 MiB by default).
const maxSeedTxnBytes = 1 << 20

// seed writes Pods from..to-1 on workers goroutines, in etcd transactions
// of up to batch Pods each, every one written only if its key is absent (a
// create, as kube-apiserver's storage writes it). With batch 1 each Pod
// gets a revision (resourceVersion) of its own, as through the API: what a
// running server's watch cache assumes (it is fresh at a revision once it
// has processed one event of it, and snapshots lists per revision), so
// seeding into a running server must use 1. Pods of one transaction share
// its revision; that is harmless only for Pods written before
// kube-apiserver starts (Options.BeforeAPIServer), which it reads with one
// LIST and never sees as events. Concurrent transactions share raft
// entries and backend commits.
func (s *podSeeder) seed(ctx context.Context, from, to, workers, batch int) error {
	now := metav1.Now().Rfc3339Copy()
	batch = max(batch, 1)
	batches := (to - from + batch - 1) / batch
	return parallel(ctx, workers, 0, batches, func(ctx context.Context, b int) error {
		txn := &etcdserverpb.TxnRequest{}
		var size int
		flush := func() error {
			if len(txn.Success) == 0 {
				return nil
			}
			var resp *etcdserverpb.TxnResponse
			attempts := 0
			err := retrySeed(ctx, func() (err error) {
				attempts++
				resp, err = s.kv.Txn(ctx, txn)
				return err
			})
			first := string(txn.Success[0].GetRequestPut().Key)
			if err != nil {
				return fmt.Errorf("writing Pods from %s on into etcd: %w", first, err)
			}
			// A write that timed out may still have been applied: its
			// keys then exist when the retry runs, written by this seeder
			// (the only writer of these keys).
			if !resp.Succeeded && attempts == 1 {
				return fmt.Errorf("writing Pods from %s on into etcd: one exists already", first)
			}
			txn, size = &etcdserverpb.TxnRequest{}, 0
			return nil
		}
		for i := from + b*batch; i < min(to, from+(b+1)*batch); i++ {
			p := s.pod(i, now)
			var buf bytes.Buffer
			if err := s.enc.Encode(p, &buf); err != nil {
				return fmt.Errorf("encoding Pod %s/%s: %w", p.Namespace, p.Name, err)
			}
			if size+buf.Len() > maxSeedTxnBytes {
				if err := flush(); err != nil {
					return err
				}
			}
			key := []byte(podKey(p.Namespace, p.Name))
			txn.Compare = append(txn.Compare, &etcdserverpb.Compare{
				Key: key, Target: etcdserverpb.Compare_MOD, Result: etcdserverpb.Compare_EQUAL,
				TargetUnion: &etcdserverpb.Compare_ModRevision{ModRevision: 0},
			})
			txn.Success = append(txn.Success, &etcdserverpb.RequestOp{Request: &etcdserverpb.RequestOp_RequestPut{
				RequestPut: &etcdserverpb.PutRequest{Key: key, Value: buf.Bytes()},
			}})
			size += buf.Len()
		}
		return flush()
	})
}

// retrySeed retries an etcd write that timed out (a loaded machine) up to
// five times.
func retrySeed(ctx context.Context, write func() error) error {
	var err error
	for attempt := range 5 {
		if err = write(); err == nil || !errors.Is(err, etcderrors.ErrTimeout) {
			return err
		}
		select {
		case <-time.After(time.Duration(attempt+1) * time.Second):
		case <-ctx.Done():
			return errors.Join(err, context.Cause(ctx))
		}
	}
	return err
}
