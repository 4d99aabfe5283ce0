// Package unversioned holds the internal representation of widgets, which the
// versioned packages convert to and from: no +groupName, no group version,
// nothing registered.
// +kubebuilder:object:generate=true
package unversioned
