package v1

import (
	widgetsv1 "github.com/informer-gen/informer-gen/testdata/golden/alias-shim/input/vendored/widgets/v1"
)

// +genclient
// +genclient:nonNamespaced

// Widget is the vendored package's cluster-scoped Widget.
type Widget = widgetsv1.Widget

// WidgetList is its list.
type WidgetList = widgetsv1.WidgetList

// +genclient
// +resourceName=gizmoes

// Gizmo is the vendored package's namespaced Gizmo, served as gizmoes.
type Gizmo = widgetsv1.Gizmo

// GizmoList is its list.
type GizmoList = widgetsv1.GizmoList
