package wire

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/apimachinery/pkg/watch"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	restclientwatch "k8s.io/client-go/rest/watch"
	"sigs.k8s.io/randfill"

	lwt "github.com/informer-gen/informer-gen/internal/listwatchtest"
)

// The reference: what client-go's REST client does with a JSON response, for
// a scheme and group-version, without the HTTP: Result.Into for a LIST
// (runtime.NewClientNegotiator(...).Decoder, then Decode(body, nil, list)) and
// newStreamWatcher's decoder stack for a WATCH (the JSON framer, the streaming
// decoder into metav1.WatchEvent, then the object decoder by kind).
type reference struct {
	scheme *runtime.Scheme
	neg    runtime.ClientNegotiator
}

func newReference(scheme *runtime.Scheme, gv schema.GroupVersion) *reference {
	return &reference{scheme: scheme, neg: runtime.NewClientNegotiator(serializer.NewCodecFactory(scheme).WithoutConversion(), gv)}
}

func (r *reference) decodeList(body []byte, into runtime.Object) error {
	dec, err := r.neg.Decoder("application/json", nil)
	if err != nil {
		panic(err)
	}
	out, _, err := dec.Decode(body, nil, into)
	if err == nil && out != into {
		// Result.Into: a Status is an error, anything else is ignored,
		// leaving into as it was.
		if st, ok := out.(*metav1.Status); ok && st.Status != metav1.StatusSuccess {
			return apierrors.FromObject(st)
		}
		return errNotInto
	}
	return err
}

// errNotInto: client-go's Into would have returned nil and left the list
// empty, having decoded another kind; we count that as an error of the
// reference, which our codec must report too.
var errNotInto = errors.New("body decoded as another kind than the list")

type refEvent struct {
	typ watch.EventType
	obj runtime.Object
}

// decodeWatch returns the events client-go decodes from body until the
// first error (client-go's StreamWatcher stops there) or the end.
func (r *reference) decodeWatch(body []byte) ([]refEvent, error) {
	objDec, streamSer, framer, err := r.neg.StreamDecoder("application/json", nil)
	if err != nil {
		panic(err)
	}
	d := restclientwatch.NewDecoder(streaming.NewDecoder(framer.NewFrameReader(io.NopCloser(bytes.NewReader(body))), streamSer), objDec)
	var evs []refEvent
	for {
		typ, obj, err := d.Decode()
		if err != nil {
			if err == io.EOF {
				return evs, nil
			}
			return evs, err
		}
		evs = append(evs, refEvent{typ, obj})
	}
}

// apiType is one type of the differential tests.
type apiType struct {
	gvk      schema.GroupVersionKind
	elem     reflect.Type // the struct type; *elem is the object
	listElem reflect.Type // the list's struct type, nil if none is registered
	ref      *reference
	codec    *jsonCodec[runtime.Object]
	// opts are the codec's options; gen, when not nil, is this type with
	// a codec using its generated decoder (generatedDecoders).
	opts []Option
	gen  *apiType
}

// generatedDecoders are the GeneratedDecoder options of the types that have
// one, by struct type; registered by json_generated_test.go (an external
// test package: generated code imports this one) before the tests run.
var generatedDecoders = map[reflect.Type]Option{}

// extraTypes are types outside client-go's scheme that the differential
// tests include, registered like generatedDecoders.
var extraTypes []extraType

type extraType struct {
	scheme *runtime.Scheme
	gvk    schema.GroupVersionKind
	t      reflect.Type
}

// variants returns a, and a with its generated decoder when it has one: the
// differential tests run each.
func (a *apiType) variants() []*apiType {
	if a.gen != nil {
		return []*apiType{a, a.gen}
	}
	return []*apiType{a}
}

// name names the variant in test output.
func (a *apiType) name() string {
	if len(a.opts) > 0 {
		return a.gvk.String() + " (generated decoder)"
	}
	return a.gvk.String()
}

func (a *apiType) newObj() runtime.Object { return reflect.New(a.elem).Interface().(runtime.Object) }
func (a *apiType) newList() runtime.Object {
	return reflect.New(a.listElem).Interface().(runtime.Object)
}

