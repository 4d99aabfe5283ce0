package generator

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
)

// Registration: the group a package declares and the variables and funcs
// generated code refers to (SchemeGroupVersion or GroupVersion, AddToScheme).

// packagePos is the package clause of doc.go, or of the first file.
func packagePos(pkg *packages.Package, posOf func(token.Pos) token.Position) token.Position {
	var best token.Position
	for _, f := range pkg.Syntax {
		p := posOf(f.Package)
		if strings.HasSuffix(p.Filename, "doc.go") {
			return p
		}
		if best.Filename == "" || p.Filename < best.Filename {
			best = p
		}
	}
	return best
}

func posString(p token.Position) string { return fmt.Sprintf("%s:%d:%d", p.Filename, p.Line, p.Column) }

// groupDecl is the group a package declares in its GroupVersion variable.
type groupDecl struct {
	group   string
	varName string         // SchemeGroupVersion or GroupVersion
	pos     token.Position // of the Group value
	// version is the Version value when it is a constant expression, ""
	// otherwise; versionPos is its position.
	version    string
	versionPos token.Position
}

// declaredGroup reads the Group (and the Version) of "var
// SchemeGroupVersion = schema.GroupVersion{Group: ..., Version: ...}"
// (upstream) or of kubebuilder's GroupVersion, when the Group is a constant
// expression.
func declaredGroup(pkg *packages.Package, posOf func(token.Pos) token.Position) (groupDecl, bool) {
	if pkg.TypesInfo == nil {
		return groupDecl{}, false
	}
	found := map[string]groupDecl{}
	for _, f := range pkg.Syntax {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if (n.Name != "SchemeGroupVersion" && n.Name != "GroupVersion") || i >= len(vs.Values) {
						continue
					}
					lit, ok := ast.Unparen(vs.Values[i]).(*ast.CompositeLit)
					if !ok {
						continue
					}
					var expr, vexpr ast.Expr
					for j, e := range lit.Elts {
						if kv, ok := e.(*ast.KeyValueExpr); ok {
							if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Group" {
								expr = kv.Value
							} else if ok && k.Name == "Version" {
								vexpr = kv.Value
							}
						} else if j == 0 {
							expr = e
						} else if j == 1 {
							vexpr = e
						}
					}
					group, ok := constString(pkg.TypesInfo, expr)
					if !ok {
						continue
					}
					d := groupDecl{group: group, varName: n.Name, pos: posOf(expr.Pos())}
					if version, ok := constString(pkg.TypesInfo, vexpr); ok {
						d.version, d.versionPos = version, posOf(vexpr.Pos())
					}
					found[n.Name] = d
				}
			}
		}
	}
	if d, ok := found["SchemeGroupVersion"]; ok {
		return d, true
	}
	d, ok := found["GroupVersion"]
	return d, ok
}

// constString is the value of expr when it is a constant string expression.
func constString(info *types.Info, expr ast.Expr) (string, bool) {
	if expr == nil {
		return "", false
	}
	tv, ok := info.Types[expr]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
		return "", false
	}
	return constant.StringVal(tv.Value), true
}

// metav1Qualifier names packages in messages as API code imports them:
// metav1 for apimachinery's meta/v1.
func metav1Qualifier(p *types.Package) string {
	if p.Path() == metav1Path {
		return "metav1"
	}
	return p.Name()
}

// isGroupVersionVar reports whether scope declares name as a variable of
// type schema.GroupVersion, which generated code calls WithResource on.
// register-gen's GroupVersion is a metav1.GroupVersion, which has no such
// method: only its SchemeGroupVersion serves.
func isGroupVersionVar(scope *types.Scope, name string) bool {
	v, ok := scope.Lookup(name).(*types.Var)
	if !ok {
		return false
	}
	n, ok := v.Type().(*types.Named)
	return ok && n.Obj().Name() == "GroupVersion" && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == schemaPath
}

