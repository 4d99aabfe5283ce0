package v1alpha1

// Notes is hand-written and survives every run.
const Notes = "hand-written"
