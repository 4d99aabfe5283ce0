package fleet

import "net/http"

// HTTPTransport returns the *http.Transport under the HTTP client the fleet
// built for c (unwrapping client-go's round trippers), or nil.
func HTTPTransport[F Factory](c *Cluster[F]) *http.Transport {
	if c.httpClient == nil {
		return nil
	}
	return httpTransport(c.httpClient.Transport)
}
