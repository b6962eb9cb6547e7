package main

import (
	"os"
	"runtime/debug"
)

// paceGC sets the collector's pace for a command: a collection when the heap has grown percent %
// since the last one, and a soft limit of limit bytes, near which it collects sooner. The
// environment wins over each: $GOGC over the first, $GOMEMLIMIT over the second. It returns
// what puts back the pace it found (for a command run in a test's process).
func paceGC(percent int, limit int64) (restore func()) {
	oldPercent, oldLimit := -2, int64(-1)
	if os.Getenv("GOGC") == "" {
		oldPercent = debug.SetGCPercent(percent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		oldLimit = debug.SetMemoryLimit(limit)
	}
	return func() {
		if oldPercent != -2 {
			debug.SetGCPercent(oldPercent)
		}
		if oldLimit >= 0 {
			debug.SetMemoryLimit(oldLimit)
		}
	}
}
