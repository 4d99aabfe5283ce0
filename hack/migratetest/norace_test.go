//go:build !race

package migratetest

// raceEnabled: see race_test.go.
const raceEnabled = false
