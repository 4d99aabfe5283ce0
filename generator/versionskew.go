package generator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/types"
	"maps"
	"os"
	"os/exec"
	"path"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
	"golang.org/x/tools/go/packages"
)

// Version skew: which packages of the build may not compile against the
// Kubernetes libraries this module selects, and the diagnostics that say so.

// clientGoUsers type-checks, bodies included, the packages that the inputs in
// imported (those the output imports) import, directly or not, that code
// written for another Kubernetes minor breaks in; inputs, all of them, are
// left out (their bodies are checked already). The output builds the
// imported inputs and so those packages, and such a package, written against
// the Kubernetes libraries of its own go.mod, may not compile against those
// this module selects:
//
//   - a package outside the k8s.io modules that imports client-go, or a
//     package of another of Kubernetes' libraries but its types
//     (k8sMachinery): controller-runtime before v0.24 against client-go
//     v0.37, whose cache implements client-go's
//     ResourceEventHandlerRegistration, which gained a method; KubeVela's
//     cluster-gateway, whose loopback set-up reads k8s.io/apiserver's
//     PostStartHookContext.StopCh, which v0.37 no longer has;
//   - a package of one of those libraries selected at another minor than
//     client-go (k8sLockstep): they are released together and each minor is
//     written against its own (KubeVela v1.10.9 brings k8s.io/apiserver
//     v0.31.10, which does not compile against apimachinery v0.37), and
//     another k8s.io package that imports such a library
//     (skewedLockstepImports: k8s.io/kubernetes v1.37 beside apiserver
//     v0.34);
//   - a package outside the k8s.io modules that imports a library built on
//     client-go, such as controller-runtime, selected at another minor than
//     its module requires (skewedK8sLibrary).
//
// The rest of the graph stays trusted, k8s.io/api, apimachinery and
// client-go included (k8sBelowRuntime checks their versions), and code that
// uses only Kubernetes' types rarely breaks on a new minor. Inputs that
// import no such package pay nothing.
func (c *checker) clientGoUsers(imported, inputs []*packages.Package, rel func(string) string) Diagnostics {
	isInput, inputModules := map[string]bool{}, map[string]bool{}
	for _, p := range inputs {
		isInput[p.ID] = true
		if p.Module != nil {
			inputModules[p.Module.Path] = true
		}
	}
	clientGo := c.clientGoVersion()
	against := "k8s.io/client-go " + clientGo
	type user struct {
		p *packages.Package
		// against is the library and version p may not compile against;
		// required, when set, the version p's module requires of it; fix,
		// when set, what to do.
		against, required, fix string
	}
	var users []user
	packages.Visit(imported, nil, func(p *packages.Package) {
		switch {
		case isInput[p.ID] || stdPackage(p.PkgPath):
		case strings.HasPrefix(p.PkgPath, "k8s.io/"):
			if m := p.Module; m != nil && k8sLockstep(m) && !slices.Contains(k8sModules, m.Path) &&
				semver.MajorMinor(m.Version) != semver.MajorMinor(clientGo) {
				users = append(users, user{p: p, against: against})
			} else if libs := skewedLockstepImports(p, clientGo); len(libs) > 0 {
				var names, gets []string
				for _, l := range libs {
					names = append(names, l.Path+" "+buildVersion(l))
					gets = append(gets, l.Path+"@"+clientGo)
				}
				list := names[len(names)-1]
				if len(names) > 1 {
					list = strings.Join(names[:len(names)-1], ", ") + " and " + list
				}
				users = append(users, user{p: p, against: list, fix: "go get " + strings.Join(gets, " ")})
			}
		case importsK8sMachinery(p):
			users = append(users, user{p: p, against: against})
		default:
			if lib, required := c.skewedK8sLibrary(p); lib != "" {
				users = append(users, user{p: p, against: lib, required: required})
			}
		}
	})
	var diags Diagnostics
	for _, u := range users {
		if err := c.ctx.Err(); err != nil {
			return nil
		}
		ofInputs := u.p.Module != nil && inputModules[u.p.Module.Path]
		diags = append(diags, c.fullBodies(u.p, u.against, u.required, u.fix, ofInputs, rel)...)
	}
	return diags
}

