package migrate

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
)

// rewriter migrates one file. It decides on the original, type-checked AST
// (parents, types.Info), collects replacements, and applies them at the
// end, so that a refusal anywhere leaves the file as it was.
type rewriter struct {
	fset  *token.FileSet
	info  *types.Info
	file  *ast.File
	froms map[string]bool
	out   string // OutputPkg, "" = same as from

	parents  map[ast.Node]ast.Node
	repl     map[ast.Node]ast.Node
	done     map[ast.Node]bool // nodes already handled by an outer rewrite
	changes  []change
	refusals []refusal
	names    map[string]bool // identifiers in the file, to avoid import clashes
	imports  map[string]string
}

func (r *rewriter) run() {
	r.parents = map[ast.Node]ast.Node{}
	r.repl = map[ast.Node]ast.Node{}
	r.done = map[ast.Node]bool{}
	r.names = map[string]bool{}
	r.imports = map[string]string{}
	var stack []ast.Node
	ast.Inspect(r.file, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		if len(stack) > 0 {
			r.parents[n] = stack[len(stack)-1]
		}
		if id, ok := n.(*ast.Ident); ok {
			r.names[id.Name] = true
		}
		stack = append(stack, n)
		return true
	})

	usesUpstream := false
	for _, imp := range r.file.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if _, rest, ok := r.upstream(path); ok {
			usesUpstream = true
			if strings.HasPrefix(rest, externalversions+"/internalinterfaces") {
				r.refuse(imp, "import of code-generator's internalinterfaces: informer-gen has no such package (its factory takes factory.Options; see docs/migrating.md)")
			}
			if imp.Name != nil && imp.Name.Name == "." {
				r.refuse(imp, "dot import of code-generator's package: give it a name first")
			}
		}
	}
	if !usesUpstream {
		return
	}

	ast.Inspect(r.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			r.call(n)
		case *ast.SelectorExpr:
			r.typeRef(n)
		}
		return true
	})
	if len(r.refusals) > 0 {
		return
	}
	r.apply()
}

// upstream reports whether path is in one of the upstream generated trees
// (<from>/informers/externalversions... or <from>/listers...), returning
// from and the rest of the path.
func (r *rewriter) upstream(path string) (from, rest string, ok bool) {
	for f := range r.froms {
		if rest, ok := strings.CutPrefix(path, f); ok {
			if rest == externalversions || strings.HasPrefix(rest, externalversions+"/") || strings.HasPrefix(rest, "/listers/") {
				return f, rest, true
			}
		}
	}
	return "", "", false
}

// objFrom reports whether obj is declared in an upstream informers package
// (root when root is set: the factory's package).
func (r *rewriter) objFrom(obj types.Object, root bool) bool {
	if obj == nil || obj.Pkg() == nil {
		return false
	}
	_, rest, ok := r.upstream(obj.Pkg().Path())
	if !ok || !strings.HasPrefix(rest, externalversions) {
		return false
	}
	return !root || rest == externalversions
}

func (r *rewriter) refuse(n ast.Node, format string, args ...any) {
	r.refusals = append(r.refusals, refusal{pos: r.fset.Position(n.Pos()), msg: fmt.Sprintf(format, args...)})
}

func (r *rewriter) changed(n ast.Node, format string, args ...any) {
	r.changes = append(r.changes, change{line: r.fset.Position(n.Pos()).Line, what: fmt.Sprintf(format, args...)})
}

// importName returns the name under which path is imported in the file,
// adding the import (under a name that clashes with nothing) if needed.
func (r *rewriter) importName(path, name string) string {
	if n, ok := r.imports[path]; ok {
		return n
	}
	for _, imp := range r.file.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == path {
			n := name
			if imp.Name != nil {
				n = imp.Name.Name
			}
			r.imports[path] = n
			return n
		}
	}
	n := name
	if r.names[n] {
		n = "ig" + name
		for i := 2; r.names[n]; i++ {
			n = fmt.Sprintf("ig%s%d", name, i)
		}
	}
	r.names[n] = true
	r.imports[path] = n
	return n
}

