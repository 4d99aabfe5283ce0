//go:build golden_broken

package v1alpha1

import "github.com/informer-gen/informer-gen/testdata/golden/bad-removed-k8s-package/input/health"

// Healthy reports whether the rollout's target is healthy.
func (r *Rollout) Healthy() bool { return health.Known(r.Spec.Target) }