// skewedLockstepImports returns the libraries released with client-go
// (k8sLockstep, but k8s.io/api and apimachinery) whose packages other than
// API types p imports from another module, selected at another minor than
// client-go: a package of Kubernetes written for one minor does not compile
// against another minor of the libraries it is released with. OpenYurt
// v1.7.0's API imports k8s.io/kubernetes' pkg/apis/core/v1, whose
// pkg/features, at v1.37, names feature gates that k8s.io/apiserver,
// component-base, apiextensions-apiserver and controller-manager v0.34,
// which OpenYurt's go.mod selects, do not have.
func skewedLockstepImports(p *packages.Package, clientGo string) []*packages.Module {
	var libs []*packages.Module
	for _, imp := range slices.Sorted(maps.Keys(p.Imports)) {
		m := p.Imports[imp].Module
		if m == nil || p.Module != nil && m.Path == p.Module.Path || !k8sLockstep(m) || slices.Contains(k8sModules, m.Path) ||
			strings.Contains(imp+"/", "/pkg/apis/") || semver.MajorMinor(buildVersion(m)) == semver.MajorMinor(clientGo) ||
			slices.ContainsFunc(libs, func(l *packages.Module) bool { return l.Path == m.Path }) {
			continue
		}
		libs = append(libs, m)
	}
	return libs
}

// buildVersion is the version of m that builds: its replacement's when
// another version of it replaces it.
func buildVersion(m *packages.Module) string {
	if m.Replace != nil && m.Replace.Version != "" {
		return m.Replace.Version
	}
	return m.Version
}

// skewedK8sLibrary returns, for a package p that imports a library built on
// client-go (a module whose go.mod requires k8s.io/client-go, as
// controller-runtime's does) at another minor than p's module requires, that
// library as selected ("path version") and the version p's module requires;
// otherwise "", "". Such a library moves with Kubernetes' minors, and code
// written against one of its minors may not compile against another, whether
// or not it imports client-go itself: the logging-operator's pkg/sdk v0.12.0
// calls ctrl.NewWebhookManagedBy(mgr) in logging/api/v1beta1, which imports
// no client-go package, as controller-runtime v0.20 had it; from v0.24 on,
// the first that compiles against client-go v0.37, it takes two arguments.
// A library replaced by a directory counts at the version this module
// requires of it: checking bodies costs time, never a verdict go build would
// not give.
func (c *checker) skewedK8sLibrary(p *packages.Package) (lib, required string) {
	if p.Module == nil || p.Module.Main {
		return "", ""
	}
	requires := c.requirements(p.Module)
	for _, imp := range slices.Sorted(maps.Keys(p.Imports)) {
		m := p.Imports[imp].Module
		if m == nil || m.Main || m.Path == p.Module.Path || strings.HasPrefix(m.Path, "k8s.io/") {
			continue // Kubernetes' own libraries: the cases above
		}
		want, ok := requires[m.Path]
		have := buildVersion(m)
		if !ok || !semver.IsValid(have) || semver.MajorMinor(want) == semver.MajorMinor(have) {
			continue
		}
		if _, ok := c.requirements(m)["k8s.io/client-go"]; ok {
			return m.Path + " " + have, want
		}
	}
	return "", ""
}

// requirements returns the requirements of m's go.mod, module path to
// version, read once per go.mod file; none when it cannot be read.
func (c *checker) requirements(m *packages.Module) map[string]string {
	if m.GoMod == "" {
		return nil
	}
	if r, ok := c.requires[m.GoMod]; ok {
		return r
	}
	r := map[string]string{}
	if data, err := os.ReadFile(m.GoMod); err == nil {
		if f, err := modfile.ParseLax(m.GoMod, data, nil); err == nil {
			for _, req := range f.Require {
				r[req.Mod.Path] = req.Mod.Version
			}
		}
	}
	if c.requires == nil {
		c.requires = map[string]map[string]string{}
	}
	c.requires[m.GoMod] = r
	return r
}

