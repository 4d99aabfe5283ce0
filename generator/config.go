package generator

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/token"
	"io"
	"maps"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Config is everything one run of the generator needs. The zero value is not
// valid: Inputs must name at least one package and OutputDir must be set.
type Config struct {
	// Inputs are the API packages to read: import paths or relative
	// patterns such as ./apis/... (resolved in WorkDir).
	Inputs []string
	// OutputDir is the directory that receives listers/ and informers/.
	OutputDir string
	// OutputPkg is the Go import path of OutputDir. When empty it is derived
	// from the module that contains OutputDir.
	OutputPkg string
	// HeaderFile, when set, is a file whose content starts every output file
	// (a license boilerplate); it is copied verbatim, except that " YEAR"
	// (kubebuilder's placeholder) becomes " " + Year, as controller-gen does.
	HeaderFile string
	// Year replaces YEAR in the header file; "" means the current year (UTC).
	Year string
	// PrintVersion is set by --version: the command prints ModuleVersion() and
	// exits 0 without generating.
	PrintVersion bool
	// PluralExceptions maps a Kind to its plural Go name (upstream's
	// "Endpoints:Endpoints" form); the resource is its lowercase form. They
	// are added to DefaultPluralExceptions.
	PluralExceptions map[string]string
	// Verify writes nothing: Run returns an error wrapping ErrStale, naming
	// every file that would change, when the output on disk is stale.
	Verify bool
	// WorkDir is the directory patterns are resolved in and positions are
	// reported relative to; "" means the process working directory.
	WorkDir string
	// Tags are build tags the input packages are loaded with, as go
	// build's -tags (API files behind a //go:build line are otherwise
	// invisible).
	Tags []string
	// JSONDecoders says for which kinds generated JSON decoders are written
	// (informers/<group>/<version>/decode.go): "auto" or "" for the kinds of
	// groups kube-apiserver does not serve (custom resources, whatever
	// methods their Go types have: built-in types are read as protobuf),
	// "all", or "none". See docs/performance.md, "Generated
	// decoders".
	JSONDecoders string
	// Projections are the --projection flags: projections of kinds whose
	// API package the user cannot mark (k8s.io/api/core/v1.Pod).
	Projections []ProjectionFlag
	// GroupGoNames maps an API group to the Go name of its accessor and
	// output package (--group-go-name), as +groupGoName does, for packages
	// the user cannot edit; it wins over +groupGoName.
	GroupGoNames map[string]string
	// Warnings receives the warnings of a run (file:line:col: warning:
	// message), one per line, whether or not it succeeds; nil means
	// os.Stderr.
	Warnings io.Writer
	// Verbosity is the -v level the command logs at (Run itself logs to
	// klog.FromContext): 1 says which marked types are skipped and why.
	Verbosity int
}

// DefaultPluralExceptions are the kinds whose plural the English rules of
// gengo's plural namer get wrong. Upstream code-generator uses the same
// default; --plural-exceptions adds to it.
var DefaultPluralExceptions = map[string]string{
	"Endpoints": "Endpoints",
}

const usageText = `informer-gen generates typed listers, informers, index funcs and a shared
informer factory for the API types of a CRD project.

Usage:
  informer-gen [flags] PACKAGE...
  informer-gen migrate [--dry-run] [--output-pkg PKG] [--remove-upstream-generated] PACKAGE...
      rewrites a controller from code-generator's informers and listers to
      informer-gen's (docs/migrating.md); "informer-gen migrate --help" says more

PACKAGE is an import path or a pattern relative to the working directory:
  informer-gen --output-dir ./pkg/generated ./apis/...
  informer-gen --output-dir ./pkg/generated example.com/sample/apis/samplecontroller/v1alpha1

Types are selected by +genclient (upstream) or +kubebuilder:object:root=true;
see "go doc github.com/informer-gen/informer-gen/generator" for every marker
(typed indexes: +informer-gen:index; projections, types holding a few fields
of a kind: +informer-gen:projection, or --projection below).

Flags:
`

