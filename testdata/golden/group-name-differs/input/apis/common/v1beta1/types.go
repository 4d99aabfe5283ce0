package v1beta1

// Metric is shared by the kinds of other packages.
type Metric struct {
	Name string `json:"name"`
}