// clientGoVersion is the version of k8s.io/client-go among the listed
// packages, or the runtime's when none imports it.
func (c *checker) clientGoVersion() string {
	for _, dep := range c.byID {
		if dep.Module != nil && dep.Module.Path == "k8s.io/client-go" && dep.Module.Version != "" {
			return dep.Module.Version
		}
	}
	return runtimeK8sVersion
}

// stdPackage reports whether path is a standard library package (no dot in
// its first element).
func stdPackage(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// k8sLockstep reports whether m is one of the Kubernetes libraries
// published together from the kubernetes repository's staging directory
// at v0.<minor>.<patch> for Kubernetes 1.<minor> (client-go, apiserver,
// apiextensions-apiserver, component-base, kube-aggregator, …): a module
// k8s.io/<name> at a release v0.15.0 or later, the first such release.
// k8s.io/utils and kube-openapi (pseudo-versions), klog/v2 and gengo/v2
// (a major version suffix) are not.
func k8sLockstep(m *packages.Module) bool {
	name, ok := strings.CutPrefix(m.Path, "k8s.io/")
	if !ok || strings.Contains(name, "/") || semver.Major(m.Version) != "v0" || semver.Prerelease(m.Version) != "" {
		return false
	}
	minor, err := strconv.Atoi(strings.TrimPrefix(semver.MajorMinor(m.Version), "v0."))
	return err == nil && minor >= 15
}

// importsK8sMachinery reports whether p imports client-go, or a package of
// another k8sLockstep library than k8s.io/api and apimachinery that is not
// a package of API types (.../pkg/apis/..., as apiextensions-apiserver's
// JSON type): the libraries whose behaviour, not only types, code is
// written against.
func importsK8sMachinery(p *packages.Package) bool {
	for path, dep := range p.Imports {
		if path == "k8s.io/client-go" || strings.HasPrefix(path, "k8s.io/client-go/") {
			return true
		}
		m := dep.Module
		if m == nil || m.Path == "k8s.io/api" || m.Path == "k8s.io/apimachinery" || !k8sLockstep(m) ||
			strings.Contains(path+"/", "/pkg/apis/") {
			continue
		}
		return true
	}
	return false
}

// fullBodies type-checks every file of a dependency p with its function
// bodies, in a check of its own (the model's declarations-only package of p
// stays as it is), and reports its errors, with what to do about them
// (against is the library that p may not compile against, as selected:
// "k8s.io/client-go v0.37.2"; required, when set, the version of it that
// p's module requires; fix, when set, what to do; ofInputs, whether p's
// module is an input package's; see clientGoUsers).
func (c *checker) fullBodies(p *packages.Package, against, required, fix string, ofInputs bool, rel func(string) string) Diagnostics {
	var files []*ast.File
	for _, name := range p.GoFiles {
		src, err := os.ReadFile(name)
		if err != nil {
			return nil // a file go list saw and that is gone: not ours to report
		}
		f, err := parser.ParseFile(c.fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			return nil // go build says so; nothing of the output's doing
		}
		files = append(files, f)
	}
	var typeErrs []types.Error
	conf := types.Config{
		Importer:    importer{c, p},
		Sizes:       c.sizes,
		GoVersion:   langVersion(p),
		FakeImportC: true,
		Error: func(err error) {
			if te, ok := err.(types.Error); ok {
				typeErrs = append(typeErrs, te)
			}
		},
	}
	conf.Check(p.PkgPath, c.fset, files, nil)
	if len(typeErrs) == 0 {
		return nil
	}
	typeErrs, d, tooNew := c.withoutTooNewGo(p, typeErrs, rel)
	if tooNew {
		return d
	}
	atGoBuildPositions(typeErrs, files)
	hint := dependencyHint(p, against, required, fix, ofInputs, c.build, rel)
	return typeErrorDiagnostics(typeErrs, rel, hint)
}

// dependencyHint says what to do about a dependency p that does not compile
// against a library as this module selects it (against: "k8s.io/client-go
// v0.37.2", or another library built on client-go, with required the
// version p's module requires of it): a published module needs another
// version of it, a library released with client-go its version; code of this
// module, or of a directory a replace names, is the user's to fix, and build
// shows the same errors. fix, when set, says what to do instead.
//
// ofInputs says that p belongs to the module of an input package, which
// imports it (the logging-operator's pkg/sdk v0.12.0, whose
// logging/api/v1alpha1 imports logging/api/v1beta1): the hint names the
// package and says so, where otherwise it names the module, and the
// version to take is the input module's.
func dependencyHint(p *packages.Package, against, required, fix string, ofInputs bool, build string, rel func(string) string) string {
	note := ""
	if required != "" {
		note = " (its go.mod requires " + required + ")"
	}
	if m := p.Module; m != nil && !m.Main && (m.Replace == nil && m.Version != "" || m.Replace != nil && m.Replace.Version != "") {
		lib, version, _ := strings.Cut(against, " ")
		switch {
		case fix != "":
		case m.Path == "sigs.k8s.io/controller-runtime":
			fix = "go get sigs.k8s.io/controller-runtime@v0.24 or later"
		case lib == "k8s.io/client-go" && m.Replace == nil && k8sLockstep(m) && semver.IsValid(version):
			// Released with client-go: its version is the one to take.
			fix = "go get " + m.Path + "@" + version
		case ofInputs:
			fix = "go get a version of " + m.Path + " built for that " + path.Base(lib) + ", or generate only the input packages that do not import " + p.PkgPath + ", directly or not"
		default:
			fix = "go get a version of it built for that " + path.Base(lib)
		}
		at := m.Path + " " + m.Version
		if m.Replace != nil {
			at += " (replaced by " + m.Replace.Path + " " + m.Replace.Version + ")"
		}
		if ofInputs {
			return fmt.Sprintf("%s (%s, the input packages' module), which input packages import, does not compile against %s that this module selects%s; %s", p.PkgPath, at, against, note, fix)
		}
		return fmt.Sprintf("%s, imported by the input packages, does not compile against %s that this module selects%s; %s", at, against, note, fix)
	}
	if fix == "" {
		fix = build + " " + relPkg(p, rel) + " shows the same"
	}
	by := "imported by the input packages"
	if ofInputs {
		by = "a package of the input packages' module that they import"
	}
	return fmt.Sprintf("%s, %s, does not compile against %s that this module selects%s; %s", p.PkgPath, by, against, note, fix)
}

// runtimeK8sVersion is the version of k8s.io/api, apimachinery and client-go
// that the runtime the output imports requires (this module's go.mod; a
// test keeps the two equal). Without a replace, the go command selects it
// or a newer one in any module that requires the runtime.
const runtimeK8sVersion = "v0.37.2"

// k8sModules are the modules the output imports through the runtime,
// whatever the inputs import.
var k8sModules = []string{"k8s.io/api", "k8s.io/apimachinery", "k8s.io/client-go"}

// k8sBelowRuntime reports k8s.io/api, apimachinery or client-go at an
// older version, in the module that generates, than the runtime the output
// imports requires. Replaced by an older version of itself (projects that
// pin Kubernetes with replace lines, as KServe pins v0.34), the output would
// not compile. Selected older without a replace, the module does not require
// the runtime yet (a binary run from elsewhere, hack/use-local.sh
// --no-tool): the inputs would be checked against versions that go mod
// tidy then raises, and an input that compiles today may not compile at
// the runtime's version (Flagger imports k8s.io/api's autoscaling/v2beta2,
// which v0.37 no longer has), or its generated decoders go stale at once.
// A replacement by another module (a fork) or a directory is left alone:
// its version says nothing of its API.
//
// The modules of k8sModules that no input imports are still imported by the
// output: graph (nil: not asked) gives their versions in the module graph,
// and those are reported when replaced by an older version, or selected at a
// +incompatible one (below); selected older, go mod tidy raises them once
// the module requires the runtime, as the inputs cannot see them.
//
// k8s.io/client-go's releases from before it had a go.mod (v2.0.0 to
// v12.0.0, Kubernetes 1.5 to 1.15) are v12.0.0+incompatible and the like,
// which the go command ranks above every v0.x: a module that still requires
// one, and pins v0.x with a replace line that applies in its own builds only
// (LitmusChaos's chaos-operator), makes the go command select it over the
// runtime's requirement, and the output would not compile.
//
// broken are the verdicts that the output would not compile (replaced older,
// +incompatible): the cause of any errors the inputs show against such a
// client-go too, so load reports them beside those. older are the modules
// selected older without a replace, reported only when nothing else is.
func k8sBelowRuntime(pkgs []*packages.Package, graph func(paths []string) []*packages.Module) (broken, older Diagnostics) {
	seen := map[string]bool{}
	add := func(m *packages.Module, imported bool) {
		d, outputBreaks := k8sModuleBelowRuntime(m, imported)
		if outputBreaks {
			broken = append(broken, d...)
		} else {
			older = append(older, d...)
		}
	}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		m := p.Module
		if m == nil || m.Main || seen[m.Path] {
			return
		}
		seen[m.Path] = true
		if slices.Contains(k8sModules, m.Path) {
			add(m, true)
		}
	})
	var rest []string
	for _, path := range k8sModules {
		if !seen[path] {
			rest = append(rest, path)
		}
	}
	if len(rest) > 0 && graph != nil {
		for _, m := range graph(rest) {
			if slices.Contains(rest, m.Path) {
				add(m, false)
			}
		}
	}
	return broken, older
}

