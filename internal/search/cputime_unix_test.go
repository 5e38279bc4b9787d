//go:build unix

package search

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used, user and system. The
// benchmarks report it besides wall time because a shared machine stretches
// wall time with other people's work.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
