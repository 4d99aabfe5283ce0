package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ObjectHeader is what every kind of this package starts with. encoding/json
// inlines it (it is embedded untagged or with json:",inline"), so its
// "metadata" is the object's, and Go promotes ObjectMeta's methods through
// it: the kinds are metav1.Objects.
type ObjectHeader struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// +genclient
// +informer-gen:index:name=Customer,field=.spec.customer
// +informer-gen:index:name=GenerateName,field=.metadata.generateName
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Order embeds its header with json:",inline".
type Order struct {
	ObjectHeader `json:",inline"`

	Spec OrderSpec `json:"spec"`
}

// OrderSpec is the spec of an Order.
type OrderSpec struct {
	Customer string `json:"customer"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// OrderList is a list of Order.
type OrderList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`

	Items []Order `json:"items"`
}

// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Invoice embeds its header without a tag, which encoding/json inlines too.
type Invoice struct {
	ObjectHeader

	Total int64 `json:"total"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// InvoiceList is a list of Invoice.
type InvoiceList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`

	Items []*Invoice `json:"items"`
}
