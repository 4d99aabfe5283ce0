// Package listwatch is where informers' objects come from: the
// ListerWatcher that lists and watches one resource through client-go's
// rest.Interface, decoded straight into the typed object T, and Funcs over
// an existing clientset's typed List and Watch.
//
// Design choices:
//   - No dynamic client and no unstructured conversion. With Options.Codec
//     (a runtime/wire codec) a response body is read once and decoded item
//     by item, event by event, straight into T; a watch event that does not
//     decode becomes a reflector.MalformedObject. Options.FallbackCodec
//     (JSON) takes over for good when the server refuses the first one's
//     media type (406). Without a Codec, the REST client's serializer,
//     serializer.NewCodecFactory(scheme).WithoutConversion(), decodes each
//     response once, into the Go list type (Options.NewList, Items). Error
//     responses are always decoded by the serializer, so they stay apierrors
//     errors.
//   - The factory's sources are built here too, without type parameters, in
//     runtime/internal/engine/restsource (compiled once, not per type): one REST
//     client per group-version (NewRESTClient; several share one
//     *http.Client), a scheme per group-version and Go package of the types,
//     and one codec choice per type: protobuf for built-in kinds (a group
//     kube-apiserver serves, internal/apigroups, and a Go type with the generated
//     protobuf Unmarshal, or a projection of such a kind that has a generated
//     protobuf decoder), JSON for everything else (custom resources, also when
//     their Go types carry protobuf methods, and their projections), CBOR when
//     factory.TypeOptions.ContentType or the rest.Config asks for it.
//   - Selectors and namespace are fixed at construction, as an informer's are;
//     Tweak is the escape hatch (upstream's TweakListOptionsFunc).
//   - Funcs adapts an existing client-gen clientset's typed List and Watch,
//     for projects that already have one.
//   - Errors wrap the API error with %w and name the resource and namespace, so
//     the reflector can still classify them (410 Gone, 429, 403).
package listwatch
