// Package v1 gives informer-gen the markers the vendored package lacks.
//
// +groupName=widgets.example.com
package v1
