package wire

import (
	"fmt"
	"maps"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informer-gen/informer-gen/internal/apiversion"
	"github.com/informer-gen/informer-gen/runtime/internal/codecopts"
)

// genPodCases are Pod objects that take every branch of a generated decoder
// and of the runtime helpers it calls: fast paths, and each hand-over to
// DecodeDefault (null, another JSON kind, duplicates, numbers that do not
// parse, methods), plus hostile bytes.
var genPodCases = []string{
	`{}`,
	`{"metadata":null,"spec":null,"status":null}`,
	`{"metadata":{"name":"a","namespace":"n","labels":{"a":"1","a":"2"},"annotations":null}}`,
	`{"metadata":{"name":"a"},"metadata":{"namespace":"n"}}`,
	`{"metadata":{"name":"a","name":null}}`,
	`{"metadata":{"name":"a","labels":{"x":"1"},"labels":{"y":"2"}}}`,
	`{"metadata":{"labels":{"x":null}}}`,
	`{"metadata":{"name":7}}`,
	`{"metadata":{"name":"caf\u00e9 \ud800 \\ \" x"}}`,
	"{\"metadata\":{\"name\":\"bad \xff utf8\"}}",
	"{\"metadata\":{\"na\xffme\":\"x\"}}",
	`{"metadata":{"n\u0061me":"escaped name"}}`,
	`{"metadata":{"Name":"wrong case"}}`,
	`{"metadata":{"generation":1.0}}`,
	`{"metadata":{"generation":1e3}}`,
	`{"metadata":{"generation":-9223372036854775808}}`,
	`{"metadata":{"generation":9223372036854775808}}`,
	`{"metadata":{"generation":"5"}}`,
	`{"metadata":{"generation":null}}`,
	`{"metadata":{"creationTimestamp":"2020-01-02T03:04:05Z","deletionTimestamp":null}}`,
	`{"metadata":{"deletionTimestamp":"2020-01-02T03:04:05Z","deletionTimestamp":"2021-01-02T03:04:05Z"}}`,
	`{"metadata":{"deletionTimestamp":"not a time"}}`,
	`{"metadata":{"deletionTimestamp":5}}`,
	`{"metadata":{"deletionGracePeriodSeconds":30,"deletionGracePeriodSeconds":null}}`,
	`{"metadata":{"managedFields":[{"manager":"m","operation":"Apply","fieldsV1":{"f:a":{}},"time":"2020-01-02T03:04:05Z"}]}}`,
	`{"metadata":{"managedFields":[{"manager":"m"}],"managedFields":[{"operation":"Update"}]}}`,
	`{"metadata":{"managedFields":null}}`,
	`{"metadata":{"managedFields":{}}}`,
	`{"metadata":{"managedFields":[1]}}`,
	`{"metadata":{"ownerReferences":[{"apiVersion":"v1","kind":"X","name":"o","uid":"u","controller":true,"controller":null}]}}`,
	`{"metadata":{"finalizers":[]}}`,
	`{"metadata":{"finalizers":["a",null,"b"]}}`,
	`{"metadata":{"finalizers":"a"}}`,
	`{"spec":{"containers":[]}}`,
	`{"spec":{"containers":null}}`,
	`{"spec":{"containers":[null]}}`,
	`{"spec":{"containers":[{"name":"a"},{"name":"b","ports":[{"containerPort":80,"protocol":"TCP"}]}]}}`,
	`{"spec":{"containers":[{"name":"a"}],"containers":[{"image":"i"},{"name":"c"}]}}`,
	`{"spec":{"containers":[{"name":"a","resources":{"limits":{"cpu":"1","memory":"1Gi"},"requests":{"cpu":"100m","cpu":"200m"}}}]}}`,
	`{"spec":{"containers":[{"resources":{"limits":{"cpu":5}}}]}}`,
	`{"spec":{"containers":[{"resources":{"limits":{"cpu":"bogus"}}}]}}`,
	`{"spec":{"containers":[{"resources":{"limits":{"cpu":null}}}]}}`,
	`{"spec":{"containers":[{"livenessProbe":{"httpGet":{"port":8080,"path":"/"}}},{"livenessProbe":{"httpGet":{"port":"http"}}}]}}`,
	`{"spec":{"containers":[{"securityContext":{"runAsUser":0,"privileged":false,"capabilities":{"add":["NET_ADMIN"]}}}]}}`,
	`{"spec":{"nodeSelector":{"a":"b"},"nodeSelector":null}}`,
	`{"spec":{"tolerations":[{"key":"k","tolerationSeconds":null},{"tolerationSeconds":5}]}}`,
	`{"spec":{"activeDeadlineSeconds":5,"activeDeadlineSeconds":6}}`,
	`{"spec":{"terminationGracePeriodSeconds":1.5}}`,
	`{"spec":{"hostNetwork":"true"}}`,
	`{"spec":{"hostNetwork":1}}`,
	`{"spec":{"priority":2147483648}}`,
	`{"spec":{"priority":-2147483648}}`,
	`{"spec":{"overhead":{"cpu":"1"},"overhead":{"memory":"1"}}}`,
	`{"spec":{"volumes":[{"name":"v","emptyDir":{"sizeLimit":"1Gi"}},{"name":"w","secret":{"defaultMode":420,"items":[{"key":"k","path":"p","mode":null}]}}]}}`,
	`{"spec":{"volumes":[{"configMap":{"defaultMode":1e2}}]}}`,
	`{"spec":{"securityContext":{"sysctls":[{"name":"a","value":"b"}],"fsGroup":-1}}}`,
	`{"spec":{"unknown":{"deep":[1,2,{"x":null}]},"containers":[{"name":"a","unknownField":true}]}}`,
	`{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True","lastTransitionTime":null}],"startTime":"2020-01-02T03:04:05Z"}}`,
	`{"status":{"containerStatuses":[{"name":"a","state":{"running":{"startedAt":"2020-01-02T03:04:05Z"}},"restartCount":2147483647}]}}`,
	`{"status":{"containerStatuses":[{"restartCount":2147483648}]}}`,
	`{"status":{"podIPs":[{"ip":"10.0.0.1"},{"ip":"10.0.0.2"}],"podIP":"10.0.0.1"}}`,
	`{"status":[]}`,
	`{"spec":"x"}`,
	`{"metadata":[]}`,
	`{"metadata":{"labels":[]}}`,
	`{"metadata":{"labels":{"a":1}}}`,
	`{"spec":{"containers":[{"name":"a"}` + strings.Repeat(" ", 3) + `]} , "metadata" : { "name" : "ws" } }`,
}

