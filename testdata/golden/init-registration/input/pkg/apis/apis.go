// Package apis holds the group of the node APIs.
package apis

// Group is the API group of every version.
const Group = "nodes.example.com"
