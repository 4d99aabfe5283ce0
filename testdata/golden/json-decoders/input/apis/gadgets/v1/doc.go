// +k8s:deepcopy-gen=package
// +groupName=gadgets.example.com

// Package v1 is an API whose types take every branch of the JSON decoder
// planner (generator/decode): fast paths, method types, recursion, and
// structs it leaves to the default decoder.
package v1
