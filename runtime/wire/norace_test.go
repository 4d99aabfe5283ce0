//go:build !race

package wire

// pbRaceEnabled: the race detector is on.
const pbRaceEnabled = false
