// Package settings holds what the runtime resolves for a Reflector beside
// the reflector.Options users set: the settings whose types live in the
// runtime's internal packages, so that no public struct has a field a user
// cannot fill. They are set through WithReflector, by the factory (the
// type's Scope) and the informer core (runtime/internal/engine/core: the
// informer's Budget); package reflector reads them.
package settings

import (
	"github.com/informer-gen/informer-gen/runtime/internal/budget"
	"github.com/informer-gen/informer-gen/runtime/internal/scope"
)

// Reflector are a Reflector's settings that only the runtime sets. The zero
// value is a Reflector on its own: names checked only, a Budget of its own.
type Reflector struct {
	// Scope, when known, is checked against every object listed or
	// watched: a namespaced resource's objects need a namespace, a
	// cluster-scoped one's must have none. Objects that fail it (or have no
	// name) are reported (reflector.ErrInvalidObject) and not stored. The
	// factory sets it from the type's declaration.
	Scope scope.Scope
	// Budget, when not nil, is the request budget the Reflector shares with
	// others (an informer's Reflectors, one per namespace): their retries
	// together wait for its turns (see budget.Budget). Nil gives the
	// Reflector a Budget of its own, of one request a second.
	Budget *budget.Budget
}

// WithReflector returns opts, a reflector.Options (held in an any: this
// package is below reflector and cannot name it), with the fields of its
// runtime settings that r sets (non-zero) set to r's: the factory sets the
// Scope, the informer core the Budget, each keeping what the other set.
// Package reflector sets it at init.
var WithReflector func(opts any, r Reflector) any
