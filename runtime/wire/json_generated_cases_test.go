package wire

import (
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
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

// TestGeneratedDecoderMatchesClientGo decodes each case, as the item of a
// LIST and as the object of a WATCH event, with the codec (with and without
// the generated decoder, with and without SkipManagedFields) and with
// client-go: the same objects, or an error from both.
func TestGeneratedDecoderMatchesClientGo(t *testing.T) {
	var pod *apiType
	for _, a := range apiTypes() {
		if a.gvk == (schema.GroupVersionKind{Version: "v1", Kind: "Pod"}) {
			pod = a
		}
	}
	if pod == nil || pod.gen == nil {
		t.Fatal("core/v1 Pod has no generated decoder registered (json_generated_test.go)")
	}
	for i, obj := range append(genPodCases, genPodHostile...) {
		list := `{"apiVersion":"v1","kind":"PodList","metadata":{"resourceVersion":"9"},"items":[` + obj + `]}`
		withKind := `{"apiVersion":"v1","kind":"Pod",` + strings.TrimPrefix(strings.TrimSpace(obj), "{")
		if strings.TrimSpace(obj) == "{}" {
			withKind = `{"apiVersion":"v1","kind":"Pod"}`
		}
		watchBody := `{"type":"ADDED","object":` + withKind + "}\n" + `{"type":"DELETED","object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"after"}}}`
		for _, a := range pod.variants() {
			if d, ourErr, refErr := compareList(a, []byte(list)); d != "" {
				t.Errorf("case %d, %s LIST: %s\nours: %v\nclient-go: %v", i, a.name(), d, ourErr, refErr)
			}
			if d, ourErr, refErr := compareWatch(a, []byte(watchBody)); d != "" {
				t.Errorf("case %d, %s WATCH: %s\nours: %v\nclient-go: %v", i, a.name(), d, ourErr, refErr)
			}
			if d := compareSkip(a, []byte(list)); d != "" {
				t.Errorf("case %d, %s: %s", i, a.name(), d)
			}
			if d := compareSkip(a, []byte(watchBody)); d != "" {
				t.Errorf("case %d, %s: %s", i, a.name(), d)
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
	if pod == nil || pod.gen == nil {
		t.Fatal("core/v1 Pod has no generated decoder registered")
	}
	calls := 0
	var cfg jsonConfig
	pod.gen.opts[0](&cfg)
	wrong := GeneratedDecoder(func(d *JSONDecoder, obj runtime.Object) error {
		calls++
		err := cfg.decode(d, obj)
		obj.(metav1.Object).SetName("wrong")
		return err
	})
	// GeneratedDecoder checks the type it is given against the codec's;
	// runtime.Object is not *Pod, so set the type by hand for this test.
	var wcfg jsonConfig
	wrong(&wcfg)
	bad := *pod.gen
	bad.codec = newJSONCodec[runtime.Object](pod.elem, pod.gvk, func(c *jsonConfig) { c.decode, c.decodeType = wcfg.decode, reflect.PointerTo(pod.elem) })
	list := `{"apiVersion":"v1","kind":"PodList","metadata":{},"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]}`
	if d, _, _ := compareList(&bad, []byte(list)); d == "" || calls != 2 {
		t.Fatalf("a wrong generated decoder went unnoticed (diff %q, %d calls)", d, calls)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("a GeneratedDecoder of another type was accepted")
		}
	}()
	newJSONCodec[runtime.Object](pod.elem, pod.gvk, GeneratedDecoder(func(*JSONDecoder, *metav1.Status) error { return nil }))
}
