package wire

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/util/framer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	restclientwatch "k8s.io/client-go/rest/watch"
)

// This file writes protobuf bodies as the API server does and reads them as
// client-go's typed clients do: the two ends every protobuf test compares
// against.

// pbServerObject encodes obj as the API server's protobuf serializer does for
// a GET or a watch event's object: the magic, then a runtime.Unknown naming
// gvk.
func pbServerObject(t testing.TB, obj runtime.Object, gvk schema.GroupVersionKind) []byte {
	t.Helper()
	obj = obj.DeepCopyObject()
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	var buf bytes.Buffer
	if err := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(obj, &buf); err != nil {
		t.Fatalf("encode %s: %v", gvk, err)
	}
	return buf.Bytes()
}

// pbServerList encodes a list as the API server does, with or without the
// streaming collections encoding (the StreamingCollectionsEncodingToProtobuf
// feature) that writes items one by one.
func pbServerList(t testing.TB, list runtime.Object, gvk schema.GroupVersionKind, streamingItems bool) []byte {
	t.Helper()
	list = list.DeepCopyObject()
	list.GetObjectKind().SetGroupVersionKind(gvk)
	var buf bytes.Buffer
	s := protobuf.NewSerializerWithOptions(scheme.Scheme, scheme.Scheme, protobuf.SerializerOptions{StreamingCollectionsEncoding: streamingItems})
	if err := s.Encode(list, &buf); err != nil {
		t.Fatalf("encode %s: %v", gvk, err)
	}
	return buf.Bytes()
}

// pbServerEvent is one frame of a protobuf WATCH body as the API server's
// watchEncoder writes it (k8s.io/apiserver/pkg/endpoints/handlers/response.go):
// the event, encoded by the raw serializer, around the object's encoding,
// through the length-delimited framer.
func pbServerEvent(t testing.TB, typ watch.EventType, object []byte) []byte {
	t.Helper()
	var ev bytes.Buffer
	if err := protobuf.NewRawSerializer(scheme.Scheme, scheme.Scheme).Encode(&metav1.WatchEvent{
		Type: string(typ), Object: runtime.RawExtension{Raw: object},
	}, &ev); err != nil {
		t.Fatalf("encode watch event: %v", err)
	}
	var out bytes.Buffer
	if _, err := framer.NewLengthDelimitedFrameWriter(&out).Write(ev.Bytes()); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// pbClientGoNegotiator is what a typed clientset uses for gv
// (rest.CodecFactoryForGeneratedClient(...).WithoutConversion()).
func pbClientGoNegotiator(gv schema.GroupVersion) runtime.ClientNegotiator {
	return runtime.NewClientNegotiator(scheme.Codecs.WithoutConversion(), gv)
}

// pbClientGoList decodes a LIST body as rest.Result.Into does. A body that
// decodes to another object than into is an error here (Into returns nil
// then and leaves into empty, which no caller could tell from an empty
// list).
func pbClientGoList(body []byte, gv schema.GroupVersion, into runtime.Object) error {
	dec, err := pbClientGoNegotiator(gv).Decoder(mediaTypeProtobuf, nil)
	if err != nil {
		return err
	}
	out, _, err := dec.Decode(body, nil, into)
	if err != nil {
		return err
	}
	if out != into {
		return fmt.Errorf("decoded a %T, not the list", out)
	}
	return nil
}

// pbClientGoWatch decodes a WATCH body as rest.Request.Watch does
// (newStreamWatcher): the negotiated framer, streaming.NewDecoder over the
// raw serializer, restclientwatch.Decoder for the object. It returns
// io.EOF at the end of the body.
type pbClientGoWatch struct{ d *restclientwatch.Decoder }

func newPBClientGoWatch(t testing.TB, body io.Reader, gv schema.GroupVersion) pbClientGoWatch {
	objectDecoder, streamSerializer, fr, err := pbClientGoNegotiator(gv).StreamDecoder(mediaTypeProtobuf, nil)
	if err != nil {
		t.Fatal(err)
	}
	frames := fr.NewFrameReader(io.NopCloser(body))
	return pbClientGoWatch{restclientwatch.NewDecoder(streaming.NewDecoder(frames, streamSerializer), objectDecoder)}
}

func (w pbClientGoWatch) next() (watch.EventType, runtime.Object, error) { return w.d.Decode() }
