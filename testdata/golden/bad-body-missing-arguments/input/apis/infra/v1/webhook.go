//go:build golden_broken

package v1

// builder stands in for a webhook builder whose constructor gained a
// parameter in a newer version of its library.
type builder struct{ name string }

func newBuilder(name string, obj *Gadget) builder { return builder{name: name} }

func (b builder) complete() error { return nil }

// SetupWebhook calls newBuilder as the older version took it.
func (g *Gadget) SetupWebhook() error {
	return newBuilder(g.Name).
		complete()
}

// SetupDefaults calls it with no argument at all.
func (g *Gadget) SetupDefaults() error {
	return newBuilder().complete()
}
