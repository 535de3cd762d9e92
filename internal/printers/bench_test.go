package printers

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user plus system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU runs the benchmark loop body b.N times and reports the CPU
// time per operation beside the wall time: on a shared machine the CPU
// time is the steadier figure (it includes the garbage collector's work
// and, for parallel conversions, every core's).
func reportCPU(b *testing.B, body func()) {
	b.Helper()
	b.ResetTimer()
	start := cpuTime()
	for i := 0; i < b.N; i++ {
		body()
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e6, "cpu-ms/op")
}
