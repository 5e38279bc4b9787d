package main

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/KimMachineGun/automemlimit/memlimit"
)

// cgroupRatio is the share of a container's memory limit given to the Go
// heap in auto mode. The rest is for what the Go limit does not count:
// SQLite's page cache (its own allocator), the mapped search index files
// and the binary itself, all of which the kernel charges to the container.
const cgroupRatio = 0.8

// minMemoryLimit refuses limits under which the collector would run without
// pause: with the shipped library the portal has about 31 MB allocated
// after it starts (measured), about this much.
const minMemoryLimit = 32 << 20

const memoryLimitUsage = "soft limit on the Go heap, so the collector works harder before the container's limit is reached: " +
	"auto (80% of the container's memory limit, cgroup v2 memory.max or v1 memory.limit_in_bytes; no limit outside a container), " +
	"off, or a size such as 256MiB, 1GiB, 512Mi or 300000000 (bytes). It does not count SQLite's cache, the search answers' cache, " +
	"the mapped index files or the binary, hence 80%. A lower limit costs CPU: the collector runs more often. GOMEMLIMIT, when set, wins"

// memoryLimit is the --memory-limit setting, parsed once with the flags.
type memoryLimit struct {
	mode  memoryMode
	bytes int64 // for memorySize
}

type memoryMode int

const (
	memoryAuto memoryMode = iota
	memoryOff
	memorySize
)

func (m memoryLimit) String() string {
	switch m.mode {
	case memoryOff:
		return "off"
	case memorySize:
		return formatBytes(m.bytes)
	}
	return "auto"
}

// errMemoryLimit is the kind of every refused --memory-limit value.
var errMemoryLimit = errors.New("want auto, off, or a size such as 256MiB, 1GiB or 300000000 (bytes)")

// binaryUnits are the suffixes of GOMEMLIMIT and of Kubernetes quantities,
// so a value copied from either works. Decimal ones (MB, M) are refused
// rather than guessed: Go reads 256MB as an error, Kubernetes as 256×10⁶.
var binaryUnits = map[string]int64{
	"": 1, "b": 1,
	"kib": 1 << 10, "ki": 1 << 10,
	"mib": 1 << 20, "mi": 1 << 20,
	"gib": 1 << 30, "gi": 1 << 30,
	"tib": 1 << 40, "ti": 1 << 40,
}

func parseMemoryLimit(s string) (memoryLimit, error) {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "", "auto":
		return memoryLimit{mode: memoryAuto}, nil
	case "off", "none":
		return memoryLimit{mode: memoryOff}, nil
	}
	if strings.HasPrefix(s, "-") {
		return memoryLimit{}, fmt.Errorf("%q is negative: %w", s, errMemoryLimit)
	}
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i < 0 {
		i = len(s)
	}
	num, unit := s[:i], strings.ToLower(strings.TrimSpace(s[i:]))
	mult, ok := binaryUnits[unit]
	if !ok {
		return memoryLimit{}, fmt.Errorf("%q: unknown unit %q: %w", s, strings.TrimSpace(s[i:]), errMemoryLimit)
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return memoryLimit{}, fmt.Errorf("%q: %w", s, errMemoryLimit)
	}
	b := f * float64(mult)
	if b >= math.MaxInt64 {
		return memoryLimit{}, fmt.Errorf("%q is too large: %w", s, errMemoryLimit)
	}
	if b < minMemoryLimit {
		return memoryLimit{}, fmt.Errorf("%q is below %s, where the collector would run all the time; use off for no limit: %w",
			s, formatBytes(minMemoryLimit), errMemoryLimit)
	}
	return memoryLimit{mode: memorySize, bytes: int64(b)}, nil
}

// formatBytes writes a size the way --memory-limit reads it.
func formatBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1fMiB", float64(n)/(1<<20))
	}
	return strconv.FormatInt(n, 10)
}

// memoryFlag registers --memory-limit with the same name and variable for
// every command that serves.
func memoryFlag(fl *flagSet, raw *string) {
	fl.str(raw, "memory-limit", "auto", memoryLimitUsage)
}

