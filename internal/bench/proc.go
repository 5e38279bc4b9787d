// Package bench is the benchmark suite of issue 8: it generates libraries of
// 1,000 and 10,000 incidents (100,000 on request), starts the real server on
// them to time cold and warm loads and to load its HTTP endpoints over
// loopback, measures in-process search and classify latency, runs the same
// queries on an SQLite FTS5 baseline, and writes docs/performance.md. The
// program is internal/bench/cmd/bench; scripts/bench.sh (make bench) runs it.
package bench

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Mem is what /proc/PID/status says about a process's memory, in bytes.
type Mem struct {
	HWM int64 `json:"hwm"` // peak resident set size
	RSS int64 `json:"rss"` // resident set size now
}

// ReadMem reads the memory of process pid; 0 means this process.
func ReadMem(pid int) (Mem, error) {
	name := "/proc/self/status"
	if pid > 0 {
		name = fmt.Sprintf("/proc/%d/status", pid)
	}
	f, err := os.Open(name)
	if err != nil {
		return Mem{}, err
	}
	defer f.Close()
	var m Mem
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		fields := strings.Fields(v)
		if len(fields) == 0 {
			continue
		}
		n, _ := strconv.ParseInt(fields[0], 10, 64)
		switch k {
		case "VmHWM":
			m.HWM = n << 10
		case "VmRSS":
			m.RSS = n << 10
		}
	}
	return m, sc.Err()
}

// CPUTime is the user plus system time this process has used.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// ProcCPUTime is the user plus system time of process pid, from
// /proc/PID/stat (in clock ticks of 1/100 s on Linux).
func ProcCPUTime(pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name may hold spaces; fields resume after its ")".
	s := string(data)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		s = s[i+1:]
	}
	f := strings.Fields(s)
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// LoadAvg is the 1-minute load average, to record how busy the machine was.
func LoadAvg() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}