// listItems returns the items of a decoded list as pointers.
func listItems(list runtime.Object) []runtime.Object {
	items := reflect.ValueOf(list).Elem().FieldByName("Items")
	out := make([]runtime.Object, items.Len())
	for i := range out {
		out[i] = items.Index(i).Addr().Interface().(runtime.Object)
	}
	return out
}

var (
	typesOnce sync.Once
	allTypes  []*apiType
)

// apiTypes returns every object type of client-go's scheme (every
// k8s.io/api group-version: the kinds with ObjectMeta) and listwatchtest's
// Widget, sorted by group-version-kind.
func apiTypes() []*apiType {
	typesOnce.Do(func() {
		refs := map[*runtime.Scheme]map[schema.GroupVersion]*reference{}
		add := func(scheme *runtime.Scheme, gvk schema.GroupVersionKind, t reflect.Type) {
			if _, ok := t.FieldByName("ObjectMeta"); !ok {
				return
			}
			if refs[scheme] == nil {
				refs[scheme] = map[schema.GroupVersion]*reference{}
			}
			gv := gvk.GroupVersion()
			if refs[scheme][gv] == nil {
				refs[scheme][gv] = newReference(scheme, gv)
			}
			a := &apiType{gvk: gvk, elem: t, ref: refs[scheme][gv], codec: newTestJSONCodec[runtime.Object](t, gvk)}
			if lt, ok := scheme.AllKnownTypes()[gv.WithKind(gvk.Kind+"List")]; ok {
				a.listElem = lt
			}
			if o, ok := generatedDecoders[t]; ok {
				g := *a
				g.opts = []Option{o}
				g.codec = newTestJSONCodec[runtime.Object](t, gvk, o)
				a.gen = &g
			}
			allTypes = append(allTypes, a)
		}
		for gvk, t := range clientgoscheme.Scheme.AllKnownTypes() {
			if gvk.Version == runtime.APIVersionInternal || strings.HasSuffix(gvk.Kind, "List") {
				continue
			}
			add(clientgoscheme.Scheme, gvk, t)
		}
		lscheme := runtime.NewScheme()
		if err := lwt.AddToScheme(lscheme); err != nil {
			panic(err)
		}
		add(lscheme, lwt.GVR.GroupVersion().WithKind("Widget"), reflect.TypeFor[lwt.Widget]())
		for _, e := range extraTypes {
			add(e.scheme, e.gvk, e.t)
		}
		slices.SortFunc(allTypes, func(a, b *apiType) int { return strings.Compare(a.gvk.String(), b.gvk.String()) })
	})
	return allTypes
}

// newFiller returns apimachinery's fuzzer (randfill with the meta funcs),
// as k8s.io/apimachinery/pkg/api/apitesting/roundtrip uses it.
func newFiller(seed int64) *randfill.Filler {
	return fuzzer.FuzzerFor(metafuzzer.Funcs, rand.NewSource(seed), serializer.NewCodecFactory(clientgoscheme.Scheme)).NilChance(0.2).MaxDepth(6)
}

