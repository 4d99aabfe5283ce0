// Package generator is informer-gen: it reads the API type packages of a CRD
// project and writes typed listers, informers, index funcs and one shared
// informer factory that compile against this module's runtime/ packages.
//
// # Stages
//
// Run goes through four plain stages, each handing the next a typed value
// (*loaded, *marked, *Model, then the rendered files); file names and
// import paths are resolved in paths.go:
//
//   - load (load.go; the type checker in typecheck.go, the version-skew
//     checks in versionskew.go, its diagnostics in loaddiag.go and, for the
//     module graph (go.sum, build tags), loadmodules.go): go/packages — the loader under k8s.io/gengo/v2's
//     parser — lists the input packages and their import graph (go list,
//     nothing compiled); the inputs are then parsed and type-checked once,
//     from source, without function bodies, and once more with the bodies
//     of their hand-written files (not zz_generated* or *.pb.go), in a check
//     of its own that only reports errors: the output imports the inputs,
//     so a body that does not compile (webhook set-up written for another
//     controller-runtime) is an error here rather than in go build.
//     Dependencies are type-checked from source too, declarations only, and
//     only those the inputs' declarations and bodies refer to:
//     sample-controller's API needs 84 of the 268 packages go build would
//     compile for it, so a cold build cache costs about what a warm one
//     does. The exceptions are a dependency outside the k8s.io modules that
//     imports client-go, or another of the libraries released with it but
//     their types (controller-runtime, from API packages with webhooks;
//     KubeVela's cluster-gateway, which imports k8s.io/apiserver), and a
//     package of such a library selected at another minor than client-go
//     (KubeVela v1.10.9 brings k8s.io/apiserver v0.31), a package of
//     Kubernetes that imports one selected so (OpenYurt's k8s.io/kubernetes
//     v1.37 beside apiserver v0.34), and a dependency
//     that imports a library built on client-go at another minor than its
//     go.mod requires (the logging-operator's sdk, written for
//     controller-runtime v0.20): they are checked with their bodies, since
//     code written against an older client-go is what a newer one breaks,
//     and would otherwise pass here and fail in go build.
//     That check waits for the model (loaded.checkImports): it covers what
//     the output imports, the packages that declare kinds and their
//     imports, not what only an input without kinds imports.
//     k8s.io/api, apimachinery or client-go older than the runtime requires
//     is refused too: replaced in go.mod by an older version of itself, the
//     output would not compile; selected older because the module does not
//     require the runtime yet, the inputs would be checked against versions
//     go mod tidy then raises. The ones no input imports, which the output
//     imports through the runtime all the same, are looked up in the
//     module graph (go list -m): replaced older, or client-go at a
//     +incompatible release from before its go.mod, which the go command
//     ranks above every v0.x, is refused, and said beside the inputs' own
//     errors, which it causes when they import client-go.
//     Syntax, type
//     and go list errors become one diagnostic each, with a position and a
//     hint (--tags for files behind a build constraint, go get for a
//     missing go.sum entry or an input in no module of go.mod). Missing
//     go.sum entries are one diagnostic for the whole run, with one go get
//     (which adds the hashes of dependencies' go.mod files too): they have
//     one cause, and a module of many packages would otherwise repeat it
//     per file and import. A package a ... pattern takes in whose
//     imports' modules are missing, and whose syntax shows no type that
//     could be a kind, is skipped: go mod tidy after generating drops what
//     only such packages import, and a rerun must not fail on it. A ...
//     pattern reaching a module that the go command cannot read (required
//     at v0.0.0 by its repository's root module, which replaces it in its
//     own builds only) generates its other packages, with a warning naming
//     that module and what requires it.
//   - markers (markers.go): every "// +marker" line of the input is parsed,
//     attributed to the package or to a type, and checked: unknown variants,
//     near-miss spellings and markers in the wrong place are errors. The
//     markers are then read into each package's group settings and each
//     type's selection (generated or not, scope, resource, indexes).
//   - model (the types in model.go, built by modelbuild.go; kind.go, objectmeta.go, registration.go and index.go
//     check what it reads, projection.go builds the projections): the
//     selected types become a small typed Model (Group, Version, Kind,
//     Index, Projection) with resolved plurals (gengo's plural namer),
//     checked registration, list types and index paths. It takes the output
//     import path and plural exceptions, not the command line.
//   - render (render.go, write.go): one template of package templates per
//     output file, executed with a typed struct, gofmt'ed, imports its output
//     does not refer to dropped (a file is offered every runtime package the
//     templates name, so no import list is kept per template); then the files are
//     compared with the disk and written atomically (temp dir, then renames),
//     stale generated files removed. Only files with informer-gen's own
//     header ("Code generated by github.com/informer-gen/informer-gen") are
//     replaced or removed: a hand-written file in the way, or another
//     generator's output under listers/ or informers/ (upstream
//     code-generator's), is an error and nothing is written.
//
// Every input problem is collected as a Diagnostic ("path/file.go:LINE:COL:
// message (hint)"); they are returned together, sorted by position, and
// nothing is written. Upstream's and kubebuilder's markers where they have
// no effect (a floating +genclient in a types.go that holds only the package
// clause, +groupName on a type, an unknown +genclient: variant) are
// warnings instead ("path/file.go:LINE:COL: warning: ..." on stderr, exit 0),
// as upstream ignores them and users cannot edit published modules; our own
// +informer-gen: markers stay errors. A package named on the command line by
// itself that selects nothing is a warning when others select kinds.
//
// # Which types are generated
//
// A struct type is selected when its comment (the doc comment, or the block
// ending one blank line above it, as upstream reads it) has
//
//	+genclient                         upstream client-gen style
//	+kubebuilder:object:root=true      kubebuilder style (List types skipped)
//
// or, in a package with +groupName that carries kubebuilder markers and no
// +genclient (controller-gen runs over it), embeds metav1.TypeMeta and
// metav1.ObjectMeta directly: controller-gen makes a CRD of every such type,
// root marker or not (crd.FindKubeKinds; +kubebuilder:skip on the package
// and +kubebuilder:skipversion or +kubebuilder:unservedversion on the type
// opt out: no CRD version, or one the server does not serve), and its verbs include
// list and watch (+genclient:noVerbs,
// +genclient:onlyVerbs=... without list or watch, and +genclient:skipVerbs=
// naming list or watch deselect it). +k8s:lister-gen=false deselects it;
// +k8s:informer-gen=false keeps only its lister. A selected type must be
// exported, embed metav1.ObjectMeta by value as `json:"metadata"` (untagged,
// inline, renamed or pointer embeddings decode every object with an empty
// name and are errors) — itself, or through embedded structs that
// encoding/json inlines (by value, untagged or `json:",inline"`), as Go
// promotes it — have a <Kind>List type with Items []<Kind> or
// Items []*<Kind> (or Items of a named slice type of either, as argo's
// `Items Workflows`; a slice of another type, as the OpenTelemetry
// operator's TargetAllocatorList of OpenTelemetryCollector, is a warning:
// the generated code decodes LIST items as <Kind> and never uses the list
// type), and have DeepCopy/DeepCopyObject methods. A kind
// selected by kubebuilder's markers that the package visibly never
// registers in a scheme (no AddKnownTypes or SchemeBuilder.Register call, in
// any of its files, names it: KEDA's WithTriggers helper) is no served
// resource and is skipped, as are the kubebuilder kinds of a package that
// names no group (no +groupName, SchemeGroupVersion or GroupVersion) and
// registers nothing (gatekeeper's unversioned hub types: controller-gen's
// CRD of them has an empty group); -v=1 says so, as it does for kinds whose
// verbs exclude list or watch. A +genclient kind the package visibly never
// registers is asked for, so generated (Cilium's v2alpha1 CiliumCIDRGroup,
// served by its CRD): the version's informers.go declares an addToScheme
// that calls the package's AddToScheme and registers the kind and its list. A type alias (type NodePool = other.NodePool) is a
// kind when the alias carries the markers itself, in a package of the
// user's own over one they cannot edit; the alias must keep the kind's name
// and the package declare the alias of its list too. A
// +kubebuilder:object:root=true type with no ObjectMeta at all is not a
// resource (hook request and response types, reviews), and one with
// ObjectMeta but no <Kind>List is not a listed one (a component Config):
// both are skipped, and -v=1 says so; with +genclient or an index marker
// they are errors.
//
// Scope: namespaced unless +genclient:nonNamespaced or
// +kubebuilder:resource:scope=Cluster; +genclient:nonNamespaced beside a
// +kubebuilder:resource that names no scope is a warning and namespaced, as
// controller-gen makes that CRD (OpenShift Hive's ClusterRelocate;
// genclient-nonnamespaced-default-scope). Resource: +resourceName=foos or
// +kubebuilder:resource:path=foos when given; else, for a kind with any
// +kubebuilder: marker or selected by controller-gen's rule, the name
// controller-gen gives its CRD, strings.ToLower(flect.Pluralize(Kind))
// (PodChaos: podchaos, Index: indices, Metrics: metrics, Repo: repoes); else
// the lowercase plural of gengo's English rules, as client-gen has it. A
// --plural-exceptions entry (default Endpoints:Endpoints) wins over both.
// The Go accessor (Foos()) is gengo's plural either way. The upstream and
// kubebuilder spellings of one setting must agree when both are given.
// A kind of a module other than the main one (the module cache, a
// directory a replace names) whose module ships a CRD manifest for it
// (YAML under the module's directory, testdata/, vendor/ and hidden
// directories left out) takes that CRD's plural and scope when they
// differ, with a warning, as if --plural-exceptions had said so (Argo
// Events' EventBus: eventbus, accessor EventBus()); an explicit
// --plural-exceptions entry keeps its plural, with a warning when the CRD
// disagrees; manifests that disagree with each other change nothing; a
// version the CRD does not serve is a warning. The main module's own
// manifests are left alone: its markers are what they are made from.
//
// Package comment (doc.go, any file's package doc, or a comment block above
// the package clause such as kubebuilder's groupversion_info.go keeps):
// +groupName=example.com, +groupGoName=Example (default: the first DNS label
// of the group; --group-go-name GROUP=Name overrides both, for a package the
// user cannot edit; a group nothing named whose Go name collides with
// another's takes its directory's, as upstream names it). Without
// +groupName the group is the constant Group of the package's
// SchemeGroupVersion or GroupVersion, and only without either the parent
// directory name. A +groupName that differs from the declared group
// (katib's) is a warning, and the two play code-generator's parts: the
// informers list and watch the declared group (what AddToScheme registers and
// upstream's clientset requests), +groupName names the accessor and the
// output package. +groupName given twice with different values is an error,
// unless one is in doc.go: code-generator reads a package's markers from its
// doc.go alone, so doc.go's wins and the other is a warning. The package declares
// SchemeGroupVersion (upstream) or GroupVersion (kubebuilder), of type
// schema.GroupVersion, and AddToScheme; or, when it lacks either (it
// registers its types in an init() into client-go's scheme.Scheme, as
// karpenter's do; register-gen's metav1.GroupVersion; a user's package of
// aliases), +groupName must name its group, and the generated informers.go
// declares the group version (version: +versionName, else the Version of a
// schema.GroupVersion literal its AddKnownTypes call is given, else the
// directory) and an AddToScheme registering the kinds and their lists.
// A package whose SchemeGroupVersion declares runtime.APIVersionInternal (a
// hub, which no server serves) is skipped with a warning naming its kinds,
// an error when nothing else is selected. Packages that declare the same
// group version (Dapr's seven dapr.io/v1alpha1 packages) make one version
// with the kinds of all of them, each referred to in its own package; they
// may not declare the same kind, resource or accessor, or different API
// groups (an error naming both packages).
//
// # Output
//
// Under --output-dir (import path --output-pkg), upstream's package layout, so
// that a controller migrates by changing imports:
//
//	listers/<group>/<version>/listers.go      <Kind>Lister, <Kind>NamespaceLister, index funcs
//	informers/<group>/<version>/informers.go  Interface, <Kind>Informer, <Kind>Type, New<Kind>Informer
//	informers/<group>/<version>/decode.go     JSON decoders of the kinds and projections (see below)
//	informers/<group>/<version>/decode_protobuf.go  protobuf decoders of projections of built-in kinds
//	projections/<group>/<version>/projections.go  projection types (see +informer-gen:projection)
//	informers/<group>/interface.go            Interface{ <Version>() }
//	informers/factory.go                      SharedInformerFactory, NewSharedInformerFactory
//	informers/generic.go                      ForResource(gvr)
//
// Listers embed <Kind>ListerExpansion and <Kind>NamespaceListerExpansion,
// generated empty unless the listers package has a hand-written
// <kind>_expansion.go declaring them (upstream lister-gen's rule), whose
// methods are implemented on the generated *<kind>Lister and
// *<kind>NamespaceLister.
//
// decode.go holds a JSON decode function per kind and per struct type
// reachable from it (package generator/decode plans them, the render stage
// writes them), set as <Kind>Type.DecodeJSON: runtime/wire's codec decodes
// LIST and WATCH bodies with them instead of its reflective decoder, with the
// same results (the differential tests in runtime/wire say so). The
// decoders of apimachinery's types every kind shares (ObjectMeta, Condition,
// LabelSelector, …) and of the core/v1 types custom resources embed
// (decode.CoreV1Roots: PodTemplateSpec, PodSpec, PersistentVolumeClaim,
// ServiceSpec, … and every type they reach) are not generated per package:
// decode.go calls runtime/wire's and runtime/wire/corev1's, which the same
// planner writes once (runtime/wire/json_generated_metav1.go,
// runtime/wire/corev1/json_generated.go, by hack/update-codegen.sh), so a
// package's decoders are proportional to its own types.
// --json-decoders chooses the kinds: auto (the default) those of groups
// kube-apiserver does not serve, i.e. custom resources (also when their Go
// types carry protobuf methods: custom resources are served as JSON), since
// the factory reads built-in types as protobuf; all; or none. Decoders for a
// kind cost compile time (for all of k8s.io/api/core/v1's kinds, about 2,400
// non-blank lines beside the shared ones), hence the default.
//
// One file per group-version rather than upstream's file per kind: the
// packages and names are the same, and the output without decode.go is under
// a third of upstream's size. The shape of the code is fixed in docs/generated-code.md.
//
// # informer-gen markers
//
// All our markers start with +informer-gen: and are type markers. The grammar
// is
//
//	+informer-gen:<key>:<arg>=<value>[,<arg>=<value>...]
//
// with two keys:
//
//	+informer-gen:index:name=Node,field=.spec.nodeName
//	+informer-gen:index:name=Owner,func=FooOwnerIndex
//	+informer-gen:projection:name=FooSummary,fields=.spec.replicas;.status.availableReplicas
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
// projection names a generated type (FooSummary, in package
// projections/<group>/<version>) holding the kind's TypeMeta, its whole
// ObjectMeta and only the fields at the paths of fields (separated by ';',
// since ',' separates arguments), with a lister (FooSummaryLister) and an
// informer (accessor FooSummaries(), FooSummaryType with Projection and Kind
// set) that list and watch the kind's resource and decode each object, as
// JSON (as protobuf for a kind with go-to-protobuf's methods, with the
// decoder of decode_protobuf.go, see projection_protobuf.go), straight into
// the projection; the projection inherits the kind's
// field indexes whose paths it holds. Paths are resolved as index paths are;
// a path through a struct, a pointer to one or a slice of them makes a
// nested struct (FooSummarySpec, PodSummarySpecContainer), and its last
// segment is copied whole with the source's type and json tag (two slices
// of one element type in a struct give nested types named by field:
// PodImagesSpecContainers, PodImagesSpecInitContainers). An empty fields=
// projects the metadata only. metadata,
// apiVersion and kind are always kept and cannot be named. Missing paths,
// duplicate or overlapping paths, json:"-" fields, leaves the generated
// DeepCopy cannot copy, and names that collide with a kind, another
// projection, a nested type or their plural accessors are errors. The same
// projection of a kind whose package cannot carry the marker is given on the
// command line:
//
//	--projection 'k8s.io/api/core/v1.Pod:PodSummary=.spec.nodeName;.status.phase'
//
// A package named only by --projection is loaded too, and gets only its
// projections: no listers or informers of its own kinds. --projection flags
// alone, with no input package, are a whole run; Name= with no paths is a
// metadata-only projection.
//
// # Running it
//
//	go run github.com/informer-gen/informer-gen/cmd/informer-gen \
//	    --output-dir ./pkg/generated ./apis/...
//
// As a tool dependency of a project (Go 1.24+; before the module is tagged,
// hack/use-local.sh of a clone adds it, docs/migrating.md):
//
//	go get -tool github.com/informer-gen/informer-gen/cmd/informer-gen@<version>
//	go tool github.com/informer-gen/informer-gen/cmd/informer-gen --output-dir ./pkg/generated ./apis/...
//
// (the full path: "go tool informer-gen" is ambiguous in a module that also
// has code-generator's informer-gen as a tool). From go:generate, in any file
// of the project (paths are relative to that file's directory):
//
//	//go:generate go tool github.com/informer-gen/informer-gen/cmd/informer-gen --go-header-file ../hack/boilerplate.go.txt --output-dir ../pkg/generated ./...
//
// --go-header-file's " YEAR" (kubebuilder's hack/boilerplate.go.txt) becomes
// the current year, or --year, as with controller-gen. --version prints the
// module version informer-gen was built from ("(devel)" from a checkout).
//
// informer-gen migrate (package generator/migrate, docs/migrating.md)
// rewrites a controller written against code-generator's informers and
// listers to the generated ones.
//
// In CI, add --verify: nothing is written, and the command exits 1 listing
// the stale files. Exit status: 0 success, 1 bad input or stale output,
// 2 usage error.
package generator
