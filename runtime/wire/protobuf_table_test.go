package wire

import (
	"bytes"
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/informer-gen/informer-gen/runtime/internal/codecopts"
)

// pbTableObjectCodec is pbObjectCodec with the table decoder NewProtobuf
// uses: the codec of gvk with T = runtime.Object.
func pbTableObjectCodec(t testing.TB, gvk schema.GroupVersionKind, skipManagedFields bool) *protobufCodec[runtime.Object] {
	t.Helper()
	typ := scheme.Scheme.AllKnownTypes()[gvk]
	tab := pbTableOf(typ)
	if tab == nil {
		t.Fatalf("%s: no table for %v", gvk, typ)
	}
	return newProtobufTable(gvk, func() runtime.Object { return reflect.New(typ).Interface().(runtime.Object) }, tab, skipManagedFields, true)
}

// pbMarshal returns the generated Marshal of obj.
func pbMarshal(t testing.TB, obj runtime.Object) []byte {
	t.Helper()
	b, err := obj.(interface{ Marshal() ([]byte, error) }).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// pbGogo decodes b into a fresh object of obj's type with its generated
// Unmarshal.
func pbGogo(obj runtime.Object, b []byte) (runtime.Object, error) {
	o := reflect.New(reflect.TypeOf(obj).Elem()).Interface().(runtime.Object)
	return o, o.(pbUnmarshaler).Unmarshal(b)
}

// TestProtobufTableAllKinds decodes random objects of every built-in kind
// with the table decoder, each object twice (the second time from what the
// first one left to share), and requires exactly (reflect.DeepEqual) what
// the generated Unmarshal decodes; with managedFields skipped, what it
// decodes with managedFields dropped. Then the objects' LIST and WATCH
// encodings through the codec, against client-go's.
func TestProtobufTableAllKinds(t *testing.T) {
	seeds := 3
	if testing.Short() {
		seeds = 1
	}
	for _, gvk := range pbBuiltinKinds(t) {
		t.Run(gvk.GroupVersion().String()+"/"+gvk.Kind, func(t *testing.T) {
			typ := scheme.Scheme.AllKnownTypes()[gvk]
			tab := pbTableOf(typ)
			if tab == nil {
				t.Fatalf("no table for %v", typ)
			}
			skip := pbWithoutManagedFieldsTable(tab)
			if skip == tab {
				t.Fatalf("%v: metadata is not its field 1", typ)
			}
			d := newPBTableDecoder()
			for seed := range int64(seeds) {
				objs := pbRandomObjects(t, gvk, seed, 4)
				for i, o := range objs {
					b := pbMarshal(t, o)
					want, err := pbGogo(o, b)
					if err != nil {
						t.Fatal(err)
					}
					for round := range 2 {
						got := reflect.New(typ)
						if err := d.decode(tab, got.UnsafePointer(), b); err != nil {
							t.Fatalf("seed %d object %d round %d: %v", seed, i, round, err)
						}
						if !reflect.DeepEqual(got.Interface(), want) {
							t.Fatalf("seed %d object %d round %d differs from the generated Unmarshal's", seed, i, round)
						}
						got = reflect.New(typ)
						if err := d.decode(skip, got.UnsafePointer(), b); err != nil {
							t.Fatalf("seed %d object %d round %d without managedFields: %v", seed, i, round, err)
						}
						if !reflect.DeepEqual(got.Interface(), pbDropManagedFields(t, want)) {
							t.Fatalf("seed %d object %d round %d without managedFields differs", seed, i, round)
						}
					}
				}
				pbDiffList(t, pbTableObjectCodec(t, gvk, false), gvk, objs, seed)
				pbDiffWatch(t, pbTableObjectCodec(t, gvk, false), gvk, objs)
			}
		})
	}
}

// pbCompareDecoders decodes b with the generated Unmarshal of obj's type
// and with the table decoder d (tab is that type's table) and fails unless
// both fail or both give reflect.DeepEqual objects.
func pbCompareDecoders(t *testing.T, d *pbTableDecoder, tab *pbTable, obj runtime.Object, b []byte, what string) {
	t.Helper()
	want, wantErr := pbGogo(obj, b)
	got := reflect.New(tab.typ)
	err := d.decode(tab, got.UnsafePointer(), b)
	switch {
	case (err == nil) != (wantErr == nil):
		t.Fatalf("%s: table decoder: %v, generated Unmarshal: %v", what, err, wantErr)
	case err == nil && !reflect.DeepEqual(got.Interface(), want):
		t.Fatalf("%s: decoded objects differ", what)
	}
}

// TestProtobufTableMalformed cuts and corrupts the bytes of random objects
// of every built-in kind and requires the outcome of the generated
// Unmarshal: the same error or success, the same object; never a panic.
func TestProtobufTableMalformed(t *testing.T) {
	kinds := pbBuiltinKinds(t)
	rng := rand.New(rand.NewSource(1))
	for _, gvk := range kinds {
		typ := scheme.Scheme.AllKnownTypes()[gvk]
		tab := pbTableOf(typ)
		d := newPBTableDecoder()
		for _, o := range pbRandomObjects(t, gvk, 7, 2) {
			b := pbMarshal(t, o)
			step := max(1, len(b)/40)
			for n := 0; n < len(b); n += step {
				pbCompareDecoders(t, d, tab, o, b[:n], fmt.Sprintf("%s cut at %d of %d", gvk.Kind, n, len(b)))
			}
			for range 40 {
				c := bytes.Clone(b)
				for range 1 + rng.Intn(3) {
					if len(c) > 0 {
						c[rng.Intn(len(c))] = byte(rng.Intn(256))
					}
				}
				pbCompareDecoders(t, d, tab, o, c, fmt.Sprintf("%s corrupted", gvk.Kind))
			}
		}
	}
}

// FuzzProtobufTablePod decodes arbitrary bytes as a Pod with the table
// decoder and the generated Unmarshal: the same outcome, never a panic.
func FuzzProtobufTablePod(f *testing.F) {
	for _, b := range pbRealisticPodBytes(f, 3) {
		f.Add(b)
	}
	f.Add([]byte{})
	f.Add([]byte{0x0a, 0x02, 0x5a, 0x00})             // metadata{labels: an empty entry}
	f.Add([]byte{0x0a, 0x04, 0x5a, 0x02, 0x0a, 0x7f}) // a label key running past the message
	tab := pbTableOf(reflect.TypeFor[corev1.Pod]())
	skip := pbWithoutManagedFieldsTable(tab)
	d := newPBTableDecoder()
	f.Fuzz(func(t *testing.T, b []byte) {
		pbCompareDecoders(t, d, tab, &corev1.Pod{}, b, "pod")
		got := new(corev1.Pod)
		if err := d.decode(skip, unsafe.Pointer(got), b); err == nil {
			// Skipping managedFields accepts what the full decode
			// accepts, and gives the same object but them; it may accept
			// more (bytes inside a skipped entry are not checked).
			want, wantErr := pbGogo(&corev1.Pod{}, b)
			if wantErr == nil {
				want.(*corev1.Pod).ManagedFields = nil
				if !reflect.DeepEqual(got, want) {
					t.Fatal("without managedFields: differs from the generated Unmarshal's")
				}
			}
		}
	})
}

// TestProtobufTableSharing checks what decoded objects share: equal label
// maps and Quantities are one, a map that takes more entries later in its
// object is copied first, and a Quantity holding an inf.Dec is never kept.
func TestProtobufTableSharing(t *testing.T) {
	tab := pbTableOf(reflect.TypeFor[corev1.Pod]())
	d := newPBTableDecoder()
	decode := func(p *corev1.Pod) *corev1.Pod {
		t.Helper()
		b := pbMarshal(t, p)
		got := new(corev1.Pod)
		if err := d.decode(tab, unsafe.Pointer(got), b); err != nil {
			t.Fatal(err)
		}
		want, err := pbGogo(p, b)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("decoded %+v, want %+v", got, want)
		}
		return got
	}
	pod := func(name string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "a", "tier": "web"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{
				Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")},
			}}}},
		}
	}
	a, b, c := decode(pod("a")), decode(pod("b")), decode(pod("c"))
	same := func(x, y any) bool { return reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer() }
	if same(a.Labels, b.Labels) {
		t.Error("the first two objects share their labels: a map is kept for sharing the second time its bytes are seen")
	}
	if !same(b.Labels, c.Labels) || !same(b.Spec.Containers[0].Resources.Limits, c.Spec.Containers[0].Resources.Limits) {
		t.Error("equal labels or limits are not shared")
	}
	if a.Name == b.Name || unsafe.StringData(a.Labels["app"]) != unsafe.StringData(b.Labels["app"]) {
		t.Error("label values are not interned")
	}

	// A map whose entries are not all in one run: the run shared, then
	// the later entry written to a copy.
	body := pbMarshal(t, pod("d"))
	extra := pbMarshal(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"late": "1"}}})
	split := new(corev1.Pod)
	if err := d.decode(tab, unsafe.Pointer(split), append(body, extra...)); err != nil {
		t.Fatal(err)
	}
	want := new(corev1.Pod)
	if err := want.Unmarshal(append(body, extra...)); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(split, want) {
		t.Fatalf("split labels: %v, want %v", split.Labels, want.Labels)
	}
	if _, ok := c.Labels["late"]; ok || len(c.Labels) != 2 {
		t.Fatalf("an entry after the shared run was written to the shared map: %v", c.Labels)
	}

	// A Quantity with an inf.Dec (too precise for an int64) is decoded
	// afresh every time.
	q := resource.MustParse("123456789012345678901234567890")
	if pbQuantityShareable(&q) {
		t.Fatal("a Quantity with an inf.Dec counts as shareable")
	}
	big := &corev1.Pod{Spec: corev1.PodSpec{Overhead: corev1.ResourceList{"x": q}}}
	clear(d.quantities)
	decode(big)
	decode(big)
	if len(d.quantities) != 0 {
		t.Errorf("a Quantity with an inf.Dec was kept for sharing")
	}
}