func mustOK(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// isStricter reports an error of ours that client-go does not give (see the
// codec's doc): the documented differences.
func isStricter(err error) bool {
	return errors.Is(err, errKindMismatch) || errors.Is(err, errDuplicateItems)
}

// compareList decodes body as a LIST both ways and returns what differs
// ("" when nothing does). ok is false when both gave an error.
func compareList(a *apiType, body []byte) (diff string, ourErr, refErr error) {
	var ours []runtime.Object
	lm, ourErr := a.codec.DecodeList(bytes.NewReader(body), func(o runtime.Object) error {
		ours = append(ours, o)
		return nil
	})
	list := a.newList()
	refErr = a.ref.decodeList(body, list)
	switch {
	case ourErr != nil && refErr != nil:
		var de *DecodeError
		if !errors.As(ourErr, &de) {
			return "our error is not a *DecodeError: " + ourErr.Error(), ourErr, refErr
		}
		return "", ourErr, refErr
	case ourErr != nil:
		if isStricter(ourErr) {
			return "", ourErr, refErr
		}
		return "ours failed, client-go did not: " + ourErr.Error(), ourErr, refErr
	case refErr != nil:
		return "client-go failed, ours did not: " + refErr.Error(), ourErr, refErr
	}
	theirs := listItems(list)
	if len(ours) != len(theirs) {
		return "item counts differ", nil, nil
	}
	for i := range ours {
		if !reflect.DeepEqual(ours[i], theirs[i]) {
			return "item differs: " + diffObjects(ours[i], theirs[i]), nil, nil
		}
	}
	acc := reflect.ValueOf(list).Elem().FieldByName("ListMeta").Interface().(metav1.ListMeta)
	want := metav1.ListMeta{ResourceVersion: acc.ResourceVersion, Continue: acc.Continue, RemainingItemCount: acc.RemainingItemCount}
	if !reflect.DeepEqual(lm, want) {
		return "list metadata differs", nil, nil
	}
	return "", nil, nil
}

// compareWatch decodes body as a WATCH stream both ways, up to the first
// error, and returns what differs.
func compareWatch(a *apiType, body []byte) (diff string, ourErr, refErr error) {
	theirs, refErr := a.ref.decodeWatch(body)
	d := a.codec.NewWatchDecoder(bytes.NewReader(body))
	var ours []Event[runtime.Object]
	for {
		ev, err := d.Next()
		if err != nil {
			if err != io.EOF {
				ourErr = err
				var de *DecodeError
				if !errors.As(err, &de) {
					return "our error is not a *DecodeError: " + err.Error(), ourErr, refErr
				}
			}
			break
		}
		ours = append(ours, ev)
	}
	n := min(len(ours), len(theirs))
	for i := range n {
		o, t := ours[i], theirs[i]
		if o.Type != t.typ {
			return "event types differ", ourErr, refErr
		}
		if o.Type == watch.Error {
			if !reflect.DeepEqual(runtime.Object(o.Status), t.obj) {
				return "ERROR event status differs: " + diffObjects(o.Status, t.obj), ourErr, refErr
			}
			continue
		}
		if !reflect.DeepEqual(o.Object, t.obj) {
			return "event object differs: " + diffObjects(o.Object, t.obj), ourErr, refErr
		}
	}
	switch {
	case ourErr != nil && isStricter(ourErr) && len(ours) <= len(theirs):
	case errors.Is(ourErr, errNoKind) && hasTypeMetaInAnotherCase(body) && len(ours) < len(theirs):
		// Documented: client-go finds an event object's apiVersion and kind
		// case-insensitively, we do not.
	case ourErr != nil && len(ours) < len(theirs) && a.notT(theirs[len(ours)]):
		// client-go decoded the event by its kind into another type; we
		// decode into T, and whether that fails as a kind mismatch or as a
		// type error depends on where the kind is in the object.
	case len(ours) != len(theirs):
		return fmt.Sprintf("ours decoded %d events (then %v), client-go %d (then %v)", len(ours), ourErr, len(theirs), refErr), ourErr, refErr
	case (ourErr == nil) != (refErr == nil):
		return fmt.Sprintf("after %d events ours ended with %v, client-go with %v", len(ours), ourErr, refErr), ourErr, refErr
	}
	return "", ourErr, refErr
}

// typeMetaName matches a JSON member name apiVersion or kind in any case.
var typeMetaName = regexp.MustCompile(`(?i)"(apiversion|kind)"\s*:`)

// hasTypeMetaInAnotherCase reports a member named apiVersion or kind in
// another case than theirs ("ApiVersion", "KIND") somewhere in body.
func hasTypeMetaInAnotherCase(body []byte) bool {
	for _, m := range typeMetaName.FindAllSubmatch(body, -1) {
		if n := string(m[1]); n != "apiVersion" && n != "kind" {
			return true
		}
	}
	return false
}

// notT reports an event client-go decoded into another type than ours
// would be.
func (a *apiType) notT(ev refEvent) bool {
	if ev.typ == watch.Error {
		_, ok := ev.obj.(*metav1.Status)
		return !ok
	}
	return reflect.TypeOf(ev.obj) != reflect.PointerTo(a.elem)
}

// diffObjects describes how two objects differ, without printing values
// that are not in the test's own data.
func diffObjects(a, b any) string {
	if reflect.TypeOf(a) != reflect.TypeOf(b) {
		return fmt.Sprintf("%T vs %T", a, b)
	}
	return diff.Diff(a, b)
}
