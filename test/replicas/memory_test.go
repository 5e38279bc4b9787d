package replicas

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"casebook/internal/bench"
	"casebook/internal/bench/corpus"
	"casebook/internal/library"
	deflib "casebook/library"
)

// The server in a cgroup with the chart's default memory limit and
// --memory-limit auto, on a generated library: a cold load, then the load
// generator. It is not OOM-killed, it names the limit it took from the
// cgroup (80 %) in its start log and in /metrics, and its peak is reported
// against the limit. 1,000 incidents run in make test; 10,000 (a minute
// more of generation and cold load on two cores) in make bench, or with
// CASEBOOK_MEMORY_10K=1, with a start bound five times startBound.
func TestServerStaysInsideItsMemoryLimit(t *testing.T) {
	bin := serverBinary(t)
	limit, err := kubeQuantity(chart(t).Resources.Limits.Memory)
	if err != nil {
		t.Fatalf("the chart's resources.limits.memory: %v", err)
	}
	for _, n := range []int{1000, 10000} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			if n > 1000 && os.Getenv("CASEBOOK_MEMORY_10K") != "1" {
				t.Skip("10,000 incidents run in make bench (CASEBOOK_MEMORY_10K=1)")
			}
			cg := newCgroup(t, limit)
			lib := generate(t, n)
			s, err := bench.Launch{Bin: bin, Data: t.TempDir(), Wrap: cg.wrap(),
				Args: []string{"--library", lib, "--memory-limit", "auto"}}.Start(context.Background(), startBound*time.Duration(max(1, n/2000)))
			if err != nil {
				t.Fatalf("%v\ncgroup OOM kills: %d", err, cg.oomKills())
			}
			t.Cleanup(func() { s.Stop() })
			loaded, _ := bench.ReadMem(s.Pid())
			want := int64(float64(limit) * 0.8)
			if s.Start.MemorySource != "cgroup" || abs(s.Start.MemoryLimit-want) > 1<<20 {
				t.Errorf("start log: memory limit %d from %q, want about %d (80 %% of %d) from cgroup", s.Start.MemoryLimit, s.Start.MemorySource, want, limit)
			}
			if got := metric(t, s.Addr, "casebook_memory_limit_bytes"); got != float64(s.Start.MemoryLimit) {
				t.Errorf("/metrics casebook_memory_limit_bytes = %v, want %d as logged", got, s.Start.MemoryLimit)
			}
			var paths []string
			for _, q := range bench.Mix() {
				paths = append(paths, "/api/search?"+q.URLQuery(), "/search?"+q.URLQuery())
			}
			paths = append(paths, "/", "/?component=coredns")
			run, err := bench.Load(context.Background(), "memory", s.Addr, paths, bench.LoadSpec{Clients: 8, Duration: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			mem, _ := bench.ReadMem(s.Pid())
			select {
			case <-s.Exited():
				t.Fatalf("the server died under load (%v); cgroup OOM kills: %d", s.Wait(), cg.oomKills())
			default:
			}
			if err := s.Stop(); err != nil {
				t.Errorf("the server ended with %v, want a clean exit; cgroup OOM kills: %d", err, cg.oomKills())
			}
			if k := cg.oomKills(); k > 0 {
				t.Errorf("%d OOM kills in the cgroup", k)
			}
			if run.Errors > 0 {
				t.Errorf("%d of %d requests failed (%v)", run.Errors, run.Requests, run.Status)
			}
			// The cgroup's peak is what its limit is held to: the process's
			// own memory and the page cache it filled (the data folder it
			// wrote). The peak RSS also counts pages of the binary that
			// were charged to the cgroup that wrote it.
			peak := cg.peak()
			t.Logf("%d incidents, cgroup limit %s (Go limit %s): cgroup peak %s (%.0f%% of the limit) after a cold load of %s and %d requests in %s; peak RSS %s after the load, %s after the requests",
				n, mib(limit), mib(s.Start.MemoryLimit), mib(peak), 100*float64(peak)/float64(limit), s.Start.Load.Round(time.Millisecond),
				run.Requests, run.Elapsed.Round(time.Second), mib(loaded.HWM), mib(mem.HWM))
		})
	}
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

func mib(n int64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }

// kubeQuantity reads a memory quantity as the chart writes it (512Mi, 1Gi).
func kubeQuantity(s string) (int64, error) {
	for suffix, mult := range map[string]int64{"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30} {
		if num, ok := strings.CutSuffix(s, suffix); ok {
			n, err := strconv.ParseInt(num, 10, 64)
			return n * mult, err
		}
	}
	return strconv.ParseInt(s, 10, 64)
}

