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
	"slices"
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
	// exited is closed when the process has ended, with waitErr set.
	exited  chan struct{}
	waitErr error
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
	// MemoryLimit is the Go memory limit the start log names (0: none),
	// and MemorySource where it came from (flag, cgroup, GOMEMLIMIT, none).
	MemoryLimit  int64  `json:"memory_limit"`
	MemorySource string `json:"memory_source"`
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
	Bytes     int64   `json:"bytes"`  // memory limit
	Source    string  `json:"source"` // memory limit
}

// benchRateLimit is the server's --rate-limit under the benchmark. Every
// client of the load generator is one caller (127.0.0.1), whose search
// budget the portal's limiter would exhaust within a second and answer 429:
// the benchmark measures what the server can serve, not the limiter.
const benchRateLimit = 100_000_000

// StartServer runs bin serve on libDir with dataDir and waits until the
// library is loaded (at most timeout).
func StartServer(ctx context.Context, bin, libDir, dataDir string, env []string, timeout time.Duration) (*Server, error) {
	return Launch{Bin: bin, Args: []string{"--library", libDir}, Data: dataDir, Env: env}.Start(ctx, timeout)
}

// Launch says how to start a server process: the binary, its data folder,
// the serve flags beyond those every start has (the library's layers,
// shutdown settings), extra environment, and a command to run it under
// (one that puts it in a cgroup), if any.
type Launch struct {
	Bin  string
	Data string
	Args []string
	Env  []string
	Wrap []string
}

// Start runs the server and waits until the library is loaded (at most
// timeout). It listens on a free loopback port and logs JSON.
func (l Launch) Start(ctx context.Context, timeout time.Duration) (*Server, error) {
	args := append([]string{"serve", "--data", l.Data, "--addr", "127.0.0.1:0",
		"--log-format", "json", "--log-level", "info", "--rate-limit", fmt.Sprint(benchRateLimit)}, l.Args...)
	argv := append(append(slices.Clone(l.Wrap), l.Bin), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), l.Env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	s := &Server{cmd: cmd, exited: make(chan struct{})}
	s.Start.LoadAvg = LoadAvg()
	begin := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", l.Bin, err)
	}
	events := make(chan logLine, 256)
	go s.readLogs(stderr, events)
	go func() {
		s.waitErr = cmd.Wait()
		close(s.exited)
	}()

	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		select {
		case ev := <-events:
			switch ev.Msg {
			case "casebook listening":
				s.Addr = ev.Addr
			case "memory limit":
				s.Start.MemoryLimit, s.Start.MemorySource = ev.Bytes, ev.Source
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
		case <-s.exited:
			return nil, fmt.Errorf("server exited before loading (%v):\n%s", s.waitErr, s.lastLines())
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

// Signal sends sig to the server (SIGTERM: it drains, then exits).
func (s *Server) Signal(sig os.Signal) error { return s.cmd.Process.Signal(sig) }

// Exited is closed when the process has ended; Wait then says how.
func (s *Server) Exited() <-chan struct{} { return s.exited }

// Wait waits for the process to end and returns how it ended.
func (s *Server) Wait() error {
	<-s.exited
	return s.waitErr
}

// Logs are the last lines the server wrote, for a failure's message.
func (s *Server) Logs() string { return s.lastLines() }

// Stop ends the server with SIGTERM, then SIGKILL after ten seconds.
func (s *Server) Stop() error {
	s.stop.Do(func() {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(10 * time.Second):
			_ = s.cmd.Process.Kill()
			<-s.exited
		}
		s.stopErr = s.waitErr
	})
	return s.stopErr
}
