package main

import (
	"errors"
	"io"
	"log/slog"
	"math"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/KimMachineGun/automemlimit/memlimit"
)

func TestConfigMemoryLimit(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		env       string
		mode      memoryMode
		bytes     int64
		wantError string // part of the error; "" for none
	}{
		{nil, "", memoryAuto, 0, ""},
		{[]string{"--memory-limit", "auto"}, "", memoryAuto, 0, ""},
		{[]string{"--memory-limit", "off"}, "", memoryOff, 0, ""},
		{[]string{"--memory-limit=OFF"}, "", memoryOff, 0, ""},
		{[]string{"--memory-limit", "256MiB"}, "", memorySize, 256 << 20, ""},
		{[]string{"--memory-limit", "1GiB"}, "", memorySize, 1 << 30, ""},
		{[]string{"--memory-limit", "300000000"}, "", memorySize, 300000000, ""},
		{[]string{"--memory-limit", "300000000B"}, "", memorySize, 300000000, ""},
		{[]string{"--memory-limit", "409600KiB"}, "", memorySize, 400 << 20, ""},
		{[]string{"--memory-limit", "1.5GiB"}, "", memorySize, 3 << 29, ""},
		{[]string{"--memory-limit", "1TiB"}, "", memorySize, 1 << 40, ""},
		// Kubernetes spellings, as a chart's values would give them.
		{[]string{"--memory-limit", "512Mi"}, "", memorySize, 512 << 20, ""},
		{[]string{"--memory-limit", "2Gi"}, "", memorySize, 2 << 30, ""},
		{[]string{"--memory-limit", "220 MiB"}, "", memorySize, 220 << 20, ""},
		// The environment sets it; the command line wins.
		{nil, "180MiB", memorySize, 180 << 20, ""},
		{[]string{"--memory-limit", "off"}, "180MiB", memoryOff, 0, ""},
		{nil, "auto", memoryAuto, 0, ""},
		// Refused, with the flag and its variable named.
		{[]string{"--memory-limit", "256MB"}, "", 0, 0, `unknown unit "MB"`},
		{[]string{"--memory-limit", "256M"}, "", 0, 0, `unknown unit "M"`},
		{[]string{"--memory-limit", "lots"}, "", 0, 0, `unknown unit "lots"`},
		{[]string{"--memory-limit", "MiB"}, "", 0, 0, "want auto, off, or a size"},
		{[]string{"--memory-limit", "1.2.3GiB"}, "", 0, 0, "want auto, off, or a size"},
		{[]string{"--memory-limit", "-256MiB"}, "", 0, 0, "negative"},
		{[]string{"--memory-limit", "0"}, "", 0, 0, "below 32MiB"},
		{[]string{"--memory-limit", "1MiB"}, "", 0, 0, "below 32MiB"},
		{[]string{"--memory-limit", "9000000000TiB"}, "", 0, 0, "too large"},
		{nil, "12 bananas", 0, 0, `unknown unit "bananas"`},
	} {
		name := strings.Join(tc.args, " ") + " env=" + tc.env
		c, err := parseServeConfig(tc.args, func(k string) string {
			if k == "CASEBOOK_MEMORY_LIMIT" {
				return tc.env
			}
			return ""
		}, io.Discard)
		if tc.wantError != "" {
			if err == nil || !errors.Is(err, errMemoryLimit) || !strings.Contains(err.Error(), tc.wantError) ||
				!strings.Contains(err.Error(), "--memory-limit (CASEBOOK_MEMORY_LIMIT)") {
				t.Errorf("%s: err = %v, want an errMemoryLimit naming the flag and saying %q", name, err, tc.wantError)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if c.MemoryLimit.mode != tc.mode || c.MemoryLimit.bytes != tc.bytes {
			t.Errorf("%s: got %+v, want mode %d bytes %d", name, c.MemoryLimit, tc.mode, tc.bytes)
		}
	}
}

// The mcp command takes the same flag and refuses the same values.
func TestConfigMemoryLimitMCP(t *testing.T) {
	err := runMCP(t.Context(), []string{"--memory-limit", "256MB"}, func(string) string { return "" }, strings.NewReader(""), io.Discard, io.Discard)
	if !errors.Is(err, errMemoryLimit) {
		t.Errorf("mcp --memory-limit 256MB: err = %v, want errMemoryLimit", err)
	}
}

// The limit reaches the Go runtime: each case reads it back from
// debug.SetMemoryLimit(-1). The container's limit comes from an injected
// provider, since the test machine's own cgroup is whatever it is.
func TestMemoryLimitApplied(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(before) })
	const none = math.MaxInt64
	container := func(n uint64, err error) memlimit.Provider {
		return func() (uint64, error) { return n, err }
	}
	for _, tc := range []struct {
		name      string
		want      memoryLimit
		gomem     string // GOMEMLIMIT in the environment
		preset    int64  // the runtime's limit before (what GOMEMLIMIT made it)
		cgroup    memlimit.Provider
		runtime   int64 // the limit in force after
		source    string
		reported  int64
		wantError bool
	}{
		{name: "size", want: memoryLimit{mode: memorySize, bytes: 220 << 20}, preset: none,
			runtime: 220 << 20, source: "flag", reported: 220 << 20},
		{name: "off clears an earlier limit", want: memoryLimit{mode: memoryOff}, preset: 100 << 20,
			runtime: none, source: "none"},
		{name: "auto in a 512Mi container", want: memoryLimit{mode: memoryAuto}, preset: none, cgroup: container(512<<20, nil),
			runtime: 429496729, source: "cgroup", reported: 429496729},
		{name: "auto, cgroup without a limit", want: memoryLimit{mode: memoryAuto}, preset: 100 << 20, cgroup: container(0, memlimit.ErrNoLimit),
			runtime: none, source: "none"},
		{name: "auto outside a cgroup", want: memoryLimit{mode: memoryAuto}, preset: none, cgroup: container(0, memlimit.ErrNoCgroup),
			runtime: none, source: "none"},
		{name: "auto, cgroups unsupported", want: memoryLimit{mode: memoryAuto}, preset: none, cgroup: container(0, memlimit.ErrCgroupsNotSupported),
			runtime: none, source: "none"},
		{name: "auto, unreadable cgroup", want: memoryLimit{mode: memoryAuto}, preset: none, cgroup: container(0, errors.New("failed to parse mountinfo")),
			runtime: none, source: "none", wantError: true},
		{name: "GOMEMLIMIT wins over a size", want: memoryLimit{mode: memorySize, bytes: 220 << 20}, gomem: "300MiB", preset: 300 << 20,
			runtime: 300 << 20, source: "GOMEMLIMIT", reported: 300 << 20},
		{name: "GOMEMLIMIT wins over auto", want: memoryLimit{mode: memoryAuto}, gomem: "300MiB", preset: 300 << 20, cgroup: container(512<<20, nil),
			runtime: 300 << 20, source: "GOMEMLIMIT", reported: 300 << 20},
		{name: "GOMEMLIMIT=off wins over a size", want: memoryLimit{mode: memorySize, bytes: 220 << 20}, gomem: "off", preset: none,
			runtime: none, source: "GOMEMLIMIT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			debug.SetMemoryLimit(tc.preset)
			cgroup := tc.cgroup
			if cgroup == nil {
				cgroup = func() (uint64, error) { t.Error("the container's limit was read"); return 0, nil }
			}
			got, err := applyMemoryLimit(tc.want, func(k string) string {
				if k == "GOMEMLIMIT" {
					return tc.gomem
				}
				return ""
			}, cgroup)
			if (err != nil) != tc.wantError {
				t.Errorf("err = %v, want error %v", err, tc.wantError)
			}
			if rt := debug.SetMemoryLimit(-1); rt != tc.runtime {
				t.Errorf("runtime limit = %d, want %d", rt, tc.runtime)
			}
			if got.Source != tc.source || got.Bytes != tc.reported {
				t.Errorf("reported %+v, want %d from %s", got, tc.reported, tc.source)
			}
		})
	}
}

