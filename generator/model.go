package generator

import (
	"go/token"
	"go/types"
	"slices"
	"strconv"
	"strings"

	"github.com/gobuffalo/flect"
	gengonamer "k8s.io/gengo/v2/namer"
)

// Model is what the render stage sees: groups, versions, kinds and indexes,
// plain data with no go/types in it. Everything is sorted. Model and its parts
// are exported for the templates only; they are not a stable API.
type Model struct {
	OutputPkg string
	Groups    []*Group
	// jsonDecoders is Config.JSONDecoders.
	jsonDecoders string
}

// Group is one API group, e.g. samplecontroller.example.com.
type Group struct {
	Name     string // API group, "" for the core group
	GoName   string // accessor name: Samplecontroller
	PkgName  string // output package (directory) name: samplecontroller
	Versions []*Version
	pos      token.Position // of +groupName, or of the package clause
	// dirGoName and dirPkgName are the Go name and output package the
	// group takes when its Go name collides with another group's and
	// nothing named it (no +groupName, +groupGoName or --group-go-name):
	// upstream's, from the API package's directory (Flagger's
	// gateway.networking.k8s.io in gatewayapi/ is Gatewayapi() beside
	// gateway.solo.io's Gateway()). "" when something named it.
	dirGoName, dirPkgName string
}

// Version is one group-version, backed by one API package or by several:
// packages that declare the same group version with different kinds (Dapr's
// components and configuration packages, both dapr.io/v1alpha1; Flux's
// image-reflector and image-automation APIs, both image.toolkit.fluxcd.io/v1)
// make one version, as the API server serves their kinds under one group
// version. Each kind knows its own package (Kind.APIPath).
type Version struct {
	Group  *Group
	Name   string // v1alpha1
	GoName string // V1alpha1
	// APIPath is the import path of the API package, the first by import
	// path when there are several.
	APIPath string
	GVVar   string // SchemeGroupVersion or GroupVersion, of APIPath's package
	// APIGroup is the group the server serves the kinds under: the group
	// GVVar declares, which AddToScheme registers them with and the
	// generated informers list and watch (upstream's clientset too), else
	// Group.Name. It differs from Group.Name only in a package whose
	// +groupName differs from its declared group (katib's); then
	// +groupName names the accessor and the output package, as upstream.
	APIGroup string
	// Registers is set when an API package of the version declares no
	// usable group version or AddToScheme but +groupName names its group:
	// the generated informers.go declares both (groupVersion, addToScheme)
	// and registers that package's kinds and their lists itself.
	Registers bool
	Kinds     []*Kind
}

// Merged reports whether more than one API package declares the version's
// kinds.
func (v *Version) Merged() bool {
	return slices.ContainsFunc(v.Kinds, func(k *Kind) bool { return k.APIPath() != v.APIPath })
}

// OwnScheme reports whether the generated informers.go declares the
// addToScheme every Type of the version uses: when a package registers its
// kinds in an init() (Registers), when several packages declare them
// (Merged), or when a package's AddToScheme leaves a kind out (LeftOut).
func (v *Version) OwnScheme() bool { return v.Registers || v.Merged() || len(v.LeftOut()) > 0 }

// apiPackage is the API package a kind is declared in, as the generated
// code refers to it.
type apiPackage struct {
	path  string // import path
	gvVar string // its group version var, SchemeGroupVersion or GroupVersion
	// registers: the package declares no usable group version or
	// AddToScheme, and the generated informers.go registers its kinds (see
	// Version.Registers).
	registers bool
}

// NameQ is the version as a Go string literal.
func (v *Version) NameQ() string { return strconv.Quote(v.Name) }

// APIGroupQ is APIGroup as a Go string literal.
func (v *Version) APIGroupQ() string { return strconv.Quote(v.APIGroup) }

