package wire

import (
	"bytes"
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// defObj has struct definitions that encoding/json accepts and json v2
// rejects: an embedded struct with options but no name (Tekton's
// PipelineRef embeds ResolverRef `json:",omitempty"`, KServe's types embed
// `json:",inline,omitempty"`) and an embedded non-struct without a name.
// It is one of the differential tests' types.
type defObj struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec defSpec `json:"spec"`
}

type defSpec struct {
	Name       string `json:"name,omitempty"`
	DefRef     `json:",omitempty"`
	DefInline  `json:",inline,omitempty"`
	DefName             // v1: a field named DefName
	Refs       []DefRef `json:"refs,omitempty"`
	unexported int
}

// DefRef is embedded with an option and no name.
type DefRef struct {
	Resolver string `json:"resolver,omitempty"`
	Params   []string
}

// DefInline is embedded as KServe embeds its WorkloadSpec.
type DefInline struct {
	Workload string `json:"workload,omitempty"`
}

// DefName is a non-struct embedded without a name.
type DefName string

type defObjList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []defObj `json:"items"`
}

func (o *defObj) DeepCopyObject() runtime.Object     { c := *o; return &c }
func (l *defObjList) DeepCopyObject() runtime.Object { c := *l; return &c }

var defGVK = schema.GroupVersionKind{Group: "test.wire", Version: "v1", Kind: "DefObj"}

func init() {
	scheme := runtime.NewScheme()
	scheme.AddKnownTypeWithName(defGVK, &defObj{})
	scheme.AddKnownTypeWithName(defGVK.GroupVersion().WithKind("DefObjList"), &defObjList{})
	metav1.AddToGroupVersion(scheme, defGVK.GroupVersion())
	extraTypes = append(extraTypes, extraType{scheme, defGVK, reflect.TypeFor[defObj]()})
}

// The JSON codec decodes types whose struct definitions json v2 rejects as
// encoding/json does (the reference), instead of failing every object that
// holds such a struct.
func TestJSONDefinitionsEncodingJSONAccepts(t *testing.T) {
	var a *apiType
	for _, x := range apiTypes() {
		if x.gvk == defGVK {
			a = x
		}
	}
	body := []byte(`{"apiVersion":"test.wire/v1","kind":"DefObjList","metadata":{"resourceVersion":"7"},"items":[` +
		`{"apiVersion":"test.wire/v1","kind":"DefObj","metadata":{"name":"a","namespace":"ns"},` +
		`"spec":{"name":"x","resolver":"git","Params":["p"],"workload":"w","DefName":"d","refs":[{"resolver":"hub"}]}}]}`)
	diff, ourErr, refErr := compareList(a, body)
	if ourErr != nil || refErr != nil || diff != "" {
		t.Fatalf("ours: %v, reference: %v, diff: %s", ourErr, refErr, diff)
	}
	var got []*defObj
	if _, err := a.codec.DecodeList(bytes.NewReader(body), func(o runtime.Object) error { got = append(got, o.(*defObj)); return nil }); err != nil {
		t.Fatal(err)
	}
	want := defSpec{Name: "x", DefRef: DefRef{Resolver: "git", Params: []string{"p"}}, DefInline: DefInline{Workload: "w"}, DefName: "d", Refs: []DefRef{{Resolver: "hub"}}}
	if len(got) != 1 || !reflect.DeepEqual(got[0].Spec, want) {
		t.Errorf("decoded %+v, want spec %+v", got, want)
	}
	// Only such types decode with legacy error semantics.
	if !definitionErrors(reflect.TypeFor[defObj]()) {
		t.Error("definitionErrors(defObj) = false")
	}
	if definitionErrors(reflect.TypeFor[semObj]()) {
		t.Error("definitionErrors(semObj) = true")
	}
}
