// Package generator is informer-gen: it reads the API type packages of a CRD
// project and writes typed listers, informers, index funcs and one shared
// informer factory that compile against this module's runtime/ packages.
//
// # Stages
//
// Run goes through four plain stages, one file each:
//
//   - load (load.go): go/packages — the loader under k8s.io/gengo/v2's
//     parser — lists the input packages and their import graph (go list,
//     nothing compiled); the inputs are then parsed and type-checked once,
//     from source, without function bodies. Dependencies are type-checked
//     from source too, declarations only, and only those the remaining
//     declarations refer to (imports used in bodies alone are dropped):
//     sample-controller's API needs 84 of the 268 packages go build would
//     compile for it, so a cold build cache costs about what a warm one does. Syntax, type
//     and go list errors become one diagnostic each, with a position and a
//     hint (--tags for files behind a build constraint, go get for a
//     missing go.sum entry).
//   - markers (markers.go): every "// +marker" line of the input is parsed,
//     attributed to the package or to a type, and checked: unknown variants,
//     near-miss spellings and markers in the wrong place are errors.
//   - model (model.go, index.go): the selected types become a small typed
//     Model (Group, Version, Kind, Index) with resolved plurals (gengo's plural
//     namer), checked registration, list types and index paths.
//   - render (render.go, write.go): one template of package templates per
//     output file, executed with a typed struct, gofmt'ed; then the files are
//     compared with the disk and written atomically (temp dir, then renames),
//     stale generated files removed.
//
// Every input problem is collected as a Diagnostic ("path/file.go:LINE:COL:
// message (hint)"); they are returned together, sorted by position, and
// nothing is written.
//
// # Which types are generated
//
// A struct type is selected when its comment (the doc comment, or the block
// ending one blank line above it, as upstream reads it) has
//
//	+genclient                         upstream client-gen style
//	+kubebuilder:object:root=true      kubebuilder style (List types skipped)
//
// and its verbs include list and watch (+genclient:noVerbs,
// +genclient:onlyVerbs=... without list or watch, and +genclient:skipVerbs=
// naming list or watch deselect it). +k8s:lister-gen=false deselects it;
// +k8s:informer-gen=false keeps only its lister. A selected type must be
// exported, embed metav1.ObjectMeta by value as `json:"metadata"` (untagged,
// inline, renamed or pointer embeddings decode every object with an empty
// name and are errors), have a <Kind>List type with Items []<Kind> or
// Items []*<Kind>, and have DeepCopy/DeepCopyObject methods. A
// +kubebuilder:object:root=true type with no ObjectMeta at all is not a
// resource (hook request and response types, reviews): it is skipped, and
// -v=1 says so.
//
// Scope: namespaced unless +genclient:nonNamespaced or
// +kubebuilder:resource:scope=Cluster. Resource: the lowercase plural of the
// kind (gengo's English rules plus --plural-exceptions, default
// Endpoints:Endpoints), overridden by +resourceName=foos or
// +kubebuilder:resource:path=foos. The upstream and kubebuilder spellings
// of one setting must agree when both are given.
//
// Package comment (doc.go, any file's package doc, or a comment block above
// the package clause such as kubebuilder's groupversion_info.go keeps):
// +groupName=example.com, +groupGoName=Example (default: the first DNS label
// of the group). Without +groupName the group is the constant Group of the
// package's SchemeGroupVersion or GroupVersion, and only without either the
// parent directory name; +groupName given twice with different values, or
// different from the declared group, is an error. The package must declare
// SchemeGroupVersion (upstream) or GroupVersion (kubebuilder) and AddToScheme.
//
// # Output
//
// Under --output-dir (import path --output-pkg), upstream's package layout, so
// that a controller migrates by changing imports:
//
//	listers/<group>/<version>/listers.go      <Kind>Lister, <Kind>NamespaceLister, index funcs
//	informers/<group>/<version>/informers.go  Interface, <Kind>Informer, <Kind>Type, New<Kind>Informer
//	informers/<group>/interface.go            Interface{ <Version>() }
//	informers/factory.go                      SharedInformerFactory, NewSharedInformerFactory
//	informers/generic.go                      ForResource(gvr)
//
// One file per group-version rather than upstream's file per kind: the
// packages and names are the same, and the output is a third of upstream's
// size. The shape of the code is fixed in docs/generated-code.md.
//
// # informer-gen markers
//
// All our markers start with +informer-gen: and are type markers. The grammar
// is
//
//	+informer-gen:<key>:<arg>=<value>[,<arg>=<value>...]
//
// with one key today:
//
//	+informer-gen:index:name=Node,field=.spec.nodeName
//	+informer-gen:index:name=Owner,func=FooOwnerIndex
//
// name is a Go identifier; it names the index (const FooNodeIndex = "Node"),
// the index func (FooNodeIndexFunc) and the lister method ByNode(value).
// field is a path of JSON names (.spec.nodeName) or Go names
// (.Spec.NodeName), through structs and pointers to structs; the leaf must be
// string-like: a string or named string type, a pointer to one, or a slice of
// either. The generated func is nil-safe and skips empty values. func names
// an exported func(*Foo) ([]string, error) in the API package. Unknown keys,
// unknown arguments, missing paths, non-string leaves, wrong signatures and
// duplicate names are errors.
//
// # Running it
//
//	go run github.com/informer-gen/informer-gen/cmd/informer-gen \
//	    --output-dir ./pkg/generated ./apis/...
//
// As a tool dependency of a project (Go 1.24+):
//
//	go get -tool github.com/informer-gen/informer-gen/cmd/informer-gen
//	go tool informer-gen --output-dir ./pkg/generated ./apis/...
//
// From go:generate, in any file of the project (paths are relative to that
// file's directory):
//
//	//go:generate go tool informer-gen --go-header-file ../hack/boilerplate.go.txt --output-dir ../pkg/generated ./...
//
// In CI, add --verify: nothing is written, and the command exits 1 listing
// the stale files. Exit status: 0 success, 1 bad input or stale output,
// 2 usage error.
package generator