// isAddToScheme accepts a func or func-typed var with one param and an error
// result, as SchemeBuilder.AddToScheme is.
func isAddToScheme(obj types.Object) bool {
	if obj == nil {
		return false
	}
	sig, ok := obj.Type().Underlying().(*types.Signature)
	if !ok || sig.Params().Len() != 1 || sig.Results().Len() != 1 {
		return false
	}
	return sig.Results().At(0).Type().String() == "error"
}

// groupVersionVar is the variable generated code takes the group version
// from: SchemeGroupVersion (upstream) or GroupVersion (kubebuilder), when it
// is a schema.GroupVersion; "" when there is neither.
func groupVersionVar(scope *types.Scope) string {
	switch {
	case isGroupVersionVar(scope, "SchemeGroupVersion"):
		return "SchemeGroupVersion"
	case isGroupVersionVar(scope, "GroupVersion"):
		return "GroupVersion"
	}
	return ""
}

// checkRegistration checks that a package with selected kinds declares what
// the generated code refers to: its group version (v.GVVar) and AddToScheme.
func checkRegistration(pkg *packages.Package, v *Version, pkgPos token.Position, posOf func(token.Pos) token.Position) Diagnostics {
	var diags Diagnostics
	scope := pkg.Types.Scope()
	if gv, ok := scope.Lookup("GroupVersion").(*types.Var); ok && v.GVVar == "" {
		diags = append(diags, Diagnostic{Pos: posOf(gv.Pos()),
			Message: fmt.Sprintf("package %s declares GroupVersion of type %s, not schema.GroupVersion, and no SchemeGroupVersion", pkg.Types.Name(), types.TypeString(gv.Type(), metav1Qualifier)),
			Hint:    `declare var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "` + v.Name + `"}`})
	} else if v.GVVar == "" {
		diags = append(diags, Diagnostic{Pos: pkgPos,
			Message: fmt.Sprintf("package %s declares neither SchemeGroupVersion nor GroupVersion", pkg.Types.Name()),
			Hint:    `declare var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "` + v.Name + `"}, or name the group with +groupName in the package comment and the informers register the kinds themselves`})
	}
	if !isAddToScheme(scope.Lookup("AddToScheme")) {
		diags = append(diags, Diagnostic{Pos: pkgPos,
			Message: fmt.Sprintf("package %s declares no AddToScheme func(*runtime.Scheme) error", pkg.Types.Name()),
			Hint:    "declare var AddToScheme = SchemeBuilder.AddToScheme, or name the group with +groupName in the package comment and the informers register the kinds themselves"})
	}
	return diags
}

// registrations are the types a package's function bodies register in a
// scheme, read from its syntax: the arguments &Foo{}, Foo{} or new(Foo) of
// calls to AddKnownTypes (upstream's addKnownTypes, or an init() adding to
// client-go's scheme.Scheme), AddKnownTypeWithName, and Register
// (controller-runtime's SchemeBuilder.Register in kubebuilder's init()).
// The zero value (nothing found) means the package's registrations are not
// visible, not that it registers nothing.
type registrations struct {
	types map[string]bool
	// kinds maps a type AddKnownTypeWithName registers under a kind other
	// than its name to that kind (Zalando's Postgresql is kind
	// "postgresql"), when the call names the kind with a string literal.
	kinds map[string]string
	// versions are the Version string literals of the
	// schema.GroupVersion{...} literals passed to AddKnownTypes.
	versions []string
}

// merge adds o's registrations to r.
func (r *registrations) merge(o registrations) {
	for t := range o.types {
		if r.types == nil {
			r.types = map[string]bool{}
		}
		r.types[t] = true
	}
	for t, k := range o.kinds {
		if r.kinds == nil {
			r.kinds = map[string]string{}
		}
		r.kinds[t] = k
	}
	for _, v := range o.versions {
		if !slices.Contains(r.versions, v) {
			r.versions = append(r.versions, v)
		}
	}
}

// visible reports whether any registration was found.
func (r registrations) visible() bool { return len(r.types) > 0 }