// TestProtobufTableDistinctMaps checks that a codec built with
// codecopts.Options.DistinctMaps (the factory's, for an informer with a
// Transform) gives every object maps of its own, and still interns strings.
func TestProtobufTableDistinctMaps(t *testing.T) {
	codec := must(NewProtobuf[*corev1.Pod](pbPodGVK, OptionOf(func(o *codecopts.Options) { o.DistinctMaps = true })))
	list := &corev1.PodList{}
	for i := range 3 {
		list.Items = append(list.Items, corev1.Pod{ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprint("p", i), Labels: map[string]string{"app": "a", "tier": "web"}}})
	}
	body := pbServerList(t, list, corev1.SchemeGroupVersion.WithKind("PodList"), false)
	var pods []*corev1.Pod
	if _, err := codec.DecodeList(bytes.NewReader(body), func(p *corev1.Pod) error {
		pods = append(pods, p)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(pods) != 3 {
		t.Fatalf("decoded %d pods, want 3", len(pods))
	}
	for i := 1; i < len(pods); i++ {
		if reflect.ValueOf(pods[i].Labels).UnsafePointer() == reflect.ValueOf(pods[i-1].Labels).UnsafePointer() {
			t.Fatalf("pods %d and %d share their labels map with DistinctMaps", i-1, i)
		}
		if unsafe.StringData(pods[i].Labels["app"]) != unsafe.StringData(pods[0].Labels["app"]) {
			t.Fatalf("label values of pod %d are not interned", i)
		}
	}
	pods[2].Labels["mine"] = "x"
	if _, ok := pods[1].Labels["mine"]; ok {
		t.Fatal("a write into one object's map reached another object")
	}
}

// TestProtobufTableBounded decodes objects whose strings and maps are all
// unique, as a hostile or merely churning stream would send, and checks
// that what the decoder keeps for sharing stays within its bounds.
func TestProtobufTableBounded(t *testing.T) {
	tab := pbTableOf(reflect.TypeFor[corev1.Pod]())
	d := newPBTableDecoder()
	pod := new(corev1.Pod)
	n := 2 * pbInternMaxEntries / 8
	if testing.Short() {
		n /= 4
	}
	for i := range n {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{}}}
		for j := range 8 {
			p.Labels["k"+strconv.Itoa(j)] = fmt.Sprintf("%0200d", i*8+j)
		}
		b := pbMarshal(t, p)
		// Twice, so that the label map is kept for sharing.
		for range 2 {
			*pod = corev1.Pod{}
			if err := d.decode(tab, unsafe.Pointer(pod), b); err != nil {
				t.Fatal(err)
			}
		}
		switch {
		case len(d.strings) > pbInternMaxEntries || d.stringBytes > pbInternMaxBytes:
			t.Fatalf("after %d objects the interner holds %d strings, %d bytes", i+1, len(d.strings), d.stringBytes)
		case d.mapCount > pbShareMaxEntries || d.mapBytes > pbShareMaxBytes:
			t.Fatalf("after %d objects %d maps of %d bytes are kept", i+1, d.mapCount, d.mapBytes)
		case d.objCount > pbShareObjEntries || d.objBytes > pbShareObjBytes:
			t.Fatalf("after %d objects %d sub-objects of %d bytes are kept", i+1, d.objCount, d.objBytes)
		case len(d.seen) > pbSeenMax:
			t.Fatalf("after %d objects %d hashes are kept", i+1, len(d.seen))
		}
	}
	if d.stringBytes == 0 || d.mapCount == 0 {
		t.Fatal("nothing kept: the test does not exercise the bounds")
	}
}