// Kind is one selected type.
type Kind struct {
	Version    *Version
	Name       string // Foo
	Plural     string // Foos (Go accessor)
	Resource   string // foos
	Namespaced bool
	Informer   bool // false with +k8s:informer-gen=false: lister only
	Indexes    []*Index
	// ProjectionOnly is set for a kind of a package named only by
	// --projection: it gets no lister or informer, only its projections.
	ProjectionOnly bool
	// Projections are the kind's +informer-gen:projection markers and
	// --projection flags, in the order given.
	Projections []*Projection
	named       *types.Named // for the decoder stage
	pos         token.Position
	api         *apiPackage
	// kind is the kind the server serves the type as: Name, unless the
	// package registers it under another (registrations.kinds).
	kind string
	// leftOut: the kind's package has an AddToScheme and registers types,
	// but names neither the kind nor its list, so the generated
	// addToScheme registers them (Version.LeftOut).
	leftOut bool
}

// APIPath is the import path of the API package that declares the kind.
func (k *Kind) APIPath() string { return k.api.path }

// GVVar is the group version var of the kind's API package
// (SchemeGroupVersion or GroupVersion), "" when Registers.
func (k *Kind) GVVar() string { return k.api.gvVar }

// Registers reports whether the generated informers.go registers the kind
// (its package declares no usable group version or AddToScheme).
func (k *Kind) Registers() bool { return k.api.registers }

// Index is one +informer-gen:index on a kind.
type Index struct {
	Kind   *Kind
	Name   string     // index name, "Node"
	GoName string     // "Node"
	Source string     // ".spec.nodeName" or "FooOwnerIndex"
	Match  string     // how a value matches, for docs: "whose .spec.nodeName is"
	Func   string     // name of the API package func for func indexes
	Field  *FieldPath // what a field index reads; nil for func indexes
	// Projection is set for the copy of a kind's field index a projection
	// holding its path inherits (Field then reads the projection).
	Projection *Projection
	pos        token.Position
}

// FieldPath is what the index func of a field index reads from obj: the
// fields of the path, then a string-like leaf.
type FieldPath struct {
	// Steps are the fields the path goes through, one per path segment.
	Steps []FieldStep
	Leaf  Leaf
	// Convert is set when the leaf's strings are of a named string type,
	// converted with string(x).
	Convert bool
}

// FieldStep is one segment of a field path.
type FieldStep struct {
	// Selector is the Go expression of the field, from obj
	// (obj.Spec.Target; more than one name for a field promoted from an
	// embedded struct).
	Selector string
	// Pointer is set when the field is a pointer to a struct the path goes
	// on through: a nil one means the object has no values.
	Pointer bool
}

// Leaf is the shape of the field a field path ends in.
type Leaf string

const (
	LeafString       Leaf = "string"       // a string: one value
	LeafPointer      Leaf = "pointer"      // a *string: one value, none when nil
	LeafSlice        Leaf = "slice"        // a []string: its values
	LeafPointerSlice Leaf = "pointerSlice" // a []*string: the values of its non-nil elements
)

// Selector is the Go expression of the leaf.
func (fp *FieldPath) Selector() string { return fp.Steps[len(fp.Steps)-1].Selector }

// NilChecks are the steps that must be checked for nil before the leaf is
// read, in order.
func (fp *FieldPath) NilChecks() []FieldStep {
	var out []FieldStep
	for _, s := range fp.Steps {
		if s.Pointer {
			out = append(out, s)
		}
	}
	return out
}

// Template helpers: small methods so templates hold no logic.

// ListerKinds are the kinds that get listers (all but the ProjectionOnly
// ones).
func (v *Version) ListerKinds() []*Kind {
	var out []*Kind
	for _, k := range v.Kinds {
		if !k.ProjectionOnly {
			out = append(out, k)
		}
	}
	return out
}

// LeftOut are the kinds with listers that their package's AddToScheme
// leaves out (Cilium's v2alpha1 CiliumCIDRGroup, +genclient and served by
// its CRD, which the package stopped registering when the kind moved to
// v2): the generated addToScheme registers them and their lists after
// calling it, since the factory decodes a kind through the scheme its
// Type's AddToScheme builds.
func (v *Version) LeftOut() []*Kind {
	var out []*Kind
	for _, k := range v.ListerKinds() {
		if k.leftOut {
			out = append(out, k)
		}
	}
	return out
}

