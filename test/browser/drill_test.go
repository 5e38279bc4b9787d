package browser

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestDrill plays one drill end to end in the browser: open it from the
// list, type commands into the terminal (one of them a write the drill
// refuses), choose a route, write a recovery direction, and read the
// debrief; then reopen the debrief's address in a fresh tab and see the
// same verdict, since the whole attempt is in the URL.
func TestDrill(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tb := e.tab(t)
	tb.open("/drills")
	tb.shot("01-list")
	tb.follow("open the drill", chromedp.Click(chromedp.CSS(testID("drill")+`[data-id="gpu-pool-taint"] a.drill-title`)))
	if !strings.Contains(tb.location(), "t=") {
		t.Fatalf("opening a drill did not start its clock: %s", tb.location())
	}
	if got := eval[string](tb, `document.querySelector('[data-testid="drill-start"]').textContent`); !strings.Contains(got, "Pending") {
		t.Errorf("starting symptom %q", got)
	}

	run := func(cmd string) {
		t.Helper()
		tb.do("type "+cmd, chromedp.SetValue(chromedp.CSS(testID("cmd-input")), cmd))
		tb.follow("run "+cmd, chromedp.Click(chromedp.CSS(testID("cmd-run"))))
	}
	run("kubectl describe pod glue-finetune-4xk2p")
	run("kubectl delete pod glue-finetune-4xk2p")
	if got := eval[string](tb, `document.querySelector('[data-testid="cmd-error"]').textContent`); !strings.Contains(got, "read-only") {
		t.Errorf("the write was not refused: %q", got)
	}
	run("kubectl describe node gke-train-gpu-t4-7b2e90d1-2mqs")
	tb.shot("02-terminal")
	if n := eval[int](tb, `document.querySelectorAll('[data-testid="step"]').length`); n != 2 {
		t.Errorf("%d commands in the terminal, want 2 (the refused write is not one)", n)
	}
	out := eval[string](tb, `[...document.querySelectorAll('[data-testid="step"] pre.out')].map(p => p.textContent).join('\n')`)
	for _, want := range []string{"2 node(s) had untolerated taint(s)", "nvidia.com/gpu=present:NoSchedule"} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal output lacks %q", want)
		}
	}

	tb.do("choose the route", chromedp.SetValue(chromedp.CSS(testID("route-select")), "pending/untolerated-taint"))
	tb.do("write the recovery", chromedp.SendKeys(chromedp.CSS(testID("recovery")), "Add a toleration for nvidia.com/gpu to the job template."))
	tb.follow("submit", chromedp.Click(chromedp.CSS(testID("submit-answer"))))
	tb.shot("03-debrief")
	debrief := tb.location()
	if !strings.Contains(debrief, "/drills/gpu-pool-taint/debrief?") || strings.Contains(debrief, "t=") || !strings.Contains(debrief, "e=") {
		t.Fatalf("debrief URL %s", debrief)
	}
	check := func(tb *tab) {
		t.Helper()
		if v := eval[string](tb, `document.querySelector('[data-testid="verdict"]').dataset.verdict`); v != "exact" {
			t.Errorf("verdict %q, want exact", v)
		}
		if n := eval[int](tb, `document.querySelectorAll('[data-testid="found"] li').length`); n != 2 {
			t.Errorf("%d evidence found, want 2", n)
		}
		if s := eval[string](tb, `document.querySelector('[data-testid="score"]').textContent`); !strings.Contains(s, "/100") {
			t.Errorf("score %q", s)
		}
		if !eval[bool](tb, `!!document.querySelector('[data-testid="incidents"] a[href="/incidents/IL-0245"]')`) {
			t.Error("the debrief does not link the incident")
		}
		if got := eval[string](tb, `document.querySelector('[data-testid="your-recovery"]').textContent`); !strings.Contains(got, "toleration") {
			t.Errorf("recovery %q", got)
		}
	}
	check(tb)
	// The incident it is modelled on opens from the debrief.
	tb.follow("open the incident", chromedp.Click(chromedp.CSS(testID("incidents")+` a[href="/incidents/IL-0245"]`)))
	if !strings.HasPrefix(tb.location(), "/incidents/IL-0245") {
		t.Errorf("incident link led to %s", tb.location())
	}

	// Shared: the same address in a fresh tab shows the same debrief.
	other := e.tab(t)
	other.open(debrief)
	check(other)

	// The facilitator's brief prints the hints.
	other.open("/drills/gpu-pool-taint/brief")
	if n := eval[int](other, `document.querySelectorAll('[data-testid="hints"] li').length`); n < 2 {
		t.Errorf("%d hints in the brief", n)
	}
}
