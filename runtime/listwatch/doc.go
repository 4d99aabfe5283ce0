// Package listwatch is the ListerWatcher the factory uses against a real API
// server: LIST and WATCH through client-go's rest.Interface, decoded by the
// scheme of the API package straight into the typed object T and its list
// type L.
//
// Design choices:
//   - No dynamic client and no unstructured conversion: the REST client's
//     serializer is serializer.NewCodecFactory(scheme).WithoutConversion(), so
//     each response is decoded once, into the Go type.
//   - One REST client per group-version (ConfigFor/NewRESTClient), each with its
//     own scheme; several may share one *http.Client.
//   - Selectors and namespace are fixed at construction, as an informer's are;
//     Tweak is the escape hatch (upstream's TweakListOptionsFunc).
//   - Funcs adapts an existing client-gen clientset's typed List and Watch,
//     for projects that already have one.
//   - Errors wrap the API error with %w and name the resource and namespace, so
//     the reflector can still classify them (410 Gone, 429, 403).
package listwatch
