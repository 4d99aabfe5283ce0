// +k8s:deepcopy-gen=package
// +groupName=things.example.com

// Package things holds the hub types of things.example.com, which its
// versions convert through.
package things
