// Package listwatch is the ListerWatcher the factory uses against a real API
// server: LIST and WATCH through client-go's rest.Interface, decoded straight
// into the typed object T.
//
// Design choices:
//   - No dynamic client and no unstructured conversion. With Options.Codec
//     (a runtime/wire codec) a response body is read once and decoded item
//     by item, event by event, straight into T; a watch event that does not
//     decode becomes a reflector.MalformedObject. The factory chooses the
//     codec per type: protobuf for built-in types (a group kube-apiserver
//     serves, BuiltInGroup, and a Go type with the generated
//     protobuf Unmarshal, and a projection of such a type that has a
//     generated protobuf decoder), JSON for everything else (custom
//     resources, also when their Go types carry protobuf methods, and their
//     projections), CBOR when TypeOptions.ContentType or the rest.Config
//     asks for it; Options.FallbackCodec (JSON) takes over for
//     good when the server refuses the first one's media type (406).
//     Without a Codec, the REST client's serializer,
//     serializer.NewCodecFactory(scheme).WithoutConversion(), decodes each
//     response once, into the Go list type (Options.NewList, Items). Error
//     responses are always decoded by the serializer, so they stay apierrors
//     errors.
//   - One REST client per group-version (ConfigFor/NewRESTClient), each with its
//     own scheme; several may share one *http.Client.
//   - Selectors and namespace are fixed at construction, as an informer's are;
//     Tweak is the escape hatch (upstream's TweakListOptionsFunc).
//   - Funcs adapts an existing client-gen clientset's typed List and Watch,
//     for projects that already have one.
//   - Errors wrap the API error with %w and name the resource and namespace, so
//     the reflector can still classify them (410 Gone, 429, 403).
package listwatch
