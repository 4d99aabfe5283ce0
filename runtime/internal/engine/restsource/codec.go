package restsource

import (
	"fmt"
	"mime"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/informer-gen/informer-gen/internal/apigroups"
	"github.com/informer-gen/informer-gen/runtime/internal/cache"
	"github.com/informer-gen/informer-gen/runtime/internal/codecopts"
	"github.com/informer-gen/informer-gen/runtime/wire"
)

// mediaTypeJSON is the media type of the JSON codec.
const mediaTypeJSON = "application/json"

// Codecs returns the wire.Codec that the REST source of t (a type
// registered in scheme unless t.Kind names its kind: a projection's) decodes
// LIST and WATCH responses with, as r asks, and the JSON codec to fall back
// to when the server refuses the first one's media type (nil when the first
// one is JSON): the one place that chooses the encoding.
//
// The media type asked for is r.ContentType when not empty, else the first
// of cfg.AcceptContentTypes, else cfg.ContentType:
//   - empty or protobuf: protobuf for built-in types (a group kube-apiserver
//     serves, apigroups.BuiltIn, and T has the Unmarshal method go-to-protobuf
//     generates for every k8s.io/api type), JSON for everything else (custom
//     resources are served as JSON only, even when their Go types carry
//     protobuf methods);
//   - CBOR: CBOR (servers with the CBORServingAndStorage feature gate);
//   - JSON: JSON;
//   - anything else is an error.
//
// t.ObjectType is the Go type of the objects (a pointer to a struct); the
// codecs hand them out as cache.Obj, and are compiled once, here, for every
// type.
//
// r.SkipManagedFields makes the JSON codec (the first or the fallback), and
// a protobuf codec (a kind's or a projection's), read and drop each object's
// metadata.managedFields instead of decoding it (wire.SkipManagedFields):
// for informers that would drop them after decoding anyway, with no
// Transform that could read them first. t.DecodeJSON, when set, is the
// type's generated JSON decoder (wire.GeneratedDecoder). r.DistinctMaps
// stops a built-in kind's protobuf codec, and a projection's, from sharing
// maps between objects (codecopts.Options.DistinctMaps), for informers whose
// Transform may write into them. A cfg whose transport serves client-go's
// fake clientsets (watchListUnsupported) makes the JSON codec keep each
// object's TypeMeta as the test gave it, unchecked
// (codecopts.Options.FakeTypeMeta).
//
// A projection (t.Projection) is read as JSON, except that a projection of
// a built-in kind with a generated protobuf decoder (t.DecodeProtobuf) is
// read as protobuf when the media type asked for is empty or protobuf, as
// its kind would be: the server encodes the full object as it would for the
// kind's own informer, and the client builds only the projection. A
// projection has no CBOR decoder: CBOR asks for JSON.
func Codecs(cfg *rest.Config, scheme *runtime.Scheme, t Type, r Request) (codec, fallback wire.Codec[cache.Obj], err error) {
	typ := t.ObjectType
	if typ == nil || typ.Kind() != reflect.Pointer || typ.Elem().Kind() != reflect.Struct {
		return nil, nil, fmt.Errorf("%v is not a pointer to a struct", typ)
	}
	obj, ok := reflect.New(typ.Elem()).Interface().(runtime.Object)
	if !ok {
		return nil, nil, fmt.Errorf("%v is not a runtime.Object", typ)
	}
	gvk, err := kindOf(scheme, t.Resource.GroupVersion().WithKind(t.Kind), obj, typ)
	if err != nil {
		return nil, nil, err
	}
	// The codecs decode into typ and hand the objects out as cache.Obj.
	// pbOpts are the protobuf codecs' options (a kind's or a projection's);
	// the JSON codec takes the generated decoder besides.
	objectType := option(func(o *codecopts.Options) { o.ObjectType = typ })
	pbOpts := []wire.Option{objectType}
	if r.SkipManagedFields {
		pbOpts = append(pbOpts, wire.SkipManagedFields())
	}
	jsonOpts := append(pbOpts[:len(pbOpts):len(pbOpts)], t.DecodeJSON)
	if cfg != nil && watchListUnsupported(cfg.Transport) {
		jsonOpts = append(jsonOpts, option(func(o *codecopts.Options) { o.FakeTypeMeta = true }))
	}
	jsonCodec, err := wire.NewJSON[cache.Obj](gvk, jsonOpts...)
	if err != nil {
		return nil, nil, err
	}
	if r.DistinctMaps {
		pbOpts = append(pbOpts, option(func(o *codecopts.Options) { o.DistinctMaps = true }))
	}
	mt, err := requestedMediaType(cfg, r.ContentType)
	if err != nil {
		return nil, nil, err
	}
	if t.Projection {
		switch mt {
		case "", runtime.ContentTypeProtobuf:
			if !apigroups.BuiltIn(gvk.Group) {
				return jsonCodec, nil, nil
			}
			pbc, err := wire.NewProtobufProjection[cache.Obj](gvk, t.DecodeProtobuf, pbOpts...)
			if err != nil {
				return jsonCodec, nil, nil // no generated protobuf decoder
			}
			return pbc, jsonCodec, nil
		case runtime.ContentTypeCBOR, mediaTypeJSON:
			return jsonCodec, nil, nil
		}
	}
	switch mt {
	case "", runtime.ContentTypeProtobuf:
		if !apigroups.BuiltIn(gvk.Group) {
			return jsonCodec, nil, nil
		}
		if pb, err := wire.NewProtobuf[cache.Obj](gvk, pbOpts...); err == nil {
			return pb, jsonCodec, nil
		}
		return jsonCodec, nil, nil
	case runtime.ContentTypeCBOR:
		cb, err := wire.NewCBOR[cache.Obj](gvk, objectType)
		if err != nil {
			return nil, nil, err
		}
		return cb, jsonCodec, nil
	case mediaTypeJSON:
		return jsonCodec, nil, nil
	}
	return nil, nil, fmt.Errorf("content type %q: the runtime decodes %s, %s and %s", mt, mediaTypeJSON, runtime.ContentTypeProtobuf, runtime.ContentTypeCBOR)
}

