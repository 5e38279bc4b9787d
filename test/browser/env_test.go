package browser

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"casebook/internal/content"
	"casebook/internal/drill"
	"casebook/internal/web"
)

// env is one portal server and one headless browser shared by the subtests
// of a test; each subtest opens its own tab.
type env struct {
	base    string
	browser context.Context
	shots   string
}

// chromiumPath finds the browser: CASEBOOK_CHROMIUM, then the usual names.
func chromiumPath() string {
	if p := os.Getenv("CASEBOOK_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// shared is the one server and browser of the test binary, started by the
// first test that needs it and stopped by TestMain.
var shared struct {
	once    sync.Once
	env     *env
	missing bool // no browser on this machine
	err     error
	stop    []func()
}

func TestMain(m *testing.M) {
	code := m.Run()
	for i := len(shared.stop) - 1; i >= 0; i-- {
		shared.stop[i]()
	}
	os.Exit(code)
}

// newEnv returns the real portal on the shipped library and a headless
// Chromium. Without a browser the test skips, except under CI=true, where a
// missing browser means the suite did not run and must fail.
func newEnv(t *testing.T) *env {
	t.Helper()
	if testing.Short() {
		t.Skip("browser tests are slow; skipped with -short")
	}
	shared.once.Do(func() { shared.env, shared.err = start() })
	switch {
	case shared.missing && os.Getenv("CI") == "true":
		t.Fatal("CI=true but no chromium found (install Debian's chromium, or set CASEBOOK_CHROMIUM)")
	case shared.missing:
		t.Skip("no chromium found: install Debian's chromium or set CASEBOOK_CHROMIUM to run the browser tests")
	case shared.err != nil:
		t.Fatal(shared.err)
	}
	return shared.env
}

func start() (*env, error) {
	path := chromiumPath()
	if path == "" {
		shared.missing = true
		return nil, nil
	}
	tmp, err := os.MkdirTemp("", "casebook-browser-")
	if err != nil {
		return nil, err
	}
	shared.stop = append(shared.stop, func() { _ = os.RemoveAll(tmp) })

	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	data := filepath.Join(tmp, "data")
	loader := content.NewLoader(os.DirFS("../../library"), data, log)
	shared.stop = append(shared.stop, loader.Close)
	if _, err := loader.Load(context.Background()); err != nil {
		return nil, fmt.Errorf("load library: %w", err)
	}
	// The test server also serves axe-core at axePath, so a page loads it
	// as a script of its own origin (the CSP allows 'self') and Chromium
	// keeps it compiled between pages instead of parsing 650 KB each time.
	axe, err := os.ReadFile("vendor/axe-core/axe.min.js")
	if err != nil {
		return nil, fmt.Errorf("axe-core: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+axePath, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		w.Header().Set("Cache-Control", "public, max-age=3600")
		_, _ = w.Write(axe)
	})
	mux.Handle("/", web.New(web.Deps{Content: loader, Log: log, Drills: drill.NewService(os.DirFS("../../library"), nil)}))
	srv := httptest.NewServer(mux)
	shared.stop = append(shared.stop, srv.Close)

	shots := os.Getenv("CASEBOOK_SCREENSHOTS")
	if shots == "" {
		shots = filepath.Join(tmp, "screenshots")
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		return nil, err
	}

	// The machine may have no internet: every flag that makes Chromium
	// reach out on its own is off, so nothing waits on a network timeout.
	// Tabs run side by side, so none may be throttled as a background tab.
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("force-color-profile", "srgb"),
		chromedp.UserDataDir(filepath.Join(tmp, "profile")),
		chromedp.WindowSize(1366, 900),
	)
	browser, cancelBrowser := chromedp.NewContext(allocCtx)
	shared.stop = append(shared.stop, func() { cancelBrowser(); cancelAlloc() })
	if err := chromedp.Do(browser); err != nil {
		return nil, fmt.Errorf("start %s: %w", path, err)
	}
	fmt.Fprintf(os.Stderr, "browser tests: %s, portal %s, screenshots in %s\n", path, srv.URL, shots)
	return &env{base: srv.URL, browser: browser, shots: shots}, nil
}

// tab is one browser tab for one subtest. It records the console, so that
// the subtest fails on any Content-Security-Policy violation or uncaught
// exception when it ends.
type tab struct {
	t   *testing.T
	ctx context.Context
	env *env
	con *consoleLog
}

// consoleLog is what a tab's console printed, shared by the views of one
// tab (tab.as).
type consoleLog struct {
	mu   sync.Mutex
	msgs []chromedp.ConsoleMessage
}

// stepBound bounds one step of a flow (a navigation, a wait, an
// evaluation): a hung page fails its step with the step's name, while a
// slow machine (two cores shared by many builds) only makes the flow slow.
const stepBound = 2 * time.Minute

func (e *env) tab(t *testing.T, opts ...chromedp.ContextOption) *tab {
	t.Helper()
	return e.tabWithin(t, 8*time.Minute, opts...)
}

// tabWithin is tab with its own bound on the whole subtest, a backstop
// below go test's default ten minutes; each step has its own stepBound.
func (e *env) tabWithin(t *testing.T, bound time.Duration, opts ...chromedp.ContextOption) *tab {
	t.Helper()
	tabCtx, cancelTab := chromedp.NewContext(e.browser, opts...)
	if err := chromedp.Do(tabCtx); err != nil {
		cancelTab()
		t.Fatalf("open tab: %v", err)
	}
	tb := &tab{t: t, env: e, con: &consoleLog{}}
	msgs := chromedp.Console(tabCtx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range msgs {
			if err != nil {
				return
			}
			tb.con.mu.Lock()
			tb.con.msgs = append(tb.con.msgs, m)
			tb.con.mu.Unlock()
		}
	}()
	ctx, cancel := context.WithTimeout(tabCtx, bound)
	tb.ctx = ctx
	t.Cleanup(func() {
		// Let late console events arrive before reading them.
		time.Sleep(50 * time.Millisecond)
		cancel()
		cancelTab()
		<-done
		tb.checkConsole()
	})
	return tb
}

// as is the same tab reporting to t, for subtests that share one tab.
func (tb *tab) as(t *testing.T) *tab {
	return &tab{t: t, ctx: tb.ctx, env: tb.env, con: tb.con}
}

// step is the context of one step of the flow.
func (tb *tab) step() (context.Context, context.CancelFunc) {
	return context.WithTimeout(tb.ctx, stepBound)
}

// checkConsole fails the test on the CSP violations and uncaught
// exceptions the console reported so far, and forgets them.
func (tb *tab) checkConsole() {
	tb.t.Helper()
	for _, v := range tb.cspViolations() {
		tb.t.Errorf("Content-Security-Policy violation: %s", v)
	}
	for _, m := range tb.console() {
		if m.IsException() {
			tb.t.Errorf("uncaught exception at %s:%d: %s", m.URL, m.Line, m.Text)
		}
	}
	tb.forget()
}

// forget drops the console messages so far, after a step that provokes
// errors on purpose.
func (tb *tab) forget() {
	tb.con.mu.Lock()
	tb.con.msgs = nil
	tb.con.mu.Unlock()
}

func (tb *tab) console() []chromedp.ConsoleMessage {
	tb.con.mu.Lock()
	defer tb.con.mu.Unlock()
	return append([]chromedp.ConsoleMessage(nil), tb.con.msgs...)
}

// cspViolations are the console messages in which Chromium reports a
// refused resource, script or style.
func (tb *tab) cspViolations() []string {
	var out []string
	for _, m := range tb.console() {
		if strings.Contains(m.Text, "Content Security Policy") {
			where := m.URL
			if m.Stack != nil && len(m.Stack.CallFrames) > 0 {
				f := m.Stack.CallFrames[0]
				where = fmt.Sprintf("%s:%d:%d (%s)", f.URL, f.LineNumber+1, f.ColumnNumber+1, f.FunctionName)
			}
			out = append(out, fmt.Sprintf("%s [at %s]", m.Text, where))
		}
	}
	return out
}

// do runs steps, failing the test on error.
func (tb *tab) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	ctx, cancel := tb.step()
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		tb.shot("failed-" + what)
		tb.t.Fatalf("%s: %v", what, err)
	}
}

