package generator

import (
	"cmp"
	"fmt"
	"go/token"
	"go/types"
	"reflect"
	"strings"
)

// metav1Path is the package of metav1.ObjectMeta.
const metav1Path = "k8s.io/apimachinery/pkg/apis/meta/v1"

// metaStep is one field on the way from a type to its metav1.ObjectMeta:
// field index of st.
type metaStep struct {
	st    *types.Struct
	index int
}

func (s metaStep) field() *types.Var { return s.st.Field(s.index) }

// metaPath is where a type's metav1.ObjectMeta is: the last step is the
// ObjectMeta field, the steps before it the embedded structs Go promotes it
// through (none when the type embeds it itself).
type metaPath struct {
	steps []metaStep
	// also is a second ObjectMeta at the same depth, which makes Go
	// promote neither.
	also []metaStep
}

// findObjectMeta looks for a field of type metav1.ObjectMeta or
// *metav1.ObjectMeta in st and, as Go promotes fields, in the structs st
// embeds, shallowest first.
func findObjectMeta(st *types.Struct) metaPath {
	type level struct {
		st     *types.Struct
		prefix []metaStep
	}
	queue := []level{{st: st}}
	seen := map[*types.Struct]bool{st: true}
	for len(queue) > 0 {
		var found metaPath
		var next []level
		for _, lv := range queue {
			for i := range lv.st.NumFields() {
				f := lv.st.Field(i)
				steps := append(lv.prefix[:len(lv.prefix):len(lv.prefix)], metaStep{lv.st, i})
				t := f.Type()
				if p, ok := t.(*types.Pointer); ok {
					t = p.Elem()
				}
				if isObjectMeta(t) {
					if found.steps == nil {
						found.steps = steps
					} else if found.also == nil {
						found.also = steps
					}
					continue
				}
				if est, ok := t.Underlying().(*types.Struct); ok && f.Embedded() && !seen[est] {
					seen[est] = true
					next = append(next, level{est, steps})
				}
			}
		}
		if found.steps != nil {
			return found
		}
		queue = next
	}
	return metaPath{}
}

func isObjectMeta(t types.Type) bool {
	n, ok := t.(*types.Named)
	return ok && n.Obj().Name() == "ObjectMeta" && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == metav1Path
}

// embeddedPath names the embedded structs of steps before the last
// ("Header", "Outer.Header"); "" when there are none.
func embeddedPath(steps []metaStep) string {
	var names []string
	for _, s := range steps[:len(steps)-1] {
		names = append(names, s.field().Name())
	}
	return strings.Join(names, ".")
}

// noJSONTags reports whether no field of st has a json tag.
func noJSONTags(st *types.Struct) bool {
	for i := range st.NumFields() {
		if _, ok := reflect.StructTag(st.Tag(i)).Lookup("json"); ok {
			return false
		}
	}
	return true
}

// through is embeddedPath for messages: " (through Header)".
func through(steps []metaStep) string {
	if p := embeddedPath(steps); p != "" {
		return " (through " + p + ")"
	}
	return ""
}

// checkObjectMeta checks that st has metav1.ObjectMeta by value under the
// JSON name "metadata", embedded directly or through embedded structs that
// encoding/json inlines (untagged or json:",inline", by value), as Go
// promotes it: anything else compiles and decodes every object with an empty
// name and namespace, or does not satisfy metav1.Object.
func checkObjectMeta(st *types.Struct, name string, pos token.Position, posOf func(token.Pos) token.Position) Diagnostics {
	const hint = "embed metav1.ObjectMeta `json:\"metadata,omitempty\"`"
	mp := findObjectMeta(st)
	if len(mp.steps) == 0 {
		return Diagnostics{{Pos: pos, Message: fmt.Sprintf("type %s has no metav1.ObjectMeta", name), Hint: hint}}
	}
	if mp.also != nil {
		return Diagnostics{{Pos: pos,
			Message: fmt.Sprintf("type %s has metav1.ObjectMeta twice at the same depth, through %s and through %s: Go promotes neither, so it is no metav1.Object", name, cmp.Or(embeddedPath(mp.steps), name), cmp.Or(embeddedPath(mp.also), name)),
			Hint:    "keep one ObjectMeta"}}
	}
	for _, s := range mp.steps[:len(mp.steps)-1] {
		f := s.field()
		fpos := posOf(f.Pos())
		if _, ptr := f.Type().(*types.Pointer); ptr {
			return Diagnostics{{Pos: fpos,
				Message: fmt.Sprintf("type %s embeds *%s, which holds its metav1.ObjectMeta: the methods of metav1.Object panic while the pointer is nil", name, f.Name()),
				Hint:    "embed " + f.Name() + " by value"}}
		}
		if tag, hasTag := reflect.StructTag(s.st.Tag(s.index)).Lookup("json"); hasTag {
			if jsonName, _, _ := strings.Cut(tag, ","); jsonName != "" {
				return Diagnostics{{Pos: fpos,
					Message: fmt.Sprintf("type %s embeds %s, which holds its metav1.ObjectMeta, as json %q: the server sends \"metadata\" at the top of the object, so every decoded %s has an empty name and namespace", name, f.Name(), jsonName, name),
					Hint:    "embed " + f.Name() + " `json:\",inline\"`"}}
			}
		}
	}
	last := mp.steps[len(mp.steps)-1]
	f := last.field()
	fpos := posOf(f.Pos())
	via := through(mp.steps)
	_, ptr := f.Type().(*types.Pointer)
	switch {
	case !f.Embedded():
		return Diagnostics{{Pos: fpos,
			Message: fmt.Sprintf("type %s has a field %s of type metav1.ObjectMeta%s instead of embedding it: it is no metav1.Object", name, f.Name(), via),
			Hint:    hint}}
	case ptr:
		return Diagnostics{{Pos: fpos,
			Message: fmt.Sprintf("type %s embeds *metav1.ObjectMeta%s: embed metav1.ObjectMeta, not a pointer to it", name, via),
			Hint:    hint}}
	}
	tag, hasTag := reflect.StructTag(last.st.Tag(last.index)).Lookup("json")
	jsonName, _, _ := strings.Cut(tag, ",")
	switch {
	case !hasTag && len(mp.steps) == 1 && noJSONTags(st):
		// k8s.io/kube-aggregator's apiregistration, k8s.io/kubernetes'
		// pkg/apis/...: the hub type that conversions go through.
		return Diagnostics{{Pos: fpos,
			Message: fmt.Sprintf("type %s has no json tags: it is an internal API type (upstream's unversioned hub, converted to and from the versioned ones), which no server serves", name),
			Hint:    "generate from the versioned packages beside it (…/v1, …/v1beta1), not a pattern that takes this one in"}}
	case !hasTag || jsonName == "":
		what := "without a json tag"
		if hasTag {
			what = fmt.Sprintf("with json:%q", tag)
		}
		return Diagnostics{{Pos: fpos,
			Message: fmt.Sprintf("type %s embeds metav1.ObjectMeta%s %s: encoding/json inlines it, so every decoded %s has an empty name and namespace", name, via, what, name),
			Hint:    hint}}
	case jsonName != "metadata":
		return Diagnostics{{Pos: fpos,
			Message: fmt.Sprintf("type %s embeds metav1.ObjectMeta%s as json %q: the server sends it as \"metadata\", so every decoded %s has an empty name and namespace", name, via, jsonName, name),
			Hint:    hint}}
	}
	return nil
}
