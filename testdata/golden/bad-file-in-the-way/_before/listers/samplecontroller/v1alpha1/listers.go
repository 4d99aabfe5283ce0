package v1alpha1

// Hand-written, at the path of a generated file.
