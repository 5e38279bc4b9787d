package bench

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// HTTPRun is the result of loading one endpoint.
type HTTPRun struct {
	Name     string        `json:"name"`
	Clients  int           `json:"clients"`
	Elapsed  time.Duration `json:"elapsed"`
	Requests int           `json:"requests"`
	Errors   int           `json:"errors"` // transport errors and non-200 answers
	RPS      float64       `json:"rps"`
	Latency  Dist          `json:"latency"`
	Bytes    int64         `json:"bytes"` // mean response size
	LoadAvg  float64       `json:"load_avg"`
	Status   map[int]int   `json:"status"`
	// ServerCPU is the server's CPU time per request during the test, and
	// Capacity the requests per second that many CPU seconds allow on all
	// cores of this machine with nothing else running: an upper bound that
	// does not depend on the neighbours' load.
	ServerCPU time.Duration `json:"server_cpu"`
	Capacity  float64       `json:"capacity"`
	Target    string        `json:"target,omitempty"` // the target, if any
	TargetRPS float64       `json:"target_rps,omitempty"`
	TargetP99 time.Duration `json:"target_p99,omitempty"`
}

// LoadSpec bounds one load test: how many clients, for how long, and at
// most how many requests in all.
type LoadSpec struct {
	Clients     int
	Duration    time.Duration
	MaxRequests int
	Warmup      time.Duration
	// ServerPid, when set, is the server process, whose CPU time per
	// request is then reported.
	ServerPid int `json:"-"`
}

// Load sends GET requests for paths, in turn, to base from spec.Clients
// concurrent clients until spec.Duration has passed or spec.MaxRequests
// have been sent. base must be a loopback address: this generator is for
// the server this benchmark started, nothing else.
func Load(ctx context.Context, name, base string, paths []string, spec LoadSpec) (HTTPRun, error) {
	u, err := url.Parse(base)
	if err != nil {
		return HTTPRun{}, err
	}
	if ip := net.ParseIP(u.Hostname()); ip == nil || !ip.IsLoopback() {
		return HTTPRun{}, fmt.Errorf("load: %s is not a loopback address", base)
	}
	if len(paths) == 0 || spec.Clients < 1 {
		return HTTPRun{}, fmt.Errorf("load: nothing to request")
	}
	tr := &http.Transport{MaxIdleConns: spec.Clients, MaxIdleConnsPerHost: spec.Clients, MaxConnsPerHost: spec.Clients,
		IdleConnTimeout: time.Minute}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}

	if spec.Warmup > 0 {
		wctx, cancel := context.WithTimeout(ctx, spec.Warmup)
		blast(wctx, client, base, paths, spec.Clients, spec.MaxRequests, nil)
		cancel()
	}
	run := HTTPRun{Name: name, Clients: spec.Clients, LoadAvg: LoadAvg(), Status: map[int]int{}}
	lctx, cancel := context.WithTimeout(ctx, spec.Duration)
	defer cancel()
	res := &loadResults{status: map[int]int{}}
	start, cpu := time.Now(), ProcCPUTime(spec.ServerPid)
	blast(lctx, client, base, paths, spec.Clients, spec.MaxRequests, res)
	run.Elapsed = time.Since(start)
	if n := len(res.lat); n > 0 && spec.ServerPid > 0 {
		run.ServerCPU = (ProcCPUTime(spec.ServerPid) - cpu) / time.Duration(n)
		if run.ServerCPU > 0 {
			run.Capacity = float64(runtime.NumCPU()) / run.ServerCPU.Seconds()
		}
	}
	run.Requests = len(res.lat)
	run.Errors = res.errors
	run.Status = res.status
	run.Latency = Summarise(res.lat)
	if run.Requests > 0 {
		run.Bytes = res.bytes / int64(run.Requests)
	}
	run.RPS = float64(run.Requests) / run.Elapsed.Seconds()
	return run, nil
}

type loadResults struct {
	mu     sync.Mutex
	lat    []time.Duration
	errors int
	bytes  int64
	status map[int]int
}

// blast runs clients goroutines until ctx ends or max requests were sent,
// recording into res when it is not nil.
func blast(ctx context.Context, client *http.Client, base string, paths []string, clients, max int, res *loadResults) {
	var sent atomic.Int64
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var lat []time.Duration
			var bytes int64
			errs := 0
			status := map[int]int{}
			for i := c; ctx.Err() == nil; i += clients {
				if max > 0 && sent.Add(1) > int64(max) {
					break
				}
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+paths[i%len(paths)], nil)
				t := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					if ctx.Err() != nil {
						break // the deadline cut this request short
					}
					errs++
					continue
				}
				n, err := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil && ctx.Err() != nil {
					break
				}
				d := time.Since(t)
				status[resp.StatusCode]++
				if resp.StatusCode != http.StatusOK || err != nil {
					errs++
				}
				lat = append(lat, d)
				bytes += n
			}
			if res != nil {
				res.mu.Lock()
				res.lat = append(res.lat, lat...)
				res.errors += errs
				res.bytes += bytes
				for k, v := range status {
					res.status[k] += v
				}
				res.mu.Unlock()
			}
		}()
	}
	wg.Wait()
}
