package v1alpha1

// FooListerExpansion allows custom methods to be added to FooLister.
type FooListerExpansion interface {
	ListActive() int
}

func (s *fooLister) ListActive() int { return 0 }
