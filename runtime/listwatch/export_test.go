package listwatch

// For the external tests: NewRESTClient's config and defaults.
var ConfigFor = configFor

const (
	DefaultQPS   = defaultQPS
	DefaultBurst = defaultBurst
)