// parseMemoryFlag turns the flag's text into the setting, naming the flag
// and its variable in the error since either may have set it.
func parseMemoryFlag(raw string) (memoryLimit, error) {
	m, err := parseMemoryLimit(raw)
	if err != nil {
		return m, fmt.Errorf("--memory-limit (%s): %w", envName("memory-limit"), err)
	}
	return m, nil
}

// memoryInForce is the limit the process runs under and where it came from.
type memoryInForce struct {
	Bytes      int64  // 0: no limit
	Source     string // flag, cgroup, GOMEMLIMIT or none
	Cgroup     uint64 // the container's limit, when Source is cgroup
	GOMEMLIMIT string // the variable's text, when Source is GOMEMLIMIT
}

// applyMemoryLimit sets the Go runtime's soft memory limit for want and
// reports what is in force. GOMEMLIMIT, read by the runtime at start, wins
// over the flag. In auto mode the container's limit comes from cgroup (a
// parameter so tests can give one); no container limit means no limit, not
// the host's memory. An error means the container's limit could not be
// read: the process then runs with no limit, and the caller says so.
//
// It calls the cgroup provider itself rather than memlimit.Set, which also
// obeys its own AUTOMEMLIMIT variable: one source of truth for the log.
func applyMemoryLimit(want memoryLimit, getenv func(string) string, cgroup memlimit.Provider) (memoryInForce, error) {
	if v := getenv("GOMEMLIMIT"); v != "" {
		return inForce(debug.SetMemoryLimit(-1), "GOMEMLIMIT", memoryInForce{GOMEMLIMIT: v}), nil
	}
	switch want.mode {
	case memorySize:
		debug.SetMemoryLimit(want.bytes)
		return memoryInForce{Bytes: want.bytes, Source: "flag"}, nil
	case memoryOff:
		debug.SetMemoryLimit(math.MaxInt64)
		return memoryInForce{Source: "none"}, nil
	}
	n, err := cgroup()
	if err != nil || n == 0 || n >= math.MaxInt64 {
		debug.SetMemoryLimit(math.MaxInt64)
		if errors.Is(err, memlimit.ErrNoLimit) || errors.Is(err, memlimit.ErrNoCgroup) || errors.Is(err, memlimit.ErrCgroupsNotSupported) {
			err = nil
		}
		return memoryInForce{Source: "none"}, err
	}
	limit, err := memlimit.ApplyRatio(memlimit.Limit(n), cgroupRatio)()
	if err != nil {
		return memoryInForce{Source: "none"}, err
	}
	debug.SetMemoryLimit(int64(limit))
	return memoryInForce{Bytes: int64(limit), Source: "cgroup", Cgroup: n}, nil
}

func inForce(limit int64, source string, m memoryInForce) memoryInForce {
	m.Source = source
	if limit < math.MaxInt64 {
		m.Bytes = limit
	}
	return m
}

// logAttrs are the start log's fields: the limit, its source, and what
// the reader needs to check it (the container's limit, GOMEMLIMIT).
func (m memoryInForce) logAttrs(want memoryLimit) []any {
	limit := "none"
	if m.Bytes > 0 {
		limit = formatBytes(m.Bytes)
	}
	attrs := []any{"limit", limit, "bytes", m.Bytes, "source", m.Source}
	switch m.Source {
	case "cgroup":
		attrs = append(attrs, "container_limit", formatBytes(int64(m.Cgroup)), "ratio", cgroupRatio)
	case "GOMEMLIMIT":
		attrs = append(attrs, "GOMEMLIMIT", m.GOMEMLIMIT, "note", "GOMEMLIMIT is set, so --memory-limit="+want.String()+" is not applied")
	}
	return attrs
}

// configureMemory applies --memory-limit to the process and logs once the
// limit in force; serve and mcp call it before the library loads, where
// the peak is. It returns the limit in bytes (0: none) for /metrics.
func configureMemory(want memoryLimit, getenv func(string) string, log *slog.Logger) int64 {
	m, err := applyMemoryLimit(want, getenv, memlimit.FromCgroup)
	if err != nil {
		log.Warn("memory limit: cannot read the container's memory limit; running without a Go memory limit (set --memory-limit to choose one)", "err", err)
	}
	log.Info("memory limit", m.logAttrs(want)...)
	return m.Bytes
}