// hostile are bodies that end or break inside an object: errors from both,
// never a panic.
var genPodHostile = []string{
	`{"metadata":{"name":"a"`,
	`{"spec":{"containers":[{"name":"a"},`,
	`{"spec":{"containers":[{"name":"a"}}`,
	`{"metadata":{"labels":{"a":}}}`,
	`{"metadata":{"name":"a"}}}`,
	`{"spec":{"containers":[` + strings.Repeat(`{"name":"x"},`, 100) + `{"name":"y"}]}`,
	`{"spec":{"unknown":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}}`,
	`{"metadata":{"name":"` + strings.Repeat("x", 1<<20) + `"}}`,
	`{"metadata":{"generation":12345678901234567890123}}`,
	`{"spec":{"containers":[{"ports":[{"containerPort":-1e400}]}]}}`,
}

// genGadgetCases are objects of the json-decoders golden case's Gadget, whose
// fields take the planner's other branches: UnmarshalJSON types, []byte,
// nested slices and maps, recursion, and structs left to the default decoder.
var genGadgetCases = []string{
	`{"spec":{"size":"1Gi","port":8080,"raw":{"a":[1,2]},"data":"aGk=","counts":{"a":1,"b":-2}}}`,
	`{"spec":{"size":null,"port":null,"raw":null,"data":null,"counts":null,"parts":null,"tree":null}}`,
	`{"spec":{"size":5}}`,
	`{"spec":{"size":"bogus"}}`,
	`{"spec":{"size":"1","size":"2"}}`,
	`{"spec":{"port":"http"}}`,
	`{"spec":{"port":1.5}}`,
	`{"spec":{"port":{}}}`,
	`{"spec":{"raw":"s"}}`,
	`{"spec":{"raw":{"a":1},"raw":[2]}}`,
	`{"spec":{"data":"not base64!"}}`,
	`{"spec":{"data":[1,2]}}`,
	`{"spec":{"counts":{"a":1,"a":null}}}`,
	`{"spec":{"counts":{"a":1.5}}}`,
	`{"spec":{"counts":{"a":"1"}}}`,
	`{"spec":{"counts":{"a":1},"counts":{"b":2}}}`,
	`{"spec":{"parts":[{"name":"p","weight":1e308,"enabled":true,"tier":"gold"},{"weight":-0,"enabled":null}]}}`,
	`{"spec":{"parts":[{"weight":1e309}]}}`,
	`{"spec":{"parts":[{"weight":"1"}]}}`,
	`{"spec":{"parts":[{"enabled":"true"}]}}`,
	`{"spec":{"tree":{"value":"r","children":[{"value":"a","children":[{"value":"b"}]},{"children":null},{}]}}}`,
	`{"spec":{"tree":{"value":"r"},"tree":{"children":[{"value":"c"}]}}}`,
	`{"spec":{"legacy":{"count":"5"}}}`,
	`{"spec":{"legacy":{"count":5}}}`,
	`{"spec":{"legacy":{"count":"x"}}}`,
	`{"spec":{"shadow":{"name":"outer","weight":2,"tier":"t"}}}`,
	`{"spec":{"selector":{"matchLabels":{"a":"b"},"matchExpressions":[{"key":"k","operator":"In","values":["v",null]}]}}}`,
	`{"spec":{"matrix":[["a","b"],null,[]]}}`,
	`{"spec":{"matrix":[["a"]],"matrix":[["b"]]}}`,
	`{"spec":{"matrix":["a"]}}`,
	`{"spec":{"extra":{"k":null,"l":["x"],"k":["y"]}}}`,
	`{"spec":{"extra":{"k":"x"}}}`,
	`{"spec":{"NoTag":"x","notag":"y","Ignored":"z","-":"w"}}`,
	`{"status":null}`,
	`{"status":{"conditions":[{"type":"Ready","lastTransitionTime":"2020-01-02T03:04:05Z"},{"lastTransitionTime":"bad"}]}}`,
	`{"status":{"conditions":[{"observedGeneration":"1"}]}}`,
	`{"status":{"conditions":{}}}`,
	`{"spec":{"tree":` + strings.Repeat(`{"children":[`, 300) + strings.Repeat(`]}`, 300) + `}}`,
	`{"spec":{"parts":[{"name":"a"}` + strings.Repeat(`,{"name":"b"}`, 2000) + `]}}`,
}

