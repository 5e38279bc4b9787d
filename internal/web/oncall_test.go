package web_test

import (
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// TestPasteKeepsContext: the on-call paste of issue 34 gives one card that
// reads both scheduler reasons, taint first, with commands, mitigation and
// the recovery check filled with the pod and namespace it names, and links
// that carry them on.
func TestPasteKeepsContext(t *testing.T) {
	h := newHandler(t)
	data, err := os.ReadFile("../triage/testdata/pastes/false-01-vllm-probe-settings-and-preemption-tail.txt")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(l, "#!") {
			lines = append(lines, l)
		}
	}
	paste := strings.Join(lines, "\n")
	for _, lang := range []string{"", "?lang=ko"} {
		doc := postPaste(t, h, "/triage"+lang, paste)
		cards := doc.Find(`[data-testid="paste-route"]`)
		if cards.Length() != 1 {
			t.Errorf("%s: %d cards, want 1", lang, cards.Length())
		}
		if n := doc.Find(`[data-route="pod/probe-failure"], [data-route="pending/preemption-failed"]`).Length(); n != 0 {
			t.Errorf("%s: %d false cards", lang, n)
		}
		reasons := cards.First().Find(`[data-testid="sched-reason"]`)
		if reasons.Length() != 2 || !strings.Contains(reasons.First().Text(), "taint") || !strings.Contains(reasons.First().Text(), "4") {
			t.Errorf("%s: reasons %q", lang, reasons.Text())
		}
		cmds := cards.First().Find(`[data-testid="first-commands"]`).Text()
		if !strings.Contains(cmds, "vllm-llama3-8b-7d9c6b5f4-k2m8p -n llm-serving") || strings.Contains(cmds, "<pod>") {
			t.Errorf("%s: commands not filled: %q", lang, cmds)
		}
		if cards.First().Find(`[data-testid="paste-mitigation"] li`).Length() == 0 || cards.First().Find(`[data-testid="paste-verify"] li`).Length() == 0 {
			t.Errorf("%s: the first card lacks mitigation or the recovery check", lang)
		}
		for _, id := range []string{"paste-playbook", "paste-continue"} {
			href, _ := doc.Find(`[data-testid="` + id + `"]`).Attr("href")
			if !strings.Contains(href, "pod=vllm-llama3-8b-7d9c6b5f4-k2m8p") || !strings.Contains(href, "namespace=llm-serving") {
				t.Errorf("%s: %s link %q drops the pod", lang, id, href)
			}
		}
	}
	// The playbook section opened from the card names the pod too.
	doc := page(t, h, "/playbooks/pod-pending?pod=vllm-0&namespace=llm-serving", http.StatusOK)
	if body := doc.Find("main").Text(); !strings.Contains(body, "-n llm-serving") {
		t.Error("the playbook's commands are not filled")
	}
}

// TestWizardGPUNode: the GPU questions ask for the node once and then
// select that node's pods in whatever namespace the operator runs; the
// toolkit question ships a test pod pinned to the node.
func TestWizardGPUNode(t *testing.T) {
	h := newHandler(t)
	doc := page(t, h, "/triage?tree=gpu-missing", http.StatusOK)
	if doc.Find(`[data-testid="node-ask"]`).Length() != 1 {
		t.Fatal("the GPU question does not ask for the node")
	}
	doc = page(t, h, "/triage?tree=gpu-missing&node=gpu-node-7", http.StatusOK)
	cmd := doc.Find(`[data-testid="question-command"]`).Text()
	if !strings.Contains(cmd, "--field-selector spec.nodeName=gpu-node-7") || strings.Contains(cmd, "gpu-operator") || strings.Contains(cmd, "<gpu-node>") {
		t.Errorf("driver command %q", cmd)
	}
	if doc.Find(`[data-testid="node-ask"]`).Length() != 0 {
		t.Error("asked for the node again")
	}
	href, _ := doc.Find(`[data-testid="answer"]`).First().Attr("href")
	if !strings.Contains(href, "node=gpu-node-7") {
		t.Errorf("the answer link %q drops the node", href)
	}
	doc = page(t, h, href, http.StatusOK)
	if cmd := doc.Find(`[data-testid="question-command"]`).Text(); !strings.Contains(cmd, "nodeName: gpu-node-7") || !strings.Contains(cmd, "kind: Pod") {
		t.Errorf("toolkit question without a test pod pinned to the node: %q", cmd)
	}
}

// TestHomeStartsWithPaste: / opens with the paste box, the symptoms and
// the first five minutes above the library; /incidents is the library
// alone, and a filtered / still lists.
func TestHomeStartsWithPaste(t *testing.T) {
	h := newHandler(t)
	for _, lang := range []string{"", "?lang=ko"} {
		doc := page(t, h, "/"+lang, http.StatusOK)
		home := doc.Find(`main [data-testid="home"]`)
		if home.Length() != 1 || home.Find(`[data-testid="paste-text"]`).Length() != 1 || home.Find(`[data-testid="answer"]`).Length() < 3 {
			t.Fatalf("%s: no paste box and symptoms on /", lang)
		}
		if href, _ := home.Find(`[data-testid="first-five"]`).Attr("href"); href != "/playbooks/first-five-minutes" {
			t.Errorf("first five minutes link %q", href)
		}
		if doc.Find(`main [data-testid="home"] ~ #library`).Length() != 1 {
			t.Errorf("%s: the library does not follow the paste box", lang)
		}
	}
	for _, target := range []string{"/incidents", "/?page=2"} {
		doc := page(t, h, target, http.StatusOK)
		if doc.Find(`[data-testid="home"]`).Length() != 0 || doc.Find("#library").Length() != 1 {
			t.Errorf("%s: want the library alone", target)
		}
	}
}

// TestCausesJumpLinks: /causes opens with one link per category, each to
// a section of the page.
func TestCausesJumpLinks(t *testing.T) {
	doc := page(t, newHandler(t), "/causes?lang=ko", http.StatusOK)
	links := doc.Find(`[data-testid="causes-jump"] a`)
	if links.Length() == 0 || links.Length() != doc.Find(`[data-testid="cause-category"]`).Length() {
		t.Fatalf("%d jump links for %d categories", links.Length(), doc.Find(`[data-testid="cause-category"]`).Length())
	}
	links.Each(func(_ int, a *goquery.Selection) {
		href, _ := a.Attr("href")
		if !strings.HasPrefix(href, "#") || doc.Find(`section[id="`+href[1:]+`"]`).Length() != 1 {
			t.Errorf("jump link %q leads nowhere", href)
		}
	})
}
