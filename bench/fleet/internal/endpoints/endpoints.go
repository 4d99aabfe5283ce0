// Package endpoints is the file through which bench-fleet's serve command
// tells the measured processes how to reach each cluster.
package endpoints

import (
	"encoding/json"
	"os"

	"k8s.io/client-go/rest"
)

// Endpoint is how a benchmark process reaches one cluster: what the serve
// command writes to its endpoints file (mode 0600: it holds tokens).
type Endpoint struct {
	Name       string `json:"name"`
	Host       string `json:"host"`
	CAData     []byte `json:"caData"`
	ServerName string `json:"serverName,omitempty"`
	Token      string `json:"token"`
	Objects    int    `json:"objects"`
	// Direct is true for a cluster that is a real API server of its own,
	// false for one served through the proxy (a namespace of the backing
	// server).
	Direct bool `json:"direct"`
}

// Config is the endpoint as a rest.Config.
func (e Endpoint) Config() *rest.Config {
	return &rest.Config{
		Host:            e.Host,
		BearerToken:     e.Token,
		TLSClientConfig: rest.TLSClientConfig{CAData: e.CAData, ServerName: e.ServerName},
		QPS:             -1,
	}
}

// Endpoints is the serve command's output.
type Endpoints struct {
	// Clusters each hold Objects Foos.
	Clusters []Endpoint `json:"clusters"`
	// Empty clusters hold no Foo: for the fixed cost per cluster.
	Empty []Endpoint `json:"empty"`
	// Unreachable accepts TCP connections and never answers.
	Unreachable Endpoint `json:"unreachable"`
}

// Read reads an endpoints file.
func Read(path string) (*Endpoints, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var eps Endpoints
	return &eps, json.Unmarshal(b, &eps)
}
