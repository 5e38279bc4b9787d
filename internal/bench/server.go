package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Server is a running casebook server process, started on a library
// folder with its own data folder and listening on a loopback port.
type Server struct {
	cmd  *exec.Cmd
	Addr string // http://127.0.0.1:PORT
	// Start is the measurement of one start: how long until the library
	// was loaded, what the loader said about it, and the process's memory
	// and CPU time at that moment.
	Start StartRun

	mu    sync.Mutex
	tail  []string // last log lines, for errors
	lines int
	done  chan error
	// stop makes Stop safe to call twice.
	stop    sync.Once
	stopErr error
}

// StartRun is one server start.
type StartRun struct {
	Ready     time.Duration `json:"ready"`     // process start until "library loaded"
	Load      time.Duration `json:"load"`      // the loader's own "took"
	Warm      bool          `json:"warm"`      // the loader reused everything
	Index     time.Duration `json:"index"`     // the search builder's "took"
	Reused    bool          `json:"reused"`    // the search index was reused
	CPU       time.Duration `json:"cpu"`       // process CPU time at ready
	Mem       Mem           `json:"mem"`       // at ready
	LoadAvg   float64       `json:"load_avg"`  // machine load when it started
	Incidents int           `json:"incidents"` // as loaded
}

// logLine holds the fields of the server's JSON log lines that matter here.
type logLine struct {
	Msg       string  `json:"msg"`
	Addr      string  `json:"addr"`
	Took      float64 `json:"took"` // nanoseconds
	Warm      bool    `json:"warm"`
	Reused    bool    `json:"reused"`
	Incidents int     `json:"incidents"`
	Err       string  `json:"err"`
}

// benchRateLimit is the server's --rate-limit under the benchmark. Every
// client of the load generator is one caller (127.0.0.1), whose search
// budget the portal's limiter would exhaust within a second and answer 429:
// the benchmark measures what the server can serve, not the limiter.
const benchRateLimit = 100_000_000

// StartServer runs bin serve on libDir with dataDir and waits until the
// library is loaded (at most timeout).
func StartServer(ctx context.Context, bin, libDir, dataDir string, env []string, timeout time.Duration) (*Server, error) {
	cmd := exec.Command(bin, "serve", "--library", libDir, "--data", dataDir, "--addr", "127.0.0.1:0",
		"--log-format", "json", "--log-level", "info", "--rate-limit", fmt.Sprint(benchRateLimit))
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	s := &Server{cmd: cmd, done: make(chan error, 1)}
	s.Start.LoadAvg = LoadAvg()
	begin := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	events := make(chan logLine, 256)
	go s.readLogs(stderr, events)
	go func() { s.done <- cmd.Wait() }()

	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		select {
		case ev := <-events:
			switch ev.Msg {
			case "casebook listening":
				s.Addr = ev.Addr
			case "search index ready":
				s.Start.Index, s.Start.Reused = time.Duration(ev.Took), ev.Reused
			case "library loaded":
				s.Start.Ready = time.Since(begin)
				s.Start.Load, s.Start.Warm, s.Start.Incidents = time.Duration(ev.Took), ev.Warm, ev.Incidents
				s.Start.CPU = ProcCPUTime(cmd.Process.Pid)
				s.Start.Mem, _ = ReadMem(cmd.Process.Pid)
				if s.Addr == "" {
					s.Stop()
					return nil, errors.New("server did not log its address")
				}
				return s, nil
			}
		case err := <-s.done:
			return nil, fmt.Errorf("server exited before loading (%v):\n%s", err, s.lastLines())
		case <-deadline.C:
			s.Stop()
			return nil, fmt.Errorf("server not loaded after %s:\n%s", timeout, s.lastLines())
		case <-ctx.Done():
			s.Stop()
			return nil, ctx.Err()
		}
	}
}

func (s *Server) readLogs(r io.Reader, events chan<- logLine) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	started := false
	for sc.Scan() {
		line := sc.Text()
		s.mu.Lock()
		s.lines++
		s.tail = append(s.tail, line)
		if len(s.tail) > 20 {
			s.tail = s.tail[1:]
		}
		s.mu.Unlock()
		if started {
			continue // request logs: drained, not parsed
		}
		var ev logLine
		if json.Unmarshal([]byte(line), &ev) == nil {
			select {
			case events <- ev:
			default: // nobody is waiting any more
			}
			started = ev.Msg == "library loaded"
		}
	}
}

func (s *Server) lastLines() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.tail, "\n")
}

// Pid is the server's process id.
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// Stop ends the server with SIGTERM, then SIGKILL after ten seconds.
func (s *Server) Stop() error {
	s.stop.Do(func() {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case s.stopErr = <-s.done:
		case <-time.After(10 * time.Second):
			_ = s.cmd.Process.Kill()
			s.stopErr = <-s.done
		}
	})
	return s.stopErr
}
