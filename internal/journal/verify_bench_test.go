package journal

import (
	"bytes"
	"context"
	"syscall"
	"testing"
	"time"
)

// BenchmarkVerify measures Verify on a journal of every kind of entry, in entries a second.
//
//	go test ./internal/journal -run XXX -bench Verify -benchtime 3x
func BenchmarkVerify(b *testing.B) {
	const n = 200_000
	x := &exported{key: testKey(b, ""), store: newMemStore()}
	fill(x.store, n)
	step(b, NewLog(x.store, x.key), t0)
	cps := []Signed{{Name: "last", Note: x.store.checkpoints[n].Note}}
	file := x.file()
	b.SetBytes(int64(len(file)))
	cpu0 := cpuTime()
	for b.Loop() {
		rep, err := Verify(context.Background(), bytes.NewReader(file), x.key.VerifierKey, cps, nil)
		if err != nil || !rep.OK() || rep.Checkpoints != 1 {
			b.Fatal(err, rep.Problems)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
	// On a machine others share, the time of the CPU is the figure that does not depend on them.
	b.ReportMetric(float64(n)*float64(b.N)/(cpuTime()-cpu0).Seconds(), "entries/cpu-s")
}

// cpuTime is the time the process has run on a CPU, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
