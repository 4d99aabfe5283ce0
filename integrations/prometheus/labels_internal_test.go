package prometheus

import "testing"

func TestInformerLabelValues(t *testing.T) {
	for name, want := range map[string][4]string{
		"foos.v1alpha1.samplecontroller.example.com": {"foos.v1alpha1.samplecontroller.example.com", "samplecontroller.example.com", "v1alpha1", "foos"},
		"pods.v1":                    {"pods.v1", "", "v1", "pods"},
		"pods.v1/PodSummary":         {"pods.v1/PodSummary", "", "v1", "pods"},
		"deployments.v1.apps/Slim":   {"deployments.v1.apps/Slim", "apps", "v1", "deployments"},
		"widgets.v2beta3.example.io": {"widgets.v2beta3.example.io", "example.io", "v2beta3", "widgets"},
		"my-informer":                {"my-informer", "", "", ""},
		"a.b.c":                      {"a.b.c", "", "", ""},
		"a.1.c":                      {"a.1.c", "", "", ""},
		"a.v1gamma1":                 {"a.v1gamma1", "", "", ""},
		"a.valpha1":                  {"a.valpha1", "", "", ""},
		"a.v1alpha":                  {"a.v1alpha", "", "", ""},
		".v1":                        {".v1", "", "", ""},
		"":                           {"", "", "", ""},
	} {
		got := informerLabelValues(name)
		if [4]string(got) != want {
			t.Errorf("informerLabelValues(%q) = %q, want %q", name, got, want)
		}
	}
}
