// +k8s:deepcopy-gen=package,register
// +k8s:defaulter-gen=TypeMeta
// +groupName=nodes.example.com
package v1 // doc.go is discovered by codegen

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/informer-gen/informer-gen/testdata/golden/init-registration/input/pkg/apis"
)

func init() {
	gv := schema.GroupVersion{Group: apis.Group, Version: "v1"}
	metav1.AddToGroupVersion(scheme.Scheme, gv)
	scheme.Scheme.AddKnownTypes(schema.GroupVersion{Group: apis.Group, Version: "v1"},
		&NodePool{},
		&NodePoolList{},
		&NodeClaim{},
		&NodeClaimList{},
	)
}