// The start log names the limit, its source and, when GOMEMLIMIT is set,
// that the flag is not applied.
func TestMemoryLimitLog(t *testing.T) {
	for _, tc := range []struct {
		m    memoryInForce
		want memoryLimit
		log  []string
	}{
		{memoryInForce{Bytes: 220 << 20, Source: "flag"}, memoryLimit{mode: memorySize, bytes: 220 << 20}, []string{"limit=220MiB", "source=flag"}},
		{memoryInForce{Source: "none"}, memoryLimit{}, []string{"limit=none", "bytes=0", "source=none"}},
		{memoryInForce{Bytes: 429496729, Source: "cgroup", Cgroup: 512 << 20}, memoryLimit{}, []string{"limit=409.6MiB", "bytes=429496729", "source=cgroup", "container_limit=512MiB", "ratio=0.8"}},
		{memoryInForce{Bytes: 300 << 20, Source: "GOMEMLIMIT", GOMEMLIMIT: "300MiB"}, memoryLimit{mode: memorySize, bytes: 1 << 30},
			[]string{"source=GOMEMLIMIT", "GOMEMLIMIT=300MiB", "--memory-limit=1GiB is not applied"}},
	} {
		var b strings.Builder
		slog.New(slog.NewTextHandler(&b, nil)).Info("memory limit", tc.m.logAttrs(tc.want)...)
		for _, w := range tc.log {
			if !strings.Contains(b.String(), w) {
				t.Errorf("log %q lacks %q", b.String(), w)
			}
		}
	}
}
