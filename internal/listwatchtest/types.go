package listwatchtest

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GVR is Widget's group, version and resource: widgets in
// test.informer-gen.dev/v1.
var GVR = schema.GroupVersionResource{Group: "test.informer-gen.dev", Version: "v1", Resource: "widgets"}

// AddToScheme registers Widget and WidgetList, as an API package's
// register.go does.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GVR.GroupVersion(), &Widget{}, &WidgetList{})
	metav1.AddToGroupVersion(s, GVR.GroupVersion())
	return nil
}

// Widget is a small namespaced test type, shaped like a CRD's root type.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec `json:"spec"`
}

// WidgetSpec is Widget's spec.
type WidgetSpec struct {
	NodeName string `json:"nodeName,omitempty"`
	Size     int    `json:"size,omitempty"`
}

// WidgetList is a list of Widgets.
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

// DeepCopyInto copies w into out.
func (w *Widget) DeepCopyInto(out *Widget) {
	*out = *w
	out.TypeMeta = w.TypeMeta
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec = w.Spec
}

// DeepCopy returns a deep copy of w.
func (w *Widget) DeepCopy() *Widget {
	if w == nil {
		return nil
	}
	out := new(Widget)
	w.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (w *Widget) DeepCopyObject() runtime.Object { return w.DeepCopy() }

// DeepCopy returns a deep copy of l.
func (l *WidgetList) DeepCopy() *WidgetList {
	if l == nil {
		return nil
	}
	out := new(WidgetList)
	*out = *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]Widget, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}

// DeepCopyObject implements runtime.Object.
func (l *WidgetList) DeepCopyObject() runtime.Object { return l.DeepCopy() }
