package v1

import "k8s.io/apimachinery/pkg/runtime"

// deepcopy-gen skips unexported types: these are written by hand.

func (in *widget) DeepCopyInto(out *widget) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

func (in *widget) DeepCopy() *widget {
	if in == nil {
		return nil
	}
	out := new(widget)
	in.DeepCopyInto(out)
	return out
}

func (in *widget) DeepCopyObject() runtime.Object { return in.DeepCopy() }

func (in *widgetList) DeepCopyInto(out *widgetList) {
	*out = *in
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]widget, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

func (in *widgetList) DeepCopy() *widgetList {
	if in == nil {
		return nil
	}
	out := new(widgetList)
	in.DeepCopyInto(out)
	return out
}

func (in *widgetList) DeepCopyObject() runtime.Object { return in.DeepCopy() }
