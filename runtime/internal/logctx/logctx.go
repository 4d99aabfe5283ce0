// Package logctx names a resource once in the logger of a context, however
// many components (factory, informer, Reflector) run one inside another.
package logctx

import (
	"context"

	"k8s.io/klog/v2"
)

// Key is the one logging key that names a resource: whoever runs a
// Reflector (an informer, a factory) logs the resource under it exactly once.
const Key = "resource"

// loggedKey marks a context whose logger already carries Key.
type loggedKey struct{}

// With returns ctx with a logger (klog.FromContext(ctx)) that carries
// Key=name, unless ctx already carries it for this same name (an outer
// With or Mark did): then ctx itself is returned, so nested
// components (factory → informer → Reflector) log the resource once.
// Reflector.Run and Informer.Run call it with their name; the factory calls
// it before them.
func With(ctx context.Context, name string) context.Context {
	if n, ok := ctx.Value(loggedKey{}).(string); ok && n == name {
		return ctx
	}
	ctx = klog.NewContext(ctx, klog.FromContext(ctx).WithValues(Key, name))
	return Mark(ctx, name)
}

// Mark returns ctx marked as naming name already, without adding a
// key: for a caller whose logger identifies name some other way (an
// informer that gives each namespace's Reflector, named "<resource>
// namespace=<ns>", the key "namespace" instead).
func Mark(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, loggedKey{}, name)
}
