// Package replicas runs the real server the way the chart deploys it:
// several processes on one git-synced library folder, each with its own
// data folder, behind a balancer, under load, while the library changes, a
// replica is stopped, a new version starts on an old data folder, and the
// process lives in a memory-limited cgroup.
package replicas

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"casebook/internal/bench"
)

// Named bounds. None is a performance target: each is several times what
// the step takes on a loaded two-core machine, so only a replica that
// never gets there fails.
const (
	// startBound is a cold start on the embedded library with a team layer.
	startBound = 3 * time.Minute
	// reloadBound is from a symlink swap to both replicas serving what the
	// new commit holds (the watcher reloads within a second of the swap;
	// the reload itself is a cold build of the read models).
	reloadBound = 2 * time.Minute
	// probeEvery is how often the balancer asks each replica's /readyz,
	// as a Service's endpoints follow readiness.
	probeEvery = 100 * time.Millisecond
)

var (
	buildOnce sync.Once
	binDir    string
	binPath   string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// serverBinary builds cmd/server once for all the tests of the package.
func serverBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts real server processes")
	}
	buildOnce.Do(func() {
		if binDir, buildErr = os.MkdirTemp("", "casebook-replicas-"); buildErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "casebook")
		binPath, buildErr = goBuild("../../cmd/server", binPath)
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// goBuild builds the main package at pkg (a path, run from its module)
// into out.
func goBuild(pkg, out string) (string, error) {
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir = pkg
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
	}
	return out, nil
}

// gitSync publishes commits as the git-sync sidecar does: each checkout in
// a folder of its own under root/.worktrees, and root/current a relative
// symlink to it, replaced by renaming a new link over it (atomic).
type gitSync struct {
	root    string
	commits int
}

func newGitSync(t *testing.T) *gitSync {
	g := &gitSync{root: t.TempDir()}
	return g
}

// layer is the team layer's folder as the server is given it, through the
// symlink: --library root/current/team.
func (g *gitSync) layer() string { return filepath.Join(g.root, "current", "team") }

// publish checks out the fixture team layer, changed by edit, as the next
// commit and swaps the link to it.
func (g *gitSync) publish(t *testing.T, edit func(dir string)) {
	t.Helper()
	g.commits++
	rel := filepath.Join(".worktrees", fmt.Sprintf("commit-%d", g.commits))
	dir := filepath.Join(g.root, rel, "team")
	if err := os.CopyFS(dir, os.DirFS("testdata/team")); err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(dir)
	}
	tmp := filepath.Join(g.root, ".current.tmp")
	os.Remove(tmp)
	if err := os.Symlink(rel, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(g.root, "current")); err != nil {
		t.Fatal(err)
	}
}

// addIncident writes a second team incident, TEAM-0002, whose word is
// word, into the checkout dir.
func addIncident(word string) func(dir string) {
	return func(dir string) {
		src := filepath.Join(dir, "incidents", "TEAM-0001-resolver-cache-disabled.md")
		b, err := os.ReadFile(src)
		if err != nil {
			panic(err)
		}
		s := strings.ReplaceAll(string(b), "TEAM-0001", "TEAM-0002")
		s = strings.ReplaceAll(s, "quokkafixture", word)
		if err := os.WriteFile(filepath.Join(dir, "incidents", "TEAM-0002-resolver-cache-disabled-again.md"), []byte(s), 0o644); err != nil {
			panic(err)
		}
	}
}

// startReplica starts the server on the embedded library with the team
// layer at layer, on its own data folder, as a pod of the chart.
func startReplica(t *testing.T, bin, layer, data string, args ...string) *bench.Server {
	t.Helper()
	return startWith(t, bench.Launch{Bin: bin, Data: data, Args: append([]string{"--library", layer}, args...)})
}

func startWith(t *testing.T, l bench.Launch) *bench.Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startBound)
	defer cancel()
	s, err := l.Start(ctx, startBound)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop() })
	return s
}

// answer is one response read whole.
type answer struct {
	status  int
	version string // the LibraryVersionHeader
	body    []byte
}

var client = &http.Client{Timeout: 30 * time.Second}

func get(base, path string) (answer, error) {
	resp, err := client.Get(base + path)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header.Get("X-Library-Version"), b}, err
}

// readyz is a replica's /readyz.
type readyz struct {
	code      int
	Status    string
	Hash      string
	Incidents int
}

func readiness(base string) readyz {
	a, err := get(base, "/readyz")
	if err != nil {
		return readyz{}
	}
	r := readyz{code: a.status}
	_ = json.Unmarshal(a.body, &r)
	return r
}

