// Package v1 stands for an API package in the module cache.
package v1
