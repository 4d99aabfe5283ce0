package listwatch

// Pointers returns pointers to the elements of items, in order, without
// copying them: list.Items stays the backing array. It is how a hand-written
// Items func (of Options, Funcs or factory.Type) turns a FooList's []Foo into
// []*Foo. nil stays nil.
//
// Generated code does not call it: a package that instantiates Pointers for
// Foo compiles a wrapper for every method of *Foo, so informer-gen writes the
// loop out instead (docs/generated-code.md).
func Pointers[E any](items []E) []*E {
	if items == nil {
		return nil
	}
	out := make([]*E, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}
