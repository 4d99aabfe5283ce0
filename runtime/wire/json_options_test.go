package wire

import (
	"bytes"
	"io"
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// stripped returns obj with its own managedFields dropped, as the
// informer's transform does.
func stripped(obj runtime.Object) runtime.Object {
	if o, ok := obj.(metav1.Object); ok {
		o.SetManagedFields(nil)
	}
	return obj
}

// TestSkipManagedFieldsIsDecodeThenStrip: for random objects of every type,
// as LIST pages and WATCH streams (objects before and after their event
// type), a codec with SkipManagedFields returns what the codec without it
// returns with the objects' own managedFields dropped; nested ones (pod
// templates' metadata) are kept.
func TestSkipManagedFieldsIsDecodeThenStrip(t *testing.T) {
	hadMF, hadNested := 0, 0
	for _, a := range apiTypes() {
		skip := newTestJSONCodec[runtime.Object](a.elem, a.gvk, SkipManagedFields())
		list, watchBody := randomBodies(t, a, 1)
		// The same events with the object before the type, decoded from
		// the buffered value.
		objFirst := bytes.ReplaceAll(watchBody, []byte(`{"type":"ADDED","object":`), []byte(`{"object":`))
		if i := bytes.IndexByte(objFirst, '\n'); i > 0 && bytes.HasPrefix(objFirst, []byte(`{"object":`)) {
			objFirst = append(append(objFirst[:i-1:i-1], []byte(`,"type":"ADDED"}`)...), objFirst[i:]...)
		}
		if a.listElem != nil {
			var want, got []runtime.Object
			_, err := a.codec.DecodeList(bytes.NewReader(list), func(o runtime.Object) error {
				if m, ok := o.(metav1.Object); ok && m.GetManagedFields() != nil {
					hadMF++
				}
				want = append(want, stripped(o))
				return nil
			})
			mustOK(t, err)
			_, err = skip.DecodeList(bytes.NewReader(list), func(o runtime.Object) error { got = append(got, o); return nil })
			mustOK(t, err)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s LIST: %s", a.gvk, diffObjects(got, want))
			}
		}
		for _, body := range [][]byte{watchBody, objFirst} {
			want, got := decodeAll(t, a.codec, body), decodeAll(t, skip, body)
			for i := range want {
				if want[i].Object != nil {
					stripped(want[i].Object)
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s WATCH: %s", a.gvk, diffObjects(got, want))
			}
			if bytes.Contains(body, []byte(`"template":{"metadata":{`)) && bytes.Contains(body, []byte(`"managedFields":[{`)) {
				hadNested++
			}
		}
	}
	t.Logf("%d LIST items with managedFields, %d WATCH bodies with templates with managedFields", hadMF, hadNested)
	if hadMF == 0 || hadNested == 0 {
		t.Fatalf("the random objects had no managedFields (%d) or no templates with metadata (%d): the test tests nothing", hadMF, hadNested)
	}
}

func decodeAll(t *testing.T, c *jsonCodec[runtime.Object], body []byte) []Event[runtime.Object] {
	t.Helper()
	d := c.NewWatchDecoder(bytes.NewReader(body))
	var evs []Event[runtime.Object]
	for {
		ev, err := d.Next()
		if err == io.EOF {
			return evs
		}
		mustOK(t, err)
		evs = append(evs, ev)
	}
}

func TestIsTopManagedFields(t *testing.T) {
	for p, want := range map[string]bool{
		"/metadata/managedFields":                         true,
		"/object/metadata/managedFields":                  true,
		"/items/0/metadata/managedFields":                 true,
		"/items/12345/metadata/managedFields":             true,
		"/items//metadata/managedFields":                  false,
		"/items/1x/metadata/managedFields":                false,
		"/items/0/spec/template/metadata/managedFields":   false,
		"/object/template/metadata/managedFields":         false,
		"/spec/metadata/managedFields":                    false,
		"/metadata/managedFieldsX":                        false,
		"/items/0/metadata/managedFields/0/managedFields": false,
	} {
		if got := isTopManagedFields(p); got != want {
			t.Errorf("isTopManagedFields(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestSkipManagedFieldsEdges: the object's managedFields are skipped
// wherever the object is decoded from (a LIST item, a watch event's object
// before or after its type); a managedFields that is not an array or null is
// still an error, entries of the wrong shape are not (documented).
func TestSkipManagedFieldsEdges(t *testing.T) {
	a := semType()
	skip := newTestJSONCodec[runtime.Object](a.elem, a.gvk, SkipManagedFields())
	const mf = `"managedFields":[{"manager":"m","operation":"Update","fieldsType":"FieldsV1","fieldsV1":{"f:a":{}}}]`
	obj := `{"apiVersion":"test.wire/v1","kind":"SemObj","metadata":{"name":"n",` + mf + `},"str":"s"}`
	objLater := `{"apiVersion":"test.wire/v1","kind":"SemObj","metadata":{"name":"n"},"str":"s","metadata":{` + mf + `}}`
	check := func(what string, o runtime.Object) {
		t.Helper()
		s := o.(*semObj)
		if s.ManagedFields != nil || s.Name != "n" || s.Str != "s" {
			t.Errorf("%s: got managedFields %v, name %q, str %q", what, s.ManagedFields, s.Name, s.Str)
		}
	}
	for _, o := range []string{obj, objLater} {
		_, err := skip.DecodeList(bytes.NewReader([]byte(`{"items":[`+o+`,`+o+`]}`)), func(o runtime.Object) error {
			check("LIST item", o)
			return nil
		})
		mustOK(t, err)
		for _, body := range []string{`{"type":"ADDED","object":` + o + `}`, `{"object":` + o + `,"type":"ADDED"}`} {
			evs := decodeAll(t, skip, []byte(body))
			if len(evs) != 1 {
				t.Fatalf("%s: %d events", body, len(evs))
			}
			check(body, evs[0].Object)
		}
	}
	for body, wantErr := range map[string]bool{
		`{"items":[{"metadata":{"managedFields":5}}]}`:                       true,
		`{"items":[{"metadata":{"managedFields":{}}}]}`:                      true,
		`{"items":[{"metadata":{"managedFields":[1,2}}]}`:                    true, // not JSON
		`{"items":[{"metadata":{"managedFields":[{"manager":5}]}}]}`:         false,
		`{"items":[{"metadata":{"managedFields":null}}]}`:                    false,
		`{"items":[{"metadata":{"managedFields":[],"managedFields":[{}]}}]}`: false,
	} {
		_, err := skip.DecodeList(bytes.NewReader([]byte(body)), func(o runtime.Object) error {
			if o.(*semObj).ManagedFields != nil {
				t.Errorf("%s: managedFields kept", body)
			}
			return nil
		})
		if (err != nil) != wantErr {
			t.Errorf("%s: error %v, want error: %v", body, err, wantErr)
		}
	}
}

// compareSkip decodes body as a LIST and as a WATCH stream with a's codec
// and with one with SkipManagedFields, and returns how the second differs
// from the first with its objects' managedFields dropped ("" if it does
// not). Where the first fails, the second may go on (it does not decode
// managedFields entries), but everything before the failure must agree.
func compareSkip(a *apiType, body []byte) string {
	skip := newTestJSONCodec[runtime.Object](a.elem, a.gvk, append([]Option{SkipManagedFields()}, a.opts...)...)
	if a.listElem != nil {
		var want, got []runtime.Object
		_, errW := a.codec.DecodeList(bytes.NewReader(body), func(o runtime.Object) error { want = append(want, stripped(o)); return nil })
		_, errG := skip.DecodeList(bytes.NewReader(body), func(o runtime.Object) error { got = append(got, o); return nil })
		switch {
		case errW == nil && errG != nil:
			return "LIST: SkipManagedFields failed, the codec did not: " + errG.Error()
		case errW == nil && !reflect.DeepEqual(got, want):
			return "LIST: " + diffObjects(got, want)
		}
	}
	events := func(c *jsonCodec[runtime.Object]) (evs []Event[runtime.Object], err error) {
		d := c.NewWatchDecoder(bytes.NewReader(body))
		for {
			ev, err := d.Next()
			if err != nil {
				return evs, err
			}
			evs = append(evs, ev)
		}
	}
	want, errW := events(a.codec)
	got, errG := events(skip)
	for i := range want {
		if want[i].Object != nil {
			stripped(want[i].Object)
		}
	}
	switch {
	case len(got) < len(want):
		return "WATCH: SkipManagedFields decoded fewer events"
	case len(want) > 0 && !reflect.DeepEqual(got[:len(want)], want):
		return "WATCH: " + diffObjects(got[:len(want)], want)
	case errW == io.EOF && (errG != io.EOF || len(got) != len(want)):
		return "WATCH: the codec ended cleanly, SkipManagedFields did not"
	}
	return ""
}