const usageTrailer = `
Exit status: 0 on success, 1 for bad input (every problem is listed as
file:line:col: message) or stale output with --verify, 2 for usage errors.
`

// ParseArgs parses the command line (without the program name). Help and flag
// errors are printed to stderr; the returned error wraps ErrUsage (exit 2) or
// is flag.ErrHelp (exit 0).
func ParseArgs(args []string, stderr io.Writer) (Config, error) {
	var cfg Config
	var plurals string
	fs := flag.NewFlagSet("informer-gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.OutputDir, "output-dir", "",
		"directory that receives listers/, informers/ and, when projections are declared, projections/ (required)\n"+
			"example: --output-dir ./pkg/generated")
	fs.StringVar(&cfg.OutputPkg, "output-pkg", "",
		"import path of --output-dir; derived from go.mod when empty\n"+
			"example: --output-pkg example.com/sample/pkg/generated")
	fs.StringVar(&cfg.HeaderFile, "go-header-file", "",
		"file whose content (a license header) starts every generated file;\n"+
			"kubebuilder's YEAR placeholder is replaced by --year, as controller-gen does\n"+
			"example: --go-header-file hack/boilerplate.go.txt")
	fs.StringVar(&cfg.Year, "year", "",
		"year that replaces YEAR in --go-header-file (default: the current year)\n"+
			"example: --year 2025")
	fs.BoolVar(&cfg.PrintVersion, "version", false,
		"print informer-gen's module version and exit\n"+
			"example: --version")
	fs.StringVar(&plurals, "plural-exceptions", "",
		"comma-separated Kind:Plural pairs overriding the English plural rules\n"+
			"(added to the default Endpoints:Endpoints)\n"+
			"example: --plural-exceptions Endpoints:Endpoints,Chaos:Chaos")
	fs.Func("tags", "comma-separated build tags to load the input packages with, as go build -tags\n"+
		"example: --tags apis,experimental", func(v string) error {
		for t := range strings.SplitSeq(v, ",") {
			if t = strings.TrimSpace(t); t != "" {
				cfg.Tags = append(cfg.Tags, t)
			}
		}
		return nil
	})
	fs.Func("json-decoders", "which kinds get generated JSON decoders: auto (those of groups kube-apiserver\n"+
		"does not serve, i.e. custom resources; the default), all, or none\n"+
		"example: --json-decoders all", func(v string) error {
		switch v {
		case "auto", "all", "none":
			cfg.JSONDecoders = v
			return nil
		}
		return fmt.Errorf("want auto, all or none, got %q", v)
	})
	fs.Func("projection", "a projection of a kind whose package cannot carry the marker (repeatable):\n"+
		"IMPORTPATH.Kind:Name=PATH;PATH..., as +informer-gen:projection:name=Name,fields=PATH;PATH...\n"+
		"(its package is loaded too when it is not an input, and gets only its projections)\n"+
		"example: --projection 'k8s.io/api/core/v1.Pod:PodSummary=.spec.nodeName;.status.phase'", func(v string) error {
		pf, err := ParseProjectionFlag(v)
		if err != nil {
			return err
		}
		cfg.Projections = append(cfg.Projections, pf)
		return nil
	})
	fs.Func("group-go-name", "GROUP=GoName: the Go name of an API group's accessor and output package,\n"+
		"as +groupGoName, for a package that cannot carry the marker (repeatable)\n"+
		"example: --group-go-name monitoring.coreos.com=CoreOSMonitoring", func(v string) error {
		group, name, ok := strings.Cut(v, "=")
		name = strings.TrimSpace(name)
		if !ok || strings.TrimSpace(group) == "" || !token.IsIdentifier(name) || !token.IsExported(name) {
			return fmt.Errorf("want GROUP=GoName with an exported Go identifier, e.g. monitoring.coreos.com=CoreOSMonitoring; got %q", v)
		}
		group = strings.TrimSpace(group)
		if cfg.GroupGoNames == nil {
			cfg.GroupGoNames = map[string]string{}
		}
		if prev, dup := cfg.GroupGoNames[group]; dup && prev != name {
			return fmt.Errorf("group %q is given two Go names, %s and %s", group, prev, name)
		}
		cfg.GroupGoNames[group] = name
		return nil
	})
	fs.IntVar(&cfg.Verbosity, "v", 0,
		"log verbosity: 1 says which marked types are skipped and why, 2 what was written\n"+
			"example: -v=1")
	fs.BoolVar(&cfg.Verify, "verify", false,
		"write nothing; exit 1 and list the files when the output on disk is stale\n"+
			"example: --verify")
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprint(w, usageText)
		fs.VisitAll(func(f *flag.Flag) {
			typ, usage := flag.UnquoteUsage(f)
			fmt.Fprintf(w, "  %s\n", strings.TrimSpace("--"+f.Name+" "+typ))
			for line := range strings.SplitSeq(usage, "\n") {
				fmt.Fprintf(w, "        %s\n", line)
			}
		})
		fmt.Fprint(w, usageTrailer)
	}
	// Flags may follow the packages, as with upstream's pflag-based
	// commands: parse, take one positional argument, parse again.
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return cfg, err
			}
			return cfg, fmt.Errorf("%w: %w", ErrUsage, err)
		}
		rest = fs.Args()
		if len(rest) == 0 {
			break
		}
		cfg.Inputs = append(cfg.Inputs, rest[0])
		rest = rest[1:]
	}
	if cfg.PrintVersion {
		return cfg, nil
	}
	var problems []string
	if len(cfg.Inputs) == 0 && len(cfg.Projections) == 0 {
		// Projections alone are a whole run: a controller that caches only
		// Pod projections has no API package of its own to name.
		problems = append(problems, "no input packages given (nor --projection)")
	}
	if cfg.OutputDir == "" {
		problems = append(problems, "--output-dir is required")
	}
	pe, err := ParsePluralExceptions(plurals)
	if err != nil {
		problems = append(problems, err.Error())
	}
	cfg.PluralExceptions = pe
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintf(stderr, "informer-gen: %s\n", p)
		}
		fmt.Fprintln(stderr, `run "informer-gen --help" for usage`)
		return cfg, fmt.Errorf("%w: %s", ErrUsage, strings.Join(problems, "; "))
	}
	return cfg, nil
}

