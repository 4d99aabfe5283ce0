package reflector

import (
	"context"

	"k8s.io/klog/v2"
)

// LogKey is the one logging key that names a resource: whoever runs a
// Reflector (an informer, a factory) logs the resource under it exactly once.
const LogKey = "resource"

// loggedKey marks a context whose logger already carries LogKey.
type loggedKey struct{}

// LogContext returns ctx with a logger (klog.FromContext(ctx)) that carries
// LogKey=name, unless ctx already carries it for this same name (an outer
// LogContext or MarkLogged did): then ctx itself is returned, so nested
// components (factory → informer → Reflector) log the resource once.
// Reflector.Run and Informer.Run call it with their name; the factory calls
// it before them.
func LogContext(ctx context.Context, name string) context.Context {
	if n, ok := ctx.Value(loggedKey{}).(string); ok && n == name {
		return ctx
	}
	ctx = klog.NewContext(ctx, klog.FromContext(ctx).WithValues(LogKey, name))
	return MarkLogged(ctx, name)
}

// MarkLogged returns ctx marked as naming name already, without adding a
// key: for a caller whose logger identifies name some other way (an
// informer that gives each namespace's Reflector, named "<resource>
// namespace=<ns>", the key "namespace" instead).
func MarkLogged(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, loggedKey{}, name)
}
