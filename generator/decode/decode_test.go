package decode

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"testing"
)

const src = `package api

type Obj struct {
	Embedded ` + "`json:\",inline\"`" + `
	S     string            ` + "`json:\"s\"`" + `
	N     int32             ` + "`json:\"n,omitempty\"`" + `
	P     *Plain            ` + "`json:\"p\"`" + `
	L     []Plain           ` + "`json:\"l\"`" + `
	M     map[string]string ` + "`json:\"m\"`" + `
	MP    map[Key]*Plain    ` + "`json:\"mp\"`" + `
	B     []byte            ` + "`json:\"b\"`" + `
	A     [2]int            ` + "`json:\"a\"`" + `
	I     any               ` + "`json:\"i\"`" + `
	Meth  WithMethod        ` + "`json:\"meth\"`" + `
	Str   StringTag         ` + "`json:\"str\"`" + `
	Conf  Conflict          ` + "`json:\"conf\"`" + `
	Skip  string            ` + "`json:\"-\"`" + `
	NoTag string
	u     string
	H     hidden            ` + "`json:\"h\"`" + `
}

type Embedded struct {
	Kind string ` + "`json:\"kind\"`" + `
}

type Key string

type Plain struct {
	X float64 ` + "`json:\"x\"`" + `
	Self *Plain ` + "`json:\"self\"`" + `
}

type WithMethod struct{ X string }

func (*WithMethod) UnmarshalJSON([]byte) error { return nil }

type StringTag struct {
	N int ` + "`json:\"n,string\"`" + `
}

type Conflict struct {
	Embedded
	Kind string ` + "`json:\"kind\"`" + `
}

type hidden struct{ X string }
`

// TestPlan checks what the planner decodes itself and what it hands to the
// default decoder.
func TestPlan(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "api.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := (&types.Config{}).Check("example.com/api", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	obj := pkg.Scope().Lookup("Obj").Type().(*types.Named)
	file, roots := Plan([]*types.Named{obj}, func(path, name string) string { return name })
	if len(roots) != 1 || roots[0] != "jsonApiObj" {
		t.Fatalf("roots = %q", roots)
	}
	structs := map[string]*Struct{}
	for _, s := range file.Structs {
		structs[s.Func] = s
	}
	if _, ok := structs["jsonApiStringTag"]; ok {
		t.Error("a struct with a string tag option got a generated decoder")
	}
	if _, ok := structs["jsonApiConflict"]; ok {
		t.Error("a struct with two fields of one JSON name got a generated decoder")
	}
	if _, ok := structs["jsonApiPlain"]; !ok {
		t.Error("Plain has no generated decoder")
	}
	want := map[string][2]string{ // JSON name -> Go path, decode func
		"kind":  {"Embedded.Kind", "wire.DecodeString"},
		"s":     {"S", "wire.DecodeString"},
		"n":     {"N", "wire.DecodeNumber"},
		"p":     {"P", "jsonPtrApiPlain"},
		"l":     {"L", "jsonSliceApiPlain"},
		"m":     {"M", "(*wire.JSONDecoder).DecodeStringMap"},
		"mp":    {"MP", "jsonMapApiKeyToPtrApiPlain"},
		"b":     {"B", "(*wire.JSONDecoder).DecodeDefault"},
		"a":     {"A", "(*wire.JSONDecoder).DecodeDefault"},
		"i":     {"I", "(*wire.JSONDecoder).DecodeDefault"},
		"meth":  {"Meth", "wire.DecodeMethod"},
		"str":   {"Str", "(*wire.JSONDecoder).DecodeDefault"},
		"conf":  {"Conf", "(*wire.JSONDecoder).DecodeDefault"},
		"NoTag": {"NoTag", "wire.DecodeString"},
		"h":     {"H", "(*wire.JSONDecoder).DecodeDefault"}, // an unexported type: not nameable here
	}
	got := map[string][2]string{}
	for _, fl := range structs["jsonApiObj"].Fields {
		got[fl.Name] = [2]string{fl.Path, fl.Func}
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("field %q: got %q, want %q", name, got[name], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("fields %v, want %v", got, want)
	}
	// Members left to the default decoder are called without DecodeField
	// (and need no seen slot); a struct of only those declares no seen array.
	for _, fl := range structs["jsonApiObj"].Fields {
		if fl.Default() != (fl.Func == "(*wire.JSONDecoder).DecodeDefault") {
			t.Errorf("field %q (%s): Default() = %v", fl.Name, fl.Func, fl.Default())
		}
	}
	if !structs["jsonApiObj"].Seen() {
		t.Error("Obj, with members decoded by DecodeField, has no seen array")
	}
	if (&Struct{Fields: []*Field{{Func: "(*wire.JSONDecoder).DecodeDefault", wire: "wire."}}}).Seen() {
		t.Error("a struct of default-decoded members only has a seen array (declared and not used)")
	}
	// A root with its own UnmarshalJSON (Zalando's Postgresql) gets no
	// decoder: wire.DecodeMethod is generic, and the codec calls the method
	// itself.
	meth := pkg.Scope().Lookup("WithMethod").Type().(*types.Named)
	if _, roots := Plan([]*types.Named{meth, obj}, func(path, name string) string { return name }); len(roots) != 2 || roots[0] != "" || roots[1] != "jsonApiObj" {
		t.Errorf("roots of WithMethod, Obj = %q, want \"\" and jsonApiObj", roots)
	}
}
