// Package scope says whether a resource's objects live in namespaces: the
// factory knows it from the type's declaration and sets it in
// settings.Reflector.Scope, so that objects of the wrong scope are refused.
package scope

// Scope is whether a resource's objects live in namespaces.
type Scope uint8

// The scopes a resource can have.
const (
	// Unknown checks names only.
	Unknown Scope = iota
	// Namespaced objects need a namespace.
	Namespaced
	// Cluster-scoped objects must have none.
	Cluster
)
