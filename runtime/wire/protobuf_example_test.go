package wire_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/util/framer"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/informer-gen/informer-gen/runtime/wire"
)

// A WATCH response body in protobuf, decoded event by event straight into
// *corev1.Pod. The body here is written as the API server writes it.
func ExampleNewProtobuf() {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-0", ResourceVersion: "42"}}
	pod.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Pod"))
	var obj bytes.Buffer
	if err := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(pod, &obj); err != nil {
		panic(err)
	}
	event, err := (&metav1.WatchEvent{Type: "ADDED", Object: runtime.RawExtension{Raw: obj.Bytes()}}).Marshal()
	if err != nil {
		panic(err)
	}
	var body bytes.Buffer
	if _, err := framer.NewLengthDelimitedFrameWriter(&body).Write(event); err != nil {
		panic(err)
	}

	codec, err := wire.NewProtobuf[*corev1.Pod](corev1.SchemeGroupVersion.WithKind("Pod"))
	if err != nil {
		panic(err) // *corev1.Pod has a generated protobuf Unmarshal
	}
	events := codec.NewWatchDecoder(&body)
	for {
		ev, err := events.Next()
		var de *wire.DecodeError
		switch {
		case err == io.EOF:
			return
		case errors.As(err, &de) && de.Recoverable:
			fmt.Println("skipped:", err) // one malformed event; the stream goes on
			continue
		case err != nil:
			fmt.Println(err)
			return
		}
		fmt.Println(ev.Type, ev.Object.Namespace+"/"+ev.Object.Name, ev.Object.ResourceVersion)
	}
	// Output: ADDED default/web-0 42
}
