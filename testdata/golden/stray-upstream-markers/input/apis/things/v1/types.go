/*
Copyright The informer-gen Authors.

Licensed under the Apache License, Version 2.0.
*/

package v1

// +genclient
