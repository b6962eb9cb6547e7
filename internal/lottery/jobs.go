package lottery

import "time"

// Job is an emission being created from the back office, kept in the store so that every server
// of the game shows it, whichever started it.
type Job struct {
	ID       int64
	Emission string
	Price    int64
	Blocks   int
	Operator string
	Started  time.Time
	// Progress, in units built of Total.
	Done, Total int
	State       string // JobRunning, JobDone or JobFailed
	Error       string
	Elapsed     time.Duration // until done or failed
	// Beat is the last time its server said it was still at work: a running job whose server has
	// not said so for a while has died with it.
	Beat time.Time
}

// The states of a job.
const (
	JobRunning = "running"
	JobDone    = "done"
	JobFailed  = "failed"
)
