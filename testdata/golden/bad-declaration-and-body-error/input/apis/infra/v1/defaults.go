//go:build golden_broken

package v1

// Default fills in a new Gadget's labels. It calls SetLabels as if it took
// a key and a value, like code written for another API than the module's
// graph holds: the declarations compile, this body does not, and neither
// would the informers generated for the package, which import it.
func (g *Gadget) Default() {
	if g.Labels == nil {
		g.SetLabels("app", g.Name)
	}
}