// ProjectionOnlyKinds are the kinds that are there only for their
// projections.
func (v *Version) ProjectionOnlyKinds() []*Kind {
	var out []*Kind
	for _, k := range v.Kinds {
		if k.ProjectionOnly {
			out = append(out, k)
		}
	}
	return out
}

// InformerKinds are the kinds that get informers.
func (v *Version) InformerKinds() []*Kind {
	var out []*Kind
	for _, k := range v.Kinds {
		if k.Informer && !k.ProjectionOnly {
			out = append(out, k)
		}
	}
	return out
}

// Projections are the projections of every kind of v, sorted by name.
func (v *Version) Projections() []*Projection {
	var out []*Projection
	for _, k := range v.Kinds {
		out = append(out, k.Projections...)
	}
	slices.SortFunc(out, func(a, b *Projection) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// HasInformers reports whether v has informers: of kinds or of projections.
func (v *Version) HasInformers() bool { return len(v.InformerKinds()) > 0 || len(v.Projections()) > 0 }

// LowerName is the kind with a lower-case first letter, for unexported names.
func (k *Kind) LowerName() string { return lowerFirst(k.Name) }

// LowerCase is the kind in lower case, as in upstream's <kind>_expansion.go.
func (k *Kind) LowerCase() string { return strings.ToLower(k.Name) }

// ResourceQ is the resource as a Go string literal.
func (k *Kind) ResourceQ() string { return strconv.Quote(k.Resource) }

// NameQ is the index name as a Go string literal.
func (ix *Index) NameQ() string { return strconv.Quote(ix.Name) }

// ConstName is the generated const holding the index name (FooNodeIndex).
func (ix *Index) ConstName() string { return ix.owner() + ix.GoName + "Index" }

// FuncName is the generated index func (FooNodeIndexFunc).
func (ix *Index) FuncName() string { return ix.owner() + ix.GoName + "IndexFunc" }

// owner is the type the index is on: the kind, or the projection of it
// that inherited it.
func (ix *Index) owner() string {
	if ix.Projection != nil {
		return ix.Projection.Name
	}
	return ix.Kind.Name
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	// "URLMap" -> "urlMap" would need more care; upstream uses the same
	// simple rule (namer.IL) for private names.
	return gengonamer.IL(s)
}

// modelOptions is what the model stage takes from the command line.
type modelOptions struct {
	outputPkg string
	// pluralExceptions maps a kind to its plural Go name, defaults
	// included.
	pluralExceptions map[string]string
	// jsonDecoders is Config.JSONDecoders.
	jsonDecoders string
	// projections are Config.Projections.
	projections []ProjectionFlag
	// groupGoNames are Config.GroupGoNames.
	groupGoNames map[string]string
}

// kindNamers name a kind's plural: the Go accessor (Foos) and the resource
// (foos), gengo's English rules with the plural exceptions, as upstream's
// client-gen and informer-gen name them; and the resource of a kind whose
// CRD controller-gen makes (crdResource).
type kindNamers struct {
	plural, resource gengonamer.Namer
	// exceptions are the plural exceptions, defaults included.
	exceptions map[string]string
}

// crdResource is the resource of a kind selected by kubebuilder's markers:
// the plural controller-gen gives its CRD when no
// +kubebuilder:resource:path says otherwise,
// strings.ToLower(flect.Pluralize(kind)) (controller-tools' crd.spec.go),
// which differs from gengo's English rules (PodChaos: podchaos, not
// podchaoses; Index: indices). A --plural-exceptions entry for the kind
// wins over both.
func (n kindNamers) crdResource(kind string) string {
	if p, ok := n.exceptions[kind]; ok {
		return strings.ToLower(p)
	}
	return strings.ToLower(flect.Pluralize(kind))
}
