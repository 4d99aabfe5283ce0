//go:build race

package wire

// pbRaceEnabled: the race detector is on (heap measurements mean little,
// and cost ten times as much).
const pbRaceEnabled = true