// k8sModuleBelowRuntime is k8sBelowRuntime's verdict on one module;
// imported says whether the inputs import it; outputBreaks, whether the
// verdict is that the output would not compile.
func k8sModuleBelowRuntime(m *packages.Module, imported bool) (d Diagnostics, outputBreaks bool) {
	if m.Main || m.Version == "" {
		return nil, false
	}
	switch r := m.Replace; {
	case r == nil && semver.Build(m.Version) == "+incompatible":
		return Diagnostics{{Subject: m.Path,
			Message: fmt.Sprintf("this module selects %s %s, a release from before the module had a go.mod, which the go command ranks above the %s that the generated code's runtime requires: the output would not compile",
				m.Path, m.Version, runtimeK8sVersion),
			Hint: fmt.Sprintf("a dependency requires it and pins %s with a replace line, which applies only in its own builds; add one here: go mod edit -replace=%s=%s@%s (go mod graph | grep %s@%s names the dependency)",
				m.Path, m.Path, m.Path, runtimeK8sVersion, m.Path, m.Version)}}, true
	case r == nil:
		if !imported || !semver.IsValid(m.Version) || semver.Compare(m.Version, runtimeK8sVersion) >= 0 {
			return nil, false
		}
		return Diagnostics{{Subject: m.Path,
			Message: fmt.Sprintf("this module selects %s %s, older than the %s that the generated code's runtime requires: the inputs would be checked against versions other than those the output builds with",
				m.Path, m.Version, runtimeK8sVersion),
			Hint: fmt.Sprintf("go get %s@%s before generating; requiring the runtime first does it (go get github.com/informer-gen/informer-gen@<version>, or hack/use-local.sh without --no-tool from a clone)", m.Path, runtimeK8sVersion)}}, false
	case r.Path == m.Path && semver.IsValid(r.Version) && (semver.Build(r.Version) == "+incompatible" || semver.Compare(r.Version, runtimeK8sVersion) < 0):
		return Diagnostics{{Subject: m.Path,
			Message: fmt.Sprintf("go.mod replaces %s with %s, older than the %s that the generated code's runtime requires: the output would not compile",
				m.Path, r.Version, runtimeK8sVersion),
			Hint: fmt.Sprintf("raise the replace to %s or later, or drop it", runtimeK8sVersion)}}, true
	}
	return nil, false
}

// graphModules returns the modules of paths as the module graph of the
// module in cfg.WorkDir selects them (go list -m -e, which reads go.mod
// files, not the modules' source): those not in the graph are left out, and
// when the go command fails, all of them, as this only adds a check.
func graphModules(ctx context.Context, cfg Config, paths []string) []*packages.Module {
	cmd := exec.CommandContext(ctx, "go", append([]string{"list", "-m", "-e", "-json"}, paths...)...)
	cmd.Dir = cfg.WorkDir
	cmd.Env = listEnv(os.Environ())
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	var mods []*packages.Module
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		m := new(packages.Module)
		if dec.Decode(m) != nil {
			break
		}
		if m.Version != "" && !m.Main {
			mods = append(mods, m)
		}
	}
	return mods
}
