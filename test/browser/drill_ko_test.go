package browser

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestDrillKorean plays a second drill in Korean: the list, the runner and
// the debrief speak Korean (no English interface words), the scenario and
// the evidence's explanations are the drill's Korean text, the kubectl
// output stays as kubectl prints it, and a wrong route (the decoy) is
// graded as such.
func TestDrillKorean(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	english := englishWords()
	// Its own browser context: the language cookie stays out of the other
	// tests' tabs.
	tb := e.tab(t, chromedp.WithNewBrowserContext())
	tb.open("/drills?lang=ko")
	if n := eval[int](tb, `document.querySelectorAll('[data-testid="drill"]').length`); n < 20 {
		t.Errorf("%d drills listed, want at least 20", n)
	}
	if got := eval[string](tb, `document.querySelector('[data-testid="drill"][data-id="pv-zone-conflict"] a.drill-title').textContent`); got != "노드 그룹 AMI 업데이트 뒤 Prometheus가 Pending에서 벗어나지 못함" {
		t.Errorf("the drill's title in Korean: %q", got)
	}
	href := eval[string](tb, `document.querySelector('[data-testid="drill"][data-id="pv-zone-conflict"] a.drill-title').getAttribute('href')`)
	dropDrillContent(tb)
	assertKorean(t, tb, "drills-ko", english)
	tb.open(href)
	if !strings.Contains(tb.location(), "t=") {
		t.Fatalf("opening the drill did not start its clock: %s", tb.location())
	}
	tb.shot("ko-01-run")
	if got := eval[string](tb, `document.querySelector('[data-testid="drill-start"]').textContent`); !strings.Contains(got, "더 큰 노드를 하나 추가하면 될까요") {
		t.Errorf("the starting symptom is not the drill's Korean text: %q", got)
	}
	dropDrillContent(tb)
	assertKorean(t, tb, "drill-run-ko", english)

	run := func(cmd string) {
		t.Helper()
		tb.do("type "+cmd, chromedp.SetValue(chromedp.CSS(testID("cmd-input")), cmd))
		tb.follow("run "+cmd, chromedp.Click(chromedp.CSS(testID("cmd-run"))))
	}
	run("kubectl describe pod prometheus-server-0 -n monitoring")
	run("kubectl get nodes -L topology.kubernetes.io/zone")
	out := eval[string](tb, `[...document.querySelectorAll('[data-testid="step"] pre.out')].map(p => p.textContent).join('\n')`)
	for _, want := range []string{"1 Insufficient memory, 1 node(s) didn't match PersistentVolume's node affinity", "eu-west-2c"} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal output lacks %q", want)
		}
	}
	// Take the decoy.
	tb.do("choose the decoy", chromedp.SetValue(chromedp.CSS(testID("route-select")), "pending/insufficient-resources"))
	tb.do("write the recovery", chromedp.SendKeys(chromedp.CSS(testID("recovery")), "메모리가 큰 노드를 추가합니다."))
	tb.follow("submit", chromedp.Click(chromedp.CSS(testID("submit-answer"))))
	tb.shot("ko-02-debrief")
	if v := eval[string](tb, `document.querySelector('[data-testid="verdict"]').dataset.verdict`); v == "exact" {
		t.Errorf("the decoy's route was graded %q", v)
	}
	if !eval[bool](tb, `!!document.querySelector('[data-testid="decoy"]')`) {
		t.Error("the debrief does not explain the decoy")
	} else if got := eval[string](tb, `document.querySelector('[data-testid="decoy"]').textContent`); !strings.Contains(got, "zone") || !strings.Contains(got, "노드") {
		t.Errorf("the decoy is not explained in Korean: %q", got)
	}
	if n := eval[int](tb, `document.querySelectorAll('[data-testid="found"] li').length`); n < 2 {
		t.Errorf("%d evidence lines found, want the scheduler message and the zones", n)
	}
	if !eval[bool](tb, `!!document.querySelector('[data-testid="incidents"] a[href^="/incidents/IL-0041"]')`) {
		t.Error("the debrief does not link the incident")
	}
	dropDrillContent(tb)
	assertKorean(t, tb, "drill-debrief-ko", english)
}

// dropDrillContent removes from the page what a drill's author wrote (its
// titles, scenario, evidence and explanations, which keep instance types,
// field values and kubectl's words as they are, and which lint checks for
// a Korean twin) and the command prompt's example (a kubectl command), so
// that what assertKorean reads is the interface alone. Call it after the
// page has been read for anything else.
func dropDrillContent(tb *tab) {
	tb.t.Helper()
	eval[bool](tb, `(() => {
  document.querySelectorAll('.drill-title, [data-testid="drill-start"], [data-testid="found"], [data-testid="missed"],' +
    ' [data-testid="evidence"], [data-testid="decoy"], [data-testid="decoy-seen"], [data-testid="recovery-direction"],' +
    ' [data-testid="your-recovery"], [data-testid="drill-summary"] p').forEach(e => e.remove());
  document.querySelectorAll('[data-testid="cmd-input"]').forEach(e => e.removeAttribute('placeholder'));
  return true;
})()`)
}