// eventually polls cond until it holds or bound has passed, and returns
// how long it took.
func eventually(t *testing.T, bound time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > bound {
			t.Fatalf("%s: not after %s", what, bound)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return time.Since(start)
}

// balancer spreads requests round-robin over the replicas that are ready,
// following each one's /readyz as a Service follows its endpoints. It
// never retries: a request that fails is answered 502 and counted, as a
// client behind a Service would see it.
type balancer struct {
	backends []*backend
	next     atomic.Uint64
	failed   atomic.Int64
	unready  atomic.Int64 // requests that found no ready replica
	srv      *httptest.Server
	stop     chan struct{}
	done     sync.WaitGroup
}

type backend struct {
	base   string
	ready  atomic.Bool
	served atomic.Int64
	proxy  *httputil.ReverseProxy
	// versions counts the answers by the library version they name.
	mu       sync.Mutex
	versions map[string]int
}

func newBalancer(t *testing.T, bases ...string) *balancer {
	lb := &balancer{stop: make(chan struct{})}
	tr := &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: time.Minute}
	for _, base := range bases {
		u, err := url.Parse(base)
		if err != nil {
			t.Fatal(err)
		}
		b := &backend{base: base, versions: map[string]int{}}
		b.proxy = &httputil.ReverseProxy{
			Rewrite:   func(pr *httputil.ProxyRequest) { pr.SetURL(u) },
			Transport: tr,
			ModifyResponse: func(resp *http.Response) error {
				if v := resp.Header.Get("X-Library-Version"); v != "" {
					b.mu.Lock()
					b.versions[v]++
					b.mu.Unlock()
				}
				return nil
			},
			ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
				if r.Context().Err() != nil {
					return // the client gave up (the load generator stopping), not a failure it saw
				}
				lb.failed.Add(1)
				t.Logf("balancer: %s %s via %s: %v", r.Method, r.URL, base, err)
				w.WriteHeader(http.StatusBadGateway)
			},
		}
		b.ready.Store(readiness(base).code == http.StatusOK)
		lb.backends = append(lb.backends, b)
		lb.done.Add(1)
		go lb.probe(b)
	}
	lb.srv = httptest.NewServer(lb)
	t.Cleanup(lb.close)
	return lb
}

func (lb *balancer) probe(b *backend) {
	defer lb.done.Done()
	c := &http.Client{Timeout: time.Second}
	for {
		select {
		case <-lb.stop:
			return
		case <-time.After(probeEvery):
		}
		resp, err := c.Get(b.base + "/readyz")
		ok := err == nil && resp.StatusCode == http.StatusOK
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		b.ready.Store(ok)
	}
}

func (lb *balancer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := uint64(len(lb.backends))
	start := lb.next.Add(1)
	for i := range n {
		if b := lb.backends[(start+i)%n]; b.ready.Load() {
			b.served.Add(1)
			b.proxy.ServeHTTP(w, r)
			return
		}
	}
	lb.unready.Add(1)
	http.Error(w, "no ready replica", http.StatusServiceUnavailable)
}

func (lb *balancer) close() {
	select {
	case <-lb.stop:
		return
	default:
	}
	close(lb.stop)
	lb.srv.Close()
	lb.done.Wait()
}

// loadPaths are what the load generator asks: the search API over the
// benchmark's query mix, and the pages (library, search, an incident of
// each layer).
func loadPaths() []string {
	var paths []string
	for i, q := range bench.Mix() {
		paths = append(paths, "/api/search?"+q.URLQuery())
		if i%4 == 0 {
			paths = append(paths, "/search?"+q.URLQuery())
		}
	}
	return append(paths, "/", "/incidents/IL-0001", "/incidents/TEAM-0001", "/?component=coredns")
}

// loadRun is the load generator running in the background until stopped.
type loadRun struct {
	cancel context.CancelFunc
	done   chan struct{}
	run    bench.HTTPRun
	err    error
}

// startLoad drives the benchmark's load generator at base with clients
// concurrent clients until stop is called (at most limit), or the test
// ends.
func startLoad(t *testing.T, base string, clients int, limit time.Duration) *loadRun {
	ctx, cancel := context.WithCancel(context.Background())
	l := &loadRun{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(l.done)
		l.run, l.err = bench.Load(ctx, "replicas", base, loadPaths(), bench.LoadSpec{Clients: clients, Duration: limit})
	}()
	t.Cleanup(func() {
		cancel()
		<-l.done
	})
	return l
}

func (l *loadRun) stop(t *testing.T) bench.HTTPRun {
	t.Helper()
	l.cancel()
	<-l.done
	if l.err != nil {
		t.Fatal(l.err)
	}
	return l.run
}

func mustWrite(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// chartValues are the settings of deploy/helm/casebook/values.yaml the
// tests hold the server to.
type chartValues struct {
	Resources struct {
		Limits struct{ Memory string }
	}
	ShutdownDelay                 string `yaml:"shutdownDelay"`
	ShutdownTimeout               string `yaml:"shutdownTimeout"`
	TerminationGracePeriodSeconds int    `yaml:"terminationGracePeriodSeconds"`
}

func chart(t *testing.T) chartValues {
	t.Helper()
	b, err := os.ReadFile("../../deploy/helm/casebook/values.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var v chartValues
	if err := yaml.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}
