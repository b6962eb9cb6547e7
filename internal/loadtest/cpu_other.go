//go:build !unix

package loadtest

import "time"

// processCPU is not measured where getrusage is not available: the report then shows 0.
func processCPU() time.Duration { return 0 }