// generate writes a library of n incidents modelled on the embedded one,
// as cmd/libgen does.
func generate(t *testing.T, n int) string {
	t.Helper()
	lib, _, err := library.Load(deflib.FS)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := corpus.Generate(dir, deflib.FS, corpus.Measure(lib), corpus.Options{N: n, Seed: 1, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// metric reads one unlabelled value from /metrics.
func metric(t *testing.T, base, name string) float64 {
	t.Helper()
	a, err := get(base, "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(strings.NewReader(string(a.body)))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			f, _ := strconv.ParseFloat(v, 64)
			return f
		}
	}
	t.Fatalf("/metrics has no %s", name)
	return 0
}

// cgroup is a memory cgroup made for one test, under the test's own: the
// process started through wrap is born in it. cgroup v1 (memory.limit_in_bytes)
// and v2 (memory.max) are both written directly, which needs root or a
// delegated cgroup; without one the test skips (fails under CI=true).
type cgroup struct {
	dir string
	v2  bool
}

func newCgroup(t *testing.T, limit int64) *cgroup {
	t.Helper()
	cg, err := makeCgroup(limit)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("a memory cgroup is needed in CI: %v", err)
		}
		t.Skipf("cannot make a memory cgroup here (%v); CI=true makes this a failure", err)
	}
	t.Cleanup(func() {
		// The process has ended by then (its Stop cleanup ran first);
		// what it left in the page cache moves to the parent.
		for range 50 {
			if os.Remove(cg.dir) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("cgroup %s left behind", cg.dir)
	})
	return cg
}

func makeCgroup(limit int64) (*cgroup, error) {
	own, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("casebook-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	for _, line := range strings.Split(strings.TrimSpace(string(own)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case strings.Contains(","+parts[1]+",", ",memory,"):
			cg := &cgroup{dir: filepath.Join("/sys/fs/cgroup/memory", parts[2], name)}
			if err := os.Mkdir(cg.dir, 0o755); err != nil {
				return nil, err
			}
			// Swap would let it outlive the limit; the chart's pods run without.
			_ = os.WriteFile(filepath.Join(cg.dir, "memory.swappiness"), []byte("0"), 0o644)
			if err := os.WriteFile(filepath.Join(cg.dir, "memory.limit_in_bytes"), []byte(strconv.FormatInt(limit, 10)), 0o644); err != nil {
				os.Remove(cg.dir)
				return nil, err
			}
			return cg, nil
		case parts[0] == "0" && parts[1] == "":
			ctl, err := os.ReadFile(filepath.Join("/sys/fs/cgroup", parts[2], "cgroup.subtree_control"))
			if err != nil || !strings.Contains(string(ctl), "memory") {
				continue // v1 may still hold the memory controller
			}
			cg := &cgroup{dir: filepath.Join("/sys/fs/cgroup", parts[2], name), v2: true}
			if err := os.Mkdir(cg.dir, 0o755); err != nil {
				return nil, err
			}
			_ = os.WriteFile(filepath.Join(cg.dir, "memory.swap.max"), []byte("0"), 0o644)
			if err := os.WriteFile(filepath.Join(cg.dir, "memory.max"), []byte(strconv.FormatInt(limit, 10)), 0o644); err != nil {
				os.Remove(cg.dir)
				return nil, err
			}
			return cg, nil
		}
	}
	return nil, fmt.Errorf("no memory controller in /proc/self/cgroup")
}

// wrap runs a command inside the cgroup: the shell moves itself in, then
// becomes the command.
func (c *cgroup) wrap() []string {
	return []string{"sh", "-c", `echo $$ > "$0/cgroup.procs" && exec "$@"`, c.dir}
}

// peak is the most memory the cgroup was charged, page cache included.
func (c *cgroup) peak() int64 {
	name := "memory.max_usage_in_bytes"
	if c.v2 {
		name = "memory.peak"
	}
	b, _ := os.ReadFile(filepath.Join(c.dir, name))
	n, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return n
}

// oomKills counts the processes the kernel killed for the cgroup's limit.
func (c *cgroup) oomKills() int {
	name := "memory.oom_control"
	if c.v2 {
		name = "memory.events"
	}
	b, _ := os.ReadFile(filepath.Join(c.dir, name))
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "oom_kill "); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}