// scanRegistrations reads the registrations of f's function bodies.
func scanRegistrations(f *ast.File) registrations {
	var r registrations
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			switch sel.Sel.Name {
			case "AddKnownTypes", "AddKnownTypeWithName":
			case "Register":
				// Only a scheme builder's (SchemeBuilder.Register,
				// localSchemeBuilder.Register): other Register calls
				// (webhooks, metrics) would make registrations look
				// visible and drop the kinds they do not name.
				if !strings.Contains(strings.ToLower(types.ExprString(sel.X)), "scheme") {
					return true
				}
			default:
				return true
			}
			if sel.Sel.Name == "AddKnownTypeWithName" && len(call.Args) == 2 {
				name, kind := registeredTypeName(call.Args[1]), gvkLitKind(call.Args[0])
				if name != "" && kind != "" && kind != name {
					r.merge(registrations{kinds: map[string]string{name: kind}})
				}
			}
			for i, arg := range call.Args {
				if name := registeredTypeName(arg); name != "" {
					r.merge(registrations{types: map[string]bool{name: true}})
				} else if i == 0 && sel.Sel.Name == "AddKnownTypes" {
					if v := groupVersionLitVersion(arg); v != "" {
						r.merge(registrations{versions: []string{v}})
					}
				}
			}
			return true
		})
	}
	return r
}

// registeredTypeName is Foo for &Foo{}, Foo{} and new(Foo); "" otherwise.
func registeredTypeName(e ast.Expr) string {
	e = ast.Unparen(e)
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = ast.Unparen(u.X)
	}
	switch x := e.(type) {
	case *ast.CompositeLit:
		if id, ok := x.Type.(*ast.Ident); ok {
			return id.Name
		}
	case *ast.CallExpr:
		if fn, ok := x.Fun.(*ast.Ident); ok && fn.Name == "new" && len(x.Args) == 1 {
			if id, ok := x.Args[0].(*ast.Ident); ok {
				return id.Name
			}
		}
	}
	return ""
}

// gvkLitKind is "postgresql" for gv.WithKind("postgresql") and for
// schema.GroupVersionKind{..., Kind: "postgresql"}; "" otherwise.
func gvkLitKind(e ast.Expr) string {
	var lit ast.Expr
	switch x := ast.Unparen(e).(type) {
	case *ast.CallExpr:
		if sel, ok := x.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "WithKind" && len(x.Args) == 1 {
			lit = x.Args[0]
		}
	case *ast.CompositeLit:
		for _, el := range x.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Kind" {
					lit = kv.Value
				}
			}
		}
	}
	if b, ok := ast.Unparen(lit).(*ast.BasicLit); ok && b.Kind == token.STRING {
		if v, err := strconv.Unquote(b.Value); err == nil {
			return v
		}
	}
	return ""
}

// groupVersionLitVersion is "v1" for schema.GroupVersion{..., Version: "v1"}.
func groupVersionLitVersion(e ast.Expr) string {
	lit, ok := ast.Unparen(e).(*ast.CompositeLit)
	if !ok {
		return ""
	}
	for _, el := range lit.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Version" {
			if b, ok := kv.Value.(*ast.BasicLit); ok && b.Kind == token.STRING {
				if v, err := strconv.Unquote(b.Value); err == nil {
					return v
				}
			}
		}
	}
	return ""
}

// ownRegistration reports whether the generated code registers the kinds of
// mp itself: the package lacks a schema.GroupVersion variable or AddToScheme
// (it registers its types in an init(), into client-go's scheme.Scheme, as
// karpenter's do; or it is a user's package of aliases), and +groupName
// names its group, so nothing is guessed.
func ownRegistration(mp markedPackage) bool {
	scope := mp.pkg.Types.Scope()
	complete := groupVersionVar(scope) != "" && isAddToScheme(scope.Lookup("AddToScheme"))
	return !complete && mp.group.name != nil
}
