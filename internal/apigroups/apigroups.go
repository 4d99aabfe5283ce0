// Package apigroups knows which API groups kube-apiserver serves itself.
// The runtime's factory reads those groups' objects as protobuf and the
// generator's --json-decoders auto leaves them out, so both ask this one
// list. It imports nothing and is internal to this module.
package apigroups

// builtIn are the API groups kube-apiserver serves itself (with its
// aggregator's apiregistration.k8s.io and apiextensions.k8s.io): the groups
// of client-go's kubernetes/scheme and those two. Only these are served as
// protobuf; custom resources are served as JSON (and CBOR) whatever methods
// their Go types have, so a CRD type with generated protobuf methods (common
// in projects that also speak gRPC) is still read as JSON.
var builtIn = map[string]bool{
	"":                             true,
	"admissionregistration.k8s.io": true,
	"apiextensions.k8s.io":         true,
	"apiregistration.k8s.io":       true,
	"apps":                         true,
	"authentication.k8s.io":        true,
	"authorization.k8s.io":         true,
	"autoscaling":                  true,
	"batch":                        true,
	"certificates.k8s.io":          true,
	"coordination.k8s.io":          true,
	"discovery.k8s.io":             true,
	"events.k8s.io":                true,
	"extensions":                   true,
	"flowcontrol.apiserver.k8s.io": true,
	"internal.apiserver.k8s.io":    true,
	"lifecycle.k8s.io":             true,
	"networking.k8s.io":            true,
	"node.k8s.io":                  true,
	"policy":                       true,
	"rbac.authorization.k8s.io":    true,
	"resource.k8s.io":              true,
	"scheduling.k8s.io":            true,
	"storage.k8s.io":               true,
	"storagemigration.k8s.io":      true,
}

// BuiltIn reports whether kube-apiserver serves group itself, so that its
// objects can be read as protobuf; false for custom resources and
// aggregated APIs.
func BuiltIn(group string) bool { return builtIn[group] }
