//go:build golden_broken

// Package health knows the kinds whose health it can judge, the way a
// dependency that registers every built-in API version in a scheme does.
package health

import (
	autoscalingv2beta1 "k8s.io/api/autoscaling/v2beta1"
)

// Known reports whether kind is one whose health is judged.
func Known(kind string) bool {
	return kind == autoscalingv2beta1.SchemeGroupVersion.WithKind("HorizontalPodAutoscaler").Kind
}