// TestProtobufTableConcurrent decodes LIST bodies of realistic Pods from
// several goroutines through one codec (its decoder and what it shares are
// guarded; run with -race), each object equal to the generated Unmarshal's.
func TestProtobufTableConcurrent(t *testing.T) {
	codec := must(NewProtobuf[*corev1.Pod](pbPodGVK))
	pods := pbRealisticPodBytes(t, 50)
	list := &corev1.PodList{}
	for _, b := range pods {
		p := new(corev1.Pod)
		if err := p.Unmarshal(b); err != nil {
			t.Fatal(err)
		}
		list.Items = append(list.Items, *p)
	}
	body := pbServerList(t, list, corev1.SchemeGroupVersion.WithKind("PodList"), false)
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			i := 0
			_, err := codec.DecodeList(bytes.NewReader(body), func(p *corev1.Pod) error {
				if !reflect.DeepEqual(p, &list.Items[i]) {
					return fmt.Errorf("item %d differs", i)
				}
				i++
				return nil
			})
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestProtobufTableSharedSubObjects checks that sub-objects encoded with the
// same bytes (a pointer to a message, a repeated field of messages or of
// strings) are one between objects from the second time their bytes are
// seen, that every object still equals the generated Unmarshal's, and that
// what follows a shared value in the same object (a later run of a
// repeated field, a second occurrence of a pointer field, which the
// generated code merges into the message) never reaches the shared value.
func TestProtobufTableSharedSubObjects(t *testing.T) {
	decode := pbPodDecoder(t)
	pod := func(name string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "rs", UID: "u"}}},
			Spec: corev1.PodSpec{
				Containers: []corev1.Container{{Name: "c", Image: "i", Command: []string{"/bin", "-x"},
					LivenessProbe: &corev1.Probe{PeriodSeconds: 10}}},
				Tolerations:     []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists}},
				SecurityContext: &corev1.PodSecurityContext{RunAsUser: ptrTo(int64(1000))},
			},
		}
	}
	a, b, c := decode(pbMarshal(t, pod("a"))), decode(pbMarshal(t, pod("b"))), decode(pbMarshal(t, pod("c")))
	same := func(x, y any) bool { return reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer() }
	if same(a.Spec.Containers, b.Spec.Containers) {
		t.Error("the first two objects share their containers: a sub-object is kept for sharing the second time its bytes are seen")
	}
	for what, pair := range map[string][2]any{
		"containers":       {b.Spec.Containers, c.Spec.Containers},
		"tolerations":      {b.Spec.Tolerations, c.Spec.Tolerations},
		"owner references": {b.OwnerReferences, c.OwnerReferences},
		"security context": {b.Spec.SecurityContext, c.Spec.SecurityContext},
	} {
		if !same(pair[0], pair[1]) {
			t.Errorf("equal %s are not shared", what)
		}
	}
	if cap(c.Spec.Containers) != len(c.Spec.Containers) {
		t.Errorf("a shared slice has room beyond its length (%d > %d): an append would write into it", cap(c.Spec.Containers), len(c.Spec.Containers))
	}

	// A later run of a repeated field appends to a copy; a second
	// occurrence of a shared pointer field is merged into a private copy.
	body := pbMarshal(t, pod("d"))
	extra := pbMarshal(t, &corev1.Pod{Spec: corev1.PodSpec{
		Tolerations:     []corev1.Toleration{{Key: "late"}},
		SecurityContext: &corev1.PodSecurityContext{RunAsGroup: ptrTo(int64(7))},
	}})
	merged := decode(append(body, extra...))
	if len(merged.Spec.Tolerations) != 2 || merged.Spec.SecurityContext.RunAsGroup == nil || *merged.Spec.SecurityContext.RunAsUser != 1000 {
		t.Fatalf("merged: tolerations %v, security context %+v", merged.Spec.Tolerations, merged.Spec.SecurityContext)
	}
	if len(c.Spec.Tolerations) != 1 || c.Spec.SecurityContext.RunAsGroup != nil || len(c.Spec.Tolerations[:cap(c.Spec.Tolerations)]) != 1 {
		t.Fatalf("what followed a shared value reached it: tolerations %v, security context %+v", c.Spec.Tolerations, c.Spec.SecurityContext)
	}
	if e := decode(pbMarshal(t, pod("e"))); !same(e.Spec.SecurityContext, c.Spec.SecurityContext) || e.Spec.SecurityContext.RunAsGroup != nil {
		t.Fatal("the shared security context changed or was dropped after a merge into a copy")
	}

	// The same with the nested values: a container's probe merged.
	twice := append(pbMarshal(t, pod("f")), pbMarshal(t, &corev1.Pod{Spec: corev1.PodSpec{
		SecurityContext: &corev1.PodSecurityContext{FSGroup: ptrTo(int64(3))},
	}})...)
	for range 3 {
		p := decode(twice)
		if p.Spec.SecurityContext.FSGroup == nil || *p.Spec.SecurityContext.RunAsUser != 1000 {
			t.Fatalf("merged twice: %+v", p.Spec.SecurityContext)
		}
	}
	if c.Spec.SecurityContext.FSGroup != nil {
		t.Fatal("a merge reached the shared security context")
	}

	// DistinctMaps (a Transform may write into the objects) shares no
	// sub-object either.
	codec := must(NewProtobuf[*corev1.Pod](pbPodGVK, OptionOf(func(o *codecopts.Options) { o.DistinctMaps = true })))
	list := &corev1.PodList{Items: []corev1.Pod{*pod("x"), *pod("y"), *pod("z")}}
	var pods []*corev1.Pod
	if _, err := codec.DecodeList(bytes.NewReader(pbServerList(t, list, corev1.SchemeGroupVersion.WithKind("PodList"), false)), func(p *corev1.Pod) error {
		pods = append(pods, p)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if same(pods[1].Spec.Containers, pods[2].Spec.Containers) || same(pods[1].Spec.SecurityContext, pods[2].Spec.SecurityContext) {
		t.Fatal("sub-objects shared with DistinctMaps")
	}
}

func ptrTo[T any](v T) *T { return &v }

// pbPodDecoder returns a func that decodes a Pod with one table decoder (so
// what it keeps for sharing carries over between calls) and fails t unless
// the Pod equals the generated Unmarshal's.
func pbPodDecoder(t *testing.T) func(b []byte) *corev1.Pod {
	tab := pbTableOf(reflect.TypeFor[corev1.Pod]())
	d := newPBTableDecoder()
	return func(b []byte) *corev1.Pod {
		t.Helper()
		got := new(corev1.Pod)
		if err := d.decode(tab, unsafe.Pointer(got), b); err != nil {
			t.Fatal(err)
		}
		want := new(corev1.Pod)
		if err := want.Unmarshal(b); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("decoded %+v, want %+v", got, want)
		}
		return got
	}
}