// follow runs an action that loads a new page (a click on a plain link) and
// waits for that page, failing unless it answers 200.
func (tb *tab) follow(what string, step chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	ctx, cancel := tb.step()
	defer cancel()
	resp, err := chromedp.RunResponse(ctx, step)
	if err != nil {
		tb.shot("failed-" + what)
		tb.t.Fatalf("%s: %v", what, err)
	}
	if resp == nil || resp.Status != 200 {
		tb.shot("failed-" + what)
		tb.t.Fatalf("%s: response %+v", what, resp)
	}
}

// eval evaluates a JavaScript expression and returns its value.
func eval[T any](tb *tab, expr string, opts ...chromedp.EvaluateOption) T {
	tb.t.Helper()
	ctx, cancel := tb.step()
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, opts...))
	if err != nil {
		tb.t.Fatalf("evaluate %.80q: %v", expr, err)
	}
	return v
}

// waitJS waits until a JavaScript predicate holds.
func (tb *tab) waitJS(what, predicate string) {
	tb.t.Helper()
	ctx, cancel := tb.step()
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool]("!!("+predicate+")", chromedp.WithPollingInterval(25*time.Millisecond)))
	if err != nil {
		tb.shot("failed-" + what)
		tb.t.Fatalf("waiting for %s (%s): %v", what, predicate, err)
	}
}

// open navigates and waits for the page's main element.
func (tb *tab) open(path string) {
	tb.t.Helper()
	tb.do("open "+path, chromedp.Navigate(tb.env.base+path), chromedp.WaitReady(chromedp.CSS("main")))
}

// location is the path and query of the current page.
func (tb *tab) location() string {
	tb.t.Helper()
	loc, err := chromedp.Run(tb.ctx, chromedp.Location())
	if err != nil {
		tb.t.Fatalf("location: %v", err)
	}
	return strings.TrimPrefix(loc, tb.env.base)
}

// shot saves a screenshot of the top of the page as <test>-<name>.png.
func (tb *tab) shot(name string) {
	_, _ = chromedp.Run(tb.ctx, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	buf, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		tb.t.Logf("screenshot %s: %v", name, err)
		return
	}
	file := filepath.Join(tb.env.shots, fmt.Sprintf("%s-%s.png", sanitize(tb.t.Name()), sanitize(name)))
	if err := os.WriteFile(file, buf, 0o644); err != nil {
		tb.t.Errorf("save screenshot: %v", err)
	}
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-':
			return r
		}
		return '_'
	}, s)
}

// testID is a CSS selector for a data-testid.
func testID(id string) string { return `[data-testid="` + id + `"]` }