func sel(x ast.Expr, name string) *ast.SelectorExpr {
	return &ast.SelectorExpr{X: x, Sel: ast.NewIdent(name)}
}

func (r *rewriter) pkgSel(path, name, fn string) *ast.SelectorExpr {
	return sel(ast.NewIdent(r.importName(path, name)), fn)
}

// methodOf returns the method a selector x.name calls and x's expression,
// when x.name is a method selection.
func (r *rewriter) method(s *ast.SelectorExpr) *types.Func {
	if selection, ok := r.info.Selections[s]; ok {
		if f, ok := selection.Obj().(*types.Func); ok {
			return f
		}
	}
	return nil
}

// call handles the calls the migration knows.
func (r *rewriter) call(c *ast.CallExpr) {
	s, ok := c.Fun.(*ast.SelectorExpr)
	if !ok {
		return
	}
	// A package-level function of the factory's package, or of another
	// upstream generated package (standalone informer and lister
	// constructors, whose signatures differ in informer-gen).
	if fn, ok := r.info.Uses[s.Sel].(*types.Func); ok && r.info.Selections[s] == nil && fn.Pkg() != nil {
		if r.objFrom(fn, true) {
			r.constructor(c, s, fn.Name())
		} else if _, _, up := r.upstream(fn.Pkg().Path()); up {
			r.refuse(s.Sel, "%s: informer-gen's standalone constructors differ (New<Kind>Informer(ListerWatcher, informer.Options), New<Kind>Lister(*store.Indexer[T])); use the factory, or rewrite by hand", fn.Name())
		}
		return
	}
	m := r.method(s)
	if m == nil || !r.objFrom(m, false) {
		return
	}
	switch {
	case m.Name() == "Informer":
		r.informerUse(c)
	case r.isFactory(s.X):
		r.factoryMethod(c, s)
	}
}

// isFactory reports whether x's type is the upstream SharedInformerFactory.
func (r *rewriter) isFactory(x ast.Expr) bool {
	t := r.info.TypeOf(x)
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	named, ok := t.(*types.Named)
	return ok && named.Obj().Name() == "SharedInformerFactory" && r.objFrom(named.Obj(), true)
}

func isZero(info *types.Info, e ast.Expr) bool {
	tv, ok := info.Types[e]
	if !ok || tv.Value == nil {
		return false
	}
	switch tv.Value.Kind() {
	case constant.Int, constant.Float:
		return constant.Sign(tv.Value) == 0
	}
	return false
}

func isNil(info *types.Info, e ast.Expr) bool {
	tv, ok := info.Types[e]
	return ok && tv.IsNil()
}