// modulePathSelf is this module's path, looked up in the build info.
const modulePathSelf = "github.com/informer-gen/informer-gen"

// ModuleVersion returns the module version informer-gen was built from, as the go
// command recorded it (v0.3.0 for go install ...@v0.3.0 or a tool
// dependency), or "(devel)" for a build from a checkout or without build
// info.
func ModuleVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	return moduleVersion(bi)
}

func moduleVersion(bi *debug.BuildInfo) string {
	mods := append([]*debug.Module{&bi.Main}, bi.Deps...)
	for _, m := range mods {
		if m == nil || m.Path != modulePathSelf {
			continue
		}
		if m.Replace != nil {
			m = m.Replace
		}
		if m.Version != "" {
			return m.Version
		}
	}
	return "(devel)"
}

// fillYear replaces kubebuilder's " YEAR" placeholder in a header, as
// controller-gen does; year "" is the current year in UTC.
func fillYear(header []byte, year string) []byte {
	if year == "" {
		year = strconv.Itoa(time.Now().UTC().Year())
	}
	return bytes.ReplaceAll(header, []byte(" YEAR"), []byte(" "+year))
}

// ParsePluralExceptions parses "Kind:Plural,Kind:Plural". Both sides must be
// Go identifiers; a Kind may appear once.
func ParsePluralExceptions(s string) (map[string]string, error) {
	out := map[string]string{}
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	for entry := range strings.SplitSeq(s, ",") {
		entry = strings.TrimSpace(entry)
		kind, plural, ok := strings.Cut(entry, ":")
		if !ok || !token.IsIdentifier(kind) || !token.IsIdentifier(plural) {
			return nil, fmt.Errorf("--plural-exceptions: malformed entry %q (want Kind:Plural, e.g. Endpoints:Endpoints)", entry)
		}
		if _, dup := out[kind]; dup {
			return nil, fmt.Errorf("--plural-exceptions: kind %q given twice", kind)
		}
		out[kind] = plural
	}
	return out, nil
}

