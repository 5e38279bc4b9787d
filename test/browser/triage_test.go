package browser

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// describeTaint is a kubectl describe of a GPU pod held Pending by a taint,
// with the event line buried at the end as it is on a real screen.
const describeTaint = `Name:             llm-0
Namespace:        team-a
Priority:         0
Service Account:  default
Node:             <none>
Labels:           app=llm
Status:           Pending
IP:
Containers:
  server:
    Image:      vllm/vllm-openai:v0.6.3
    Limits:
      nvidia.com/gpu:  1
    Requests:
      nvidia.com/gpu:  1
Conditions:
  Type           Status
  PodScheduled   False
QoS Class:       BestEffort
Node-Selectors:  <none>
Tolerations:     node.kubernetes.io/not-ready:NoExecute op=Exists for 300s
                 node.kubernetes.io/unreachable:NoExecute op=Exists for 300s
Events:
  Type     Reason            Age   From               Message
  ----     ------            ----  ----               -------
  Warning  FailedScheduling  42s   default-scheduler  0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 node(s) had untolerated taint {nvidia.com/gpu: present}. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.
`

func TestTriageWizard(t *testing.T) {
	t.Parallel()
	e := newEnv(t)

	t.Run("walk, back, restart", func(t *testing.T) {
		tb := e.tab(t)
		tb.open("/triage")
		tb.shot("01-start")
		n := eval[int](tb, `document.querySelectorAll('[data-testid="start"] [data-testid="answer"]').length`)
		if n < 3 {
			t.Fatalf("first screen offers %d symptoms", n)
		}
		// Pick "Pending" and keep answering with the first choice until an
		// outcome; a well-formed tree gets there in a few steps.
		tb.follow("pick the first symptom", chromedp.Click(chromedp.CSS(`[data-testid="start"] [data-testid="answer"]`)))
		var questions []string
		for step := 0; step < 12; step++ {
			if eval[bool](tb, `!!document.querySelector('[data-testid="outcome"]')`) {
				break
			}
			q := eval[string](tb, `document.querySelector('[data-testid="question"]').dataset.question`)
			questions = append(questions, q)
			if !strings.Contains(tb.location(), "tree=") {
				t.Fatalf("walk state is not in the URL: %s", tb.location())
			}
			tb.follow("answer "+q, chromedp.Click(chromedp.CSS(`[data-testid="question"] [data-testid="answer"]`)))
		}
		if !eval[bool](tb, `!!document.querySelector('[data-testid="outcome"]')`) {
			t.Fatalf("no outcome after answering %v", questions)
		}
		route := eval[string](tb, `document.querySelector('[data-testid="route"]').textContent`)
		if !strings.Contains(route, "/") {
			t.Errorf("outcome route %q", route)
		}
		crumbs := eval[int](tb, `document.querySelectorAll('[data-testid="crumb"]').length`)
		if crumbs != len(questions)+1 {
			t.Errorf("%d breadcrumbs for %d answers", crumbs, len(questions)+1)
		}
		if eval[string](tb, `document.querySelector('[data-testid="playbook-link"]').getAttribute('href')`) == "" {
			t.Error("outcome without a playbook link")
		}
		tb.shot("02-outcome")

		// A shared link reproduces the page: the state is all in the URL.
		loc := tb.location()
		tb.open(loc)
		if got := eval[string](tb, `document.querySelector('[data-testid="route"]').textContent`); got != route {
			t.Errorf("reloading %s shows route %q, want %q", loc, got, route)
		}

		tb.follow("back", chromedp.Click(chromedp.CSS(testID("back"))))
		if !eval[bool](tb, `!!document.querySelector('[data-testid="question"]')`) {
			t.Error("back from the outcome does not show the last question")
		}
		if len(questions) > 0 {
			if got := eval[string](tb, `document.querySelector('[data-testid="question"]').dataset.question`); got != questions[len(questions)-1] {
				t.Errorf("back shows question %s, want %s", got, questions[len(questions)-1])
			}
		}
		tb.follow("restart", chromedp.Click(chromedp.CSS(testID("restart"))))
		if !eval[bool](tb, `!!document.querySelector('[data-testid="start"]') && !document.querySelector('[data-testid="crumb"]')`) {
			t.Error("restart does not return to the first screen")
		}
	})

	t.Run("paste a describe", func(t *testing.T) {
		tb := e.tab(t)
		tb.open("/triage")
		tb.do("paste", chromedp.SetValue(chromedp.CSS(testID("paste-text")), describeTaint))
		tb.follow("submit the paste", chromedp.Click(chromedp.CSS(testID("paste-submit"))))
		first := eval[string](tb, `document.querySelector('[data-testid="paste-route"]').dataset.route`)
		if first != "pending/untolerated-taint" {
			t.Fatalf("best route %q, want pending/untolerated-taint", first)
		}
		ev := eval[string](tb, `document.querySelector('[data-testid="paste-route"] [data-testid="evidence"]').textContent`)
		if !strings.Contains(ev, "untolerated taint {nvidia.com/gpu: present}") {
			t.Errorf("evidence does not show the event line: %q", ev)
		}
		tb.shot("03-paste")
		tb.follow("continue in the wizard", chromedp.Click(chromedp.CSS(testID("paste-continue"))))
		if n := eval[int](tb, `document.querySelectorAll('[data-testid="inferred"]').length`); n == 0 {
			t.Error("no answers marked as inferred after a paste")
		}
		if eval[bool](tb, `!!document.querySelector('[data-testid="outcome"]')`) {
			if got := eval[string](tb, `document.querySelector('[data-testid="route"]').textContent`); got != "pending/untolerated-taint" {
				t.Errorf("the paste lands on %s", got)
			}
		}
		tb.shot("04-after-paste")
	})

	t.Run("an unknown error ends in the library", func(t *testing.T) {
		tb := e.tab(t)
		tb.open("/triage")
		text := "Warning: php_network_getaddresses: getaddrinfo for db-primary.payments failed: Try again\n" +
			"the resolver in the cluster (CoreDNS) answered nothing\n"
		tb.do("paste", chromedp.SetValue(chromedp.CSS(testID("paste-text")), text))
		tb.follow("submit the paste", chromedp.Click(chromedp.CSS(testID("paste-submit"))))
		if !eval[bool](tb, `!!document.querySelector('[data-testid="paste-weak"], [data-testid="paste-empty"]')`) {
			t.Error("the page does not say that nothing matched with confidence")
		}
		// The symptom picker comes before the weak guesses.
		if !eval[bool](tb, `(() => { const s = document.querySelector('[data-testid="start"]'), r = document.querySelector('[data-testid="paste-result"]');
			return !!s && !!r && !!(s.compareDocumentPosition(r) & Node.DOCUMENT_POSITION_FOLLOWING) })()`) {
			t.Error("the symptom picker is not above the paste's result")
		}
		links := eval[[]string](tb, `[...document.querySelectorAll('[data-testid="paste-related"] a')].map(a => a.getAttribute('href'))`)
		if len(links) == 0 {
			t.Fatal("no related incidents or playbooks")
		}
		incidents := 0
		for _, l := range links {
			if strings.HasPrefix(l, "/incidents/IL-") {
				incidents++
			}
		}
		if incidents == 0 {
			t.Errorf("no incident among the related links %v", links)
		}
		tb.shot("05-paste-no-dead-end")
	})
}