// constructor rewrites the factory constructors.
func (r *rewriter) constructor(c *ast.CallExpr, s *ast.SelectorExpr, name string) {
	switch name {
	case "NewSharedInformerFactory", "NewSharedInformerFactoryWithOptions", "NewFilteredSharedInformerFactory":
	case "WithNamespace", "WithTweakListOptions", "WithTransform", "WithCustomResyncConfig":
		if p, ok := r.parents[c].(*ast.CallExpr); ok {
			if ps, ok := p.Fun.(*ast.SelectorExpr); ok {
				if fn, ok := r.info.Uses[ps.Sel].(*types.Func); ok && fn.Name() == "NewSharedInformerFactoryWithOptions" {
					return // handled with its constructor
				}
			}
		}
		r.refuse(c, "%s outside a NewSharedInformerFactoryWithOptions call: put the option in the call, or write factory.Options by hand", name)
		return
	default:
		r.refuse(c, "%s of code-generator's informers has no informer-gen counterpart the migration can write (see docs/migrating.md)", name)
		return
	}
	if c.Ellipsis.IsValid() || len(c.Args) < 2 {
		r.refuse(c, "%s with a spread argument: list the options in the call", name)
		return
	}
	var elts []ast.Expr
	kv := func(k string, v ast.Expr) { elts = append(elts, &ast.KeyValueExpr{Key: ast.NewIdent(k), Value: v}) }
	// namespaces is []string{ns}: factory.Options takes a list.
	namespaces := func(ns ast.Expr) ast.Expr {
		return &ast.CompositeLit{Type: &ast.ArrayType{Elt: ast.NewIdent("string")}, Elts: []ast.Expr{ns}}
	}
	if !isZero(r.info, c.Args[1]) {
		kv("ResyncPeriod", c.Args[1])
	}
	switch name {
	case "NewFilteredSharedInformerFactory":
		if len(c.Args) != 4 {
			return
		}
		if !isZero(r.info, c.Args[2]) && !isEmptyString(r.info, c.Args[2]) {
			kv("Namespaces", namespaces(c.Args[2]))
		}
		if !isNil(r.info, c.Args[3]) {
			kv("Tweak", c.Args[3])
		}
	case "NewSharedInformerFactoryWithOptions":
		for _, o := range c.Args[2:] {
			oc, ok := o.(*ast.CallExpr)
			var fn *types.Func
			if ok {
				if os, ok := oc.Fun.(*ast.SelectorExpr); ok {
					fn, _ = r.info.Uses[os.Sel].(*types.Func)
				}
			}
			if fn == nil || !r.objFrom(fn, true) || len(oc.Args) != 1 {
				r.refuse(o, "option of NewSharedInformerFactoryWithOptions that is not a WithNamespace or WithTweakListOptions call: write factory.Options by hand")
				return
			}
			switch fn.Name() {
			case "WithNamespace":
				kv("Namespaces", namespaces(oc.Args[0]))
			case "WithTweakListOptions":
				kv("Tweak", oc.Args[0])
			case "WithTransform":
				r.refuse(o, "WithTransform: informer-gen's transform takes and returns runtime.Object (factory.Options.Transform), or the type's objects (factory.TypeOptions.Transform); rewrite it by hand")
				return
			default:
				r.refuse(o, "%s: no informer-gen counterpart the migration can write (per-type resync is factory.TypeOptions.ResyncPeriod)", fn.Name())
				return
			}
		}
	}
	cs := &ast.CallExpr{Fun: r.pkgSel(clientsetCfgPkg, "clientsetconfig", "For"), Args: []ast.Expr{c.Args[0]}}
	opts := &ast.CompositeLit{Type: r.pkgSel(factoryPkg, "factory", "Options"), Elts: elts}
	r.repl[c] = &ast.CallExpr{Fun: sel(s.X, "NewSharedInformerFactory"), Args: []ast.Expr{cs, opts}, Rparen: c.Rparen}
	r.changed(c, "%s(clientset, ...) -> NewSharedInformerFactory(clientsetconfig.For(clientset), factory.Options{...})", name)
}

func isEmptyString(info *types.Info, e ast.Expr) bool {
	tv, ok := info.Types[e]
	return ok && tv.Value != nil && tv.Value.Kind() == constant.String && constant.StringVal(tv.Value) == ""
}

// ctxOfDone returns ctx when e is ctx.Done() of a context.Context.
func (r *rewriter) ctxOfDone(e ast.Expr) ast.Expr {
	c, ok := e.(*ast.CallExpr)
	if !ok || len(c.Args) != 0 {
		return nil
	}
	s, ok := c.Fun.(*ast.SelectorExpr)
	if !ok || s.Sel.Name != "Done" {
		return nil
	}
	if m := r.method(s); m == nil || m.Pkg() == nil || m.Pkg().Path() != "context" {
		return nil
	}
	return s.X
}