// pluralExceptions merges the defaults with cfg's own exceptions.
func (cfg Config) pluralExceptions() map[string]string {
	out := maps.Clone(DefaultPluralExceptions)
	for _, k := range slices.Sorted(maps.Keys(cfg.PluralExceptions)) {
		out[k] = cfg.PluralExceptions[k]
	}
	return out
}

// ProjectionFlag is one --projection flag:
// IMPORTPATH.Kind:Name=PATH;PATH...
type ProjectionFlag struct {
	// Flag is the flag as given, for messages.
	Flag string
	// Package is the API package's import path, Kind the type in it.
	Package, Kind string
	// Name is the projection type's name.
	Name string
	// Paths are the projected field paths; none for a metadata-only
	// projection ("Name=").
	Paths []string
}

// ParseProjectionFlag parses "k8s.io/api/core/v1.Pod:PodSummary=.spec.nodeName;.status.phase".
// It checks the syntax only; whether the kind and fields exist is checked
// against the loaded packages.
func ParseProjectionFlag(v string) (ProjectionFlag, error) {
	const want = "want IMPORTPATH.Kind:Name=PATH;PATH... (Name= alone: metadata only), e.g. k8s.io/api/core/v1.Pod:PodSummary=.spec.nodeName;.status.phase"
	pf := ProjectionFlag{Flag: v}
	head, fields, ok := strings.Cut(v, "=")
	if !ok {
		return pf, fmt.Errorf("malformed %q: no '=' before the field paths (%s)", v, want)
	}
	target, name, ok := strings.Cut(head, ":")
	if !ok {
		return pf, fmt.Errorf("malformed %q: no ':' before the projection name (%s)", v, want)
	}
	slash := strings.LastIndex(target, "/")
	dot := strings.LastIndex(target, ".")
	if dot <= slash || dot == len(target)-1 {
		return pf, fmt.Errorf("malformed %q: %q is not IMPORTPATH.Kind (%s)", v, target, want)
	}
	pf.Package, pf.Kind, pf.Name = target[:dot], target[dot+1:], strings.TrimSpace(name)
	if strings.HasPrefix(pf.Package, ".") {
		return pf, fmt.Errorf("malformed %q: name the package by its import path, not the relative %q", v, pf.Package)
	}
	if !token.IsIdentifier(pf.Kind) {
		return pf, fmt.Errorf("malformed %q: kind %q is not a Go identifier (%s)", v, pf.Kind, want)
	}
	if !token.IsIdentifier(pf.Name) || !token.IsExported(pf.Name) {
		return pf, fmt.Errorf("malformed %q: projection name %q is not an exported Go identifier (%s)", v, pf.Name, want)
	}
	if strings.TrimSpace(fields) == "" {
		// Name= with nothing after it: a metadata-only projection, as
		// client-go's metadata informers give (ObjectMeta of every object).
		return pf, nil
	}
	for p := range strings.SplitSeq(fields, ";") {
		if p = strings.TrimSpace(p); p != "" {
			pf.Paths = append(pf.Paths, p)
		}
	}
	if len(pf.Paths) == 0 {
		return pf, fmt.Errorf("malformed %q: no field paths after '=' (%s)", v, want)
	}
	return pf, nil
}