// TestGeneratedDecoderMatchesClientGo decodes each case, as the item of a
// LIST and as the object of a WATCH event, with the codec (with and without
// the generated decoder, with and without SkipManagedFields) and with
// client-go: the same objects, or an error from both.
func TestGeneratedDecoderMatchesClientGo(t *testing.T) {
	for _, c := range []struct {
		gvk   schema.GroupVersionKind
		cases []string
	}{
		{schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, append(genPodCases, genPodHostile...)},
		{schema.GroupVersionKind{Group: "gadgets.example.com", Version: "v1", Kind: "Gadget"}, genGadgetCases},
	} {
		var typ *apiType
		for _, a := range apiTypes() {
			if a.gvk == c.gvk {
				typ = a
			}
		}
		if typ == nil {
			t.Fatalf("%s is not registered (json_generated_test.go)", c.gvk)
		}
		if typ.gen == nil {
			if c.gvk.Group != "" || apiversion.Generated("k8s.io/api") {
				t.Fatalf("%s has no generated decoder registered (json_generated_test.go)", c.gvk)
			}
			// Generated against another k8s.io/api: the cases check the
			// reflective decoder a program built so falls back to.
			t.Logf("%s: k8s.io/api %s, decoders generated against %s: reflective decoder only", c.gvk, apiversion.Compiled("k8s.io/api"), apiversion.Required("k8s.io/api"))
		}
		apiVersion, kind := c.gvk.ToAPIVersionAndKind()
		head := fmt.Sprintf(`{"apiVersion":%q,"kind":%q`, apiVersion, kind)
		for i, obj := range c.cases {
			list := fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"metadata":{"resourceVersion":"9"},"items":[%s]}`, apiVersion, kind+"List", obj)
			withKind := head + "," + strings.TrimPrefix(strings.TrimSpace(obj), "{")
			if strings.TrimSpace(obj) == "{}" {
				withKind = head + "}"
			}
			watchBody := `{"type":"ADDED","object":` + withKind + "}\n" + `{"type":"DELETED","object":` + head + `,"metadata":{"name":"after"}}}`
			if i == 0 {
				// The first case is a valid object: if client-go fails on it,
				// the bodies around the cases are broken, and every case
				// would pass by failing both ways.
				_, _, lerr := compareList(typ, []byte(list))
				_, _, werr := compareWatch(typ, []byte(watchBody))
				if lerr != nil || werr != nil {
					t.Fatalf("%s: client-go fails on the first case: LIST %v, WATCH %v", c.gvk, lerr, werr)
				}
			}
			for _, a := range typ.variants() {
				if d, ourErr, refErr := compareList(a, []byte(list)); d != "" {
					t.Errorf("%s case %d LIST: %s\nours: %v\nclient-go: %v", a.name(), i, d, ourErr, refErr)
				}
				if d, ourErr, refErr := compareWatch(a, []byte(watchBody)); d != "" {
					t.Errorf("%s case %d WATCH: %s\nours: %v\nclient-go: %v", a.name(), i, d, ourErr, refErr)
				}
				if d := compareSkip(a, []byte(list)); d != "" {
					t.Errorf("%s case %d: %s", a.name(), i, d)
				}
				if d := compareSkip(a, []byte(watchBody)); d != "" {
					t.Errorf("%s case %d: %s", a.name(), i, d)
				}
			}
		}
	}
}

// TestGeneratedDecoderIsUsed: the differential tests would notice a
// generated decoder that decodes wrongly (the harness runs it, not the
// reflective decoder), and a decoder for another type is refused.
func TestGeneratedDecoderIsUsed(t *testing.T) {
	var pod *apiType
	for _, a := range apiTypes() {
		if a.gvk == (schema.GroupVersionKind{Version: "v1", Kind: "Pod"}) {
			pod = a
		}
	}
	if pod != nil && pod.gen == nil && !apiversion.Generated("k8s.io/api") {
		t.Skipf("k8s.io/api %s: the core/v1 decoders, generated against %s, are left to the reflective decoder", apiversion.Compiled("k8s.io/api"), apiversion.Required("k8s.io/api"))
	}
	if pod == nil || pod.gen == nil {
		t.Fatal("core/v1 Pod has no generated decoder registered")
	}
	calls := 0
	var cfg codecopts.Options
	pod.gen.opts[0].set(&cfg)
	gen := cfg.JSONDecoder.(func(*JSONDecoder, any) error)
	wrong := GeneratedDecoder(func(d *JSONDecoder, obj runtime.Object) error {
		calls++
		err := gen(d, obj)
		obj.(metav1.Object).SetName("wrong")
		return err
	})
	// GeneratedDecoder checks the type it is given against the codec's;
	// runtime.Object is not *Pod, so set the type by hand for this test.
	var wcfg codecopts.Options
	wrong.set(&wcfg)
	bad := *pod.gen
	bad.codec = newTestJSONCodec[runtime.Object](pod.elem, pod.gvk, OptionOf(func(o *codecopts.Options) {
		o.JSONDecoder, o.JSONDecoderType = wcfg.JSONDecoder, reflect.PointerTo(pod.elem)
	}))
	list := `{"apiVersion":"v1","kind":"PodList","metadata":{},"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]}`
	if d, _, _ := compareList(&bad, []byte(list)); d == "" || calls != 2 {
		t.Fatalf("a wrong generated decoder went unnoticed (diff %q, %d calls)", d, calls)
	}
	_, err := NewJSON[*corev1.Pod](pod.gvk, GeneratedDecoder(func(*JSONDecoder, *metav1.Status) error { return nil }))
	if err == nil || !strings.Contains(err.Error(), "*v1.Status") || !strings.Contains(err.Error(), "*v1.Pod") {
		t.Fatalf("a GeneratedDecoder of another type: error %v, want one naming *v1.Status and *v1.Pod", err)
	}
}

// TestCheckedDecoder: a generated decoder is used only while the struct
// types it was generated for have the same JSON members.
func TestCheckedDecoder(t *testing.T) {
	type inner struct {
		A string `json:"a"`
	}
	type outer struct {
		metav1.TypeMeta `json:",inline"`
		Inner           inner `json:"inner,omitempty"`
		NoTag           int
		Skipped         string `json:"-"`
		unexported      string
	}
	fn := func(*JSONDecoder, *outer) error { return nil }
	if got, ok := jsonMembers(reflect.TypeFor[outer]()); !ok || got != "kind,apiVersion,inner,NoTag" {
		t.Fatalf("jsonMembers(outer) = %q, %v", got, ok)
	}
	for _, c := range []struct {
		name   string
		fields map[reflect.Type]string
		want   bool
	}{
		{"unchanged", map[reflect.Type]string{reflect.TypeFor[outer](): "kind,apiVersion,inner,NoTag", reflect.TypeFor[inner](): "a"}, true},
		{"a member added since", map[reflect.Type]string{reflect.TypeFor[outer](): "kind,apiVersion,inner", reflect.TypeFor[inner](): "a"}, false},
		{"a member renamed", map[reflect.Type]string{reflect.TypeFor[inner](): "b"}, false},
		{"a struct the planner leaves to the default decoder", map[reflect.Type]string{reflect.TypeFor[semObj](): ""}, false},
	} {
		if got := CheckedDecoder(c.fields, fn) != nil; got != c.want {
			t.Errorf("%s: decoder kept %v, want %v", c.name, got, c.want)
		}
	}
	// A nil decoder is no option at all.
	var cfg codecopts.Options
	GeneratedDecoder[*outer](nil).set(&cfg)
	if cfg.JSONDecoder != nil {
		t.Error("GeneratedDecoder(nil) set a decoder")
	}
	_ = outer{}.unexported
}

// TestCheckedDecoderSharedTypes: the shared decoders of apimachinery's types
// (json_generated_metav1.go) are guarded by every CheckedDecoder. A newer
// apimachinery whose ObjectMeta has a member the shared decoder does not read
// (simulated by a table generated before that member existed) leaves every
// generated decoder nil, so the codec's own decoder reads the member.
func TestCheckedDecoderSharedTypes(t *testing.T) {
	for typ, want := range sharedMembers {
		if got, ok := jsonMembers(typ); !ok || got != want {
			t.Errorf("sharedMembers[%v] = %q, the compiled type has %q (%v): run hack/update-codegen.sh", typ, want, got, ok)
		}
	}
	if !sharedCurrent() {
		t.Fatal("the shared decoders do not match the compiled apimachinery")
	}
	om := reflect.TypeFor[metav1.ObjectMeta]()
	if !strings.Contains(sharedMembers[om], ",finalizers,") {
		t.Fatalf("sharedMembers[ObjectMeta] = %q, without finalizers", sharedMembers[om])
	}
	type kind struct {
		metav1.ObjectMeta `json:"metadata"`
	}
	fields := map[reflect.Type]string{reflect.TypeFor[kind](): "metadata"}
	fn := func(*JSONDecoder, *kind) error { return nil }
	if CheckedDecoder(fields, fn) == nil {
		t.Fatal("CheckedDecoder dropped a decoder of current types")
	}
	stale := maps.Clone(sharedMembers)
	stale[om] = strings.Replace(stale[om], ",finalizers,", ",", 1)
	if membersMatch(stale) {
		t.Fatal("a shared table without ObjectMeta's finalizers matches the compiled ObjectMeta")
	}
	defer func(f func() bool) { sharedCurrent = f }(sharedCurrent)
	sharedCurrent = func() bool { return membersMatch(stale) }
	if CheckedDecoder(fields, fn) != nil {
		t.Error("CheckedDecoder kept a generated decoder while the shared ObjectMeta decoder misses a member")
	}
}
