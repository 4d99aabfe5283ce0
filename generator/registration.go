package generator

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
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
}

// declaredGroup reads the Group of "var SchemeGroupVersion =
// schema.GroupVersion{Group: ...}" (upstream) or of kubebuilder's
// GroupVersion, when it is a constant expression.
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
					var expr ast.Expr
					for j, e := range lit.Elts {
						if kv, ok := e.(*ast.KeyValueExpr); ok {
							if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Group" {
								expr = kv.Value
							}
						} else if j == 0 {
							expr = e
						}
					}
					if expr == nil {
						continue
					}
					tv, ok := pkg.TypesInfo.Types[expr]
					if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
						continue
					}
					found[n.Name] = groupDecl{group: constant.StringVal(tv.Value), varName: n.Name, pos: posOf(expr.Pos())}
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
			Hint:    `declare var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "` + v.Name + `"}`})
	}
	if !isAddToScheme(scope.Lookup("AddToScheme")) {
		diags = append(diags, Diagnostic{Pos: pkgPos,
			Message: fmt.Sprintf("package %s declares no AddToScheme func(*runtime.Scheme) error", pkg.Types.Name()),
			Hint:    "declare var AddToScheme = SchemeBuilder.AddToScheme"})
	}
	return diags
}
