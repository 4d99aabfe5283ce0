package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
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

// newPodSeeder creates a template Pod of shape through the API as the
// driver's API path does (create, then status, as seedUserAgent), reads it
// back and deletes it.
func newPodSeeder(ctx context.Context, srv *kubeapiserver.Server, shape string) (*podSeeder, error) {
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
	return &podSeeder{
		kv:    srv.EtcdKV(),
		shape: shape,
		tmpl:  tmpl,
		enc:   scheme.Codecs.EncoderForVersion(protobuf.NewSerializer(scheme.Scheme, scheme.Scheme), corev1.SchemeGroupVersion),
	}, nil
}

// pod returns the i-th Pod as the server would store it after its create
// at now and its status update.
func (s *podSeeder) pod(i int, now metav1.Time) *corev1.Pod {
	p := makePod(s.shape, namespace(i), i)
	setPodStatus(s.shape, p, i)
	k8sv1.SetObjectDefaults_Pod(p)
	t := s.tmpl
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

// seed writes Pods from..to-1 on workers goroutines, one etcd transaction
// per Pod that writes it only if its key is absent (a create, as
// kube-apiserver's storage writes it). One Pod per transaction, not
// batches: each Pod gets a revision (resourceVersion) of its own, as through
// the API; the watch cache assumes that (it is fresh at a revision once it
// has processed one event of it, and snapshots lists per revision).
// Concurrent transactions still share raft entries and backend commits.
func (s *podSeeder) seed(ctx context.Context, from, to, workers int) error {
	now := metav1.Now().Rfc3339Copy()
	return parallel(ctx, workers, from, to, func(ctx context.Context, i int) error {
		p := s.pod(i, now)
		var buf bytes.Buffer
		if err := s.enc.Encode(p, &buf); err != nil {
			return fmt.Errorf("encoding Pod %s/%s: %w", p.Namespace, p.Name, err)
		}
		key := []byte(podKey(p.Namespace, p.Name))
		txn := &etcdserverpb.TxnRequest{
			Compare: []*etcdserverpb.Compare{{
				Key: key, Target: etcdserverpb.Compare_MOD, Result: etcdserverpb.Compare_EQUAL,
				TargetUnion: &etcdserverpb.Compare_ModRevision{ModRevision: 0},
			}},
			Success: []*etcdserverpb.RequestOp{{Request: &etcdserverpb.RequestOp_RequestPut{
				RequestPut: &etcdserverpb.PutRequest{Key: key, Value: buf.Bytes()},
			}}},
		}
		var resp *etcdserverpb.TxnResponse
		attempts := 0
		err := retrySeed(ctx, func() (err error) {
			attempts++
			resp, err = s.kv.Txn(ctx, txn)
			return err
		})
		if err != nil {
			return fmt.Errorf("writing Pod %s/%s into etcd: %w", p.Namespace, p.Name, err)
		}
		// A write that timed out may still have been applied: the key
		// then exists when the retry runs, written by this seeder (the
		// only writer of these keys).
		if !resp.Succeeded && attempts == 1 {
			return fmt.Errorf("writing Pod %s/%s into etcd: it exists already", p.Namespace, p.Name)
		}
		return nil
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