// option is a wire.Option setting what users cannot (codecopts.Wrap).
func option(set func(*codecopts.Options)) wire.Option {
	return codecopts.Wrap(set).(wire.Option)
}

// requestedMediaType is the media type (without parameters) that
// contentType, or else cfg, asks for; "" when neither says.
func requestedMediaType(cfg *rest.Config, contentType string) (string, error) {
	ct := contentType
	if ct == "" && cfg != nil {
		ct, _, _ = strings.Cut(cfg.AcceptContentTypes, ",")
		if strings.TrimSpace(ct) == "" {
			ct = cfg.ContentType
		}
	}
	if strings.TrimSpace(ct) == "" {
		return "", nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return "", fmt.Errorf("content type %q: %w", ct, err)
	}
	return mt, nil
}

// kindOf is gvk when it names a kind, else the kind scheme registers obj
// (of type t) as in gvk's group-version.
func kindOf(scheme *runtime.Scheme, gvk schema.GroupVersionKind, obj runtime.Object, t reflect.Type) (schema.GroupVersionKind, error) {
	if gvk.Kind != "" {
		return gvk, nil
	}
	gv := gvk.GroupVersion()
	kinds, _, err := scheme.ObjectKinds(obj)
	if runtime.IsNotRegisteredError(err) {
		return gvk, fmt.Errorf("%v is not registered in group-version %s: the Type's AddToScheme does not add it", t, gv)
	}
	if err != nil {
		return gvk, fmt.Errorf("kind of %v: %w", t, err)
	}
	for _, k := range kinds {
		if k.GroupVersion() == gv {
			return k, nil
		}
	}
	return gvk, fmt.Errorf("%v is not registered in group-version %s: the Type's AddToScheme does not add it", t, gv)
}