// factoryMethod rewrites calls of the upstream factory's methods.
func (r *rewriter) factoryMethod(c *ast.CallExpr, s *ast.SelectorExpr) {
	switch s.Sel.Name {
	case "Start", "WaitForCacheSync":
		if len(c.Args) != 1 {
			return
		}
		ctx := r.ctxOfDone(c.Args[0])
		if ctx == nil {
			r.refuse(c.Args[0], "%s takes a context.Context in informer-gen: pass the context whose Done() this channel is", s.Sel.Name)
			return
		}
		if s.Sel.Name == "WaitForCacheSync" {
			if _, ok := r.parents[c].(*ast.ExprStmt); !ok {
				r.refuse(c, "WaitForCacheSync's result is used: informer-gen's returns an error naming each unsynced resource, not a map; rewrite by hand")
				return
			}
		}
		r.repl[c.Args[0]] = ctx
		r.changed(c, "%s(ctx.Done()) -> %[1]s(ctx)", s.Sel.Name)
	case "Shutdown":
	case "InformerFor", "ForResource":
		r.refuse(c, "factory.%s: informer-gen's differs (factory.InformerFor(f, Type); ForResource returns a factory.Generic); rewrite by hand", s.Sel.Name)
	default:
		// Group accessors (Samplecontroller()) are the same.
	}
}

// informerUse handles X.Informer() (a cache.SharedIndexInformer upstream,
// an *informer.Informer[T] in informer-gen).
func (r *rewriter) informerUse(inf *ast.CallExpr) {
	s, ok := r.parents[inf].(*ast.SelectorExpr)
	if !ok || s.X != inf {
		r.refuse(inf, "Informer() used as a value: its type changes from cache.SharedIndexInformer to *informer.Informer[T]; call its methods directly or change the receiving type by hand")
		return
	}
	call, _ := r.parents[s].(*ast.CallExpr)
	if call != nil && call.Fun != s {
		call = nil
	}
	switch s.Sel.Name {
	case "HasSynced", "LastSyncResourceVersion":
		return
	case "AddEventHandler", "AddEventHandlerWithResyncPeriod":
		if call == nil || len(call.Args) < 1 {
			r.refuse(s, "%s as a method value: call it", s.Sel.Name)
			return
		}
		opts := &ast.CompositeLit{Type: r.pkgSel(informerPkg, "informer", "HandlerOptions")}
		if s.Sel.Name == "AddEventHandlerWithResyncPeriod" {
			opts.Elts = []ast.Expr{&ast.KeyValueExpr{Key: ast.NewIdent("ResyncPeriod"), Value: call.Args[1]}}
		}
		fun := r.pkgSel(clientgoPkg, "clientgo", "AddHandler")
		fun.X.(*ast.Ident).NamePos = call.Pos() // keeps the comments above the statement above it
		r.repl[call] = &ast.CallExpr{Fun: fun, Args: []ast.Expr{inf, call.Args[0], opts}, Rparen: call.Rparen}
		r.changed(call, "Informer().%s(h) -> clientgo.AddHandler(Informer(), h, opts)", s.Sel.Name)
	case "RemoveEventHandler":
		r.repl[s.Sel] = ast.NewIdent("RemoveHandler")
		r.changed(s, "Informer().RemoveEventHandler -> RemoveHandler")
	case "GetIndexer", "GetStore":
		// X.Informer().GetIndexer().Add(obj) -> X.Informer().Seed(obj)
		var add *ast.CallExpr
		if call != nil {
			if as, ok := r.parents[call].(*ast.SelectorExpr); ok && as.Sel.Name == "Add" {
				if c, ok := r.parents[as].(*ast.CallExpr); ok && c.Fun == as && len(c.Args) == 1 {
					add = c
				}
			}
		}
		if add == nil {
			r.refuse(s.Sel, "Informer().%s() other than .Add(obj) in a test: informer-gen's cache is Informer().Indexer(), a typed store.Indexer[T]; rewrite by hand", s.Sel.Name)
			return
		}
		r.repl[add] = &ast.CallExpr{Fun: sel(inf, "Seed"), Args: add.Args, Rparen: add.Rparen}
		r.changed(add, "Informer().%s().Add(obj) -> Informer().Seed(obj)", s.Sel.Name)
	case "Run":
		if call == nil || len(call.Args) != 1 {
			r.refuse(s, "Informer().Run as a method value")
			return
		}
		ctx := r.ctxOfDone(call.Args[0])
		if ctx == nil {
			r.refuse(call.Args[0], "Informer().Run takes a context.Context in informer-gen: pass the context whose Done() this channel is")
			return
		}
		r.repl[call.Args[0]] = ctx
		r.changed(call, "Informer().Run(ctx.Done()) -> Run(ctx)")
	default:
		r.refuse(s.Sel, "Informer().%s: no rewrite to informer-gen's *informer.Informer[T] (see docs/migrating.md)", s.Sel.Name)
	}
}