// TestProtobufTableSharesEmptyMessages checks that a pointer field holding an
// empty message (the `securityContext: {}` kube-apiserver's defaulting
// writes into every Pod) is shared like any other sub-object, and that a
// later occurrence of the field in the same object merges into a copy.
func TestProtobufTableSharesEmptyMessages(t *testing.T) {
	decode := pbPodDecoder(t)
	empty := pbMarshal(t, &corev1.Pod{Spec: corev1.PodSpec{SecurityContext: &corev1.PodSecurityContext{}}})
	a, b, c := decode(empty), decode(empty), decode(empty)
	if a.Spec.SecurityContext == b.Spec.SecurityContext {
		t.Error("the first two objects share their empty security context: a sub-object is kept for sharing the second time its bytes are seen")
	}
	if b.Spec.SecurityContext != c.Spec.SecurityContext {
		t.Error("equal empty security contexts are not shared")
	}
	late := pbMarshal(t, &corev1.Pod{Spec: corev1.PodSpec{SecurityContext: &corev1.PodSecurityContext{RunAsUser: ptrTo(int64(7))}}})
	merged := decode(append(slices.Clone(empty), late...))
	if merged.Spec.SecurityContext == c.Spec.SecurityContext || !reflect.DeepEqual(*c.Spec.SecurityContext, corev1.PodSecurityContext{}) {
		t.Fatalf("a later security context reached the shared empty one: %+v", c.Spec.SecurityContext)
	}
}