// typeRef rewrites references to the upstream factory interface type into
// pointers to informer-gen's struct.
func (r *rewriter) typeRef(s *ast.SelectorExpr) {
	tn, ok := r.info.Uses[s.Sel].(*types.TypeName)
	if !ok || !r.objFrom(tn, false) {
		return
	}
	switch tn.Name() {
	case "SharedInformerFactory":
		if !r.objFrom(tn, true) {
			return
		}
		switch p := r.parents[s].(type) {
		case *ast.CallExpr:
			if p.Fun == s {
				r.refuse(s, "conversion to SharedInformerFactory: informer-gen's is a struct (*SharedInformerFactory); rewrite by hand")
				return
			}
		case *ast.StarExpr:
			r.refuse(s, "pointer to the SharedInformerFactory interface: rewrite by hand")
			return
		case *ast.TypeAssertExpr:
			r.refuse(s, "type assertion to SharedInformerFactory: rewrite by hand")
			return
		}
		r.repl[s] = &ast.StarExpr{X: s}
		r.changed(s, "SharedInformerFactory -> *SharedInformerFactory")
	case "GenericInformer", "SharedInformerOption":
		r.refuse(s, "%s: no informer-gen counterpart the migration can write (factory.Generic, factory.Options)", tn.Name())
	}
}

// apply performs the replacements and rewrites the imports.
func (r *rewriter) apply() {
	used := map[string]bool{}
	for _, imp := range r.file.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		used[path] = astutil.UsesImport(r.file, path)
	}
	if len(r.repl) > 0 {
		astutil.Apply(r.file, func(c *astutil.Cursor) bool {
			if n, ok := r.repl[c.Node()]; ok {
				delete(r.repl, c.Node())
				c.Replace(n)
			}
			return true
		}, nil)
	}
	for _, imp := range r.file.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		from, rest, ok := r.upstream(path)
		if !ok {
			continue
		}
		to := from
		if r.out != "" {
			to = r.out
		}
		var newPath string
		line := r.fset.Position(imp.Pos()).Line
		if tail, ok := strings.CutPrefix(rest, externalversions); ok {
			newPath = to + "/informers" + tail
			if tail == "" && imp.Name == nil {
				// The package was named externalversions; ours is informers.
				imp.Name = &ast.Ident{Name: "externalversions", NamePos: imp.Path.Pos()}
			}
		} else {
			newPath = to + rest
		}
		if newPath != path {
			imp.Path.Value = strconv.Quote(newPath)
			r.changes = append(r.changes, change{line: line, what: fmt.Sprintf("import %q -> %q", path, newPath)})
		}
	}
	// Imports only a replaced argument used (time in time.Duration(0)).
	for _, imp := range slices.Clone(r.file.Imports) {
		path, _ := strconv.Unquote(imp.Path.Value)
		if used[path] && !astutil.UsesImport(r.file, path) {
			name := ""
			if imp.Name != nil {
				name = imp.Name.Name
			}
			astutil.DeleteNamedImport(r.fset, r.file, name, path)
			r.changes = append(r.changes, change{line: r.fset.Position(imp.Pos()).Line, what: fmt.Sprintf("import %q removed (no longer used)", path)})
		}
	}
	for _, path := range slices.Sorted(maps.Keys(r.imports)) {
		name := r.imports[path]
		if astutil.UsesImport(r.file, path) && slices.ContainsFunc(r.file.Imports, func(s *ast.ImportSpec) bool { return s.Path.Value == strconv.Quote(path) }) {
			continue
		}
		base := path[strings.LastIndex(path, "/")+1:]
		if name == base {
			astutil.AddImport(r.fset, r.file, path)
		} else {
			astutil.AddNamedImport(r.fset, r.file, name, path)
		}
	}
}
