package triage

import (
	"os"
	"strings"
	"testing"

	"casebook/internal/library"
)

// TestLintBroken loads a library whose trees and signals are broken in
// every way lint knows about and checks each problem names its file and
// line.
func TestLintBroken(t *testing.T) {
	c, problems := Load(os.DirFS("testdata/broken"))
	anchors := map[string][]string{"pod-pending": {"cause-a-insufficient-resources", "cause-c-untolerated-taint"}}
	problems = append(problems, c.Lint(anchors)...)
	library.SortProblems(problems)
	var got []string
	for _, p := range problems {
		got = append(got, p.String())
	}
	want := []string{
		"triage/loop.yaml:14: question second: needs at least two answers",
		"triage/loop.yaml:17: cycle: first -> second -> first",
		"triage/loop.yaml:20: node out-loop: has both a question and an outcome",
	}
	// Only the two routes of the broken root tree have a reachable outcome.
	for _, r := range Routes {
		if r != "pending/insufficient-resources" && r != "pending/untolerated-taint" {
			want = append(want, "triage/root.yaml:1: route "+r+" has no outcome reachable from the root tree")
		}
	}
	want = append(want,
		`triage/root.yaml:6: question symptom: probe pod-symptom may answer "gpu-missing", which is not an answer here`,
		`triage/root.yaml:6: question symptom: probe pod-symptom may answer "restarts", which is not an answer here`,
		`triage/root.yaml:6: question symptom: probe pod-symptom may answer "slow", which is not an answer here`,
		`triage/root.yaml:6: question symptom: probe pod-symptom may answer "probe-failure", which is not an answer here`,
		`triage/root.yaml:6: question symptom: probe pod-symptom may answer "node-not-ready", which is not an answer here`,
		`triage/root.yaml:6: question symptom: probe pod-symptom may answer "dns", which is not an answer here`,
		`triage/root.yaml:6: question symptom: probe pod-symptom may answer "nccl", which is not an answer here`,
		`triage/root.yaml:6: question symptom: probe pod-symptom may answer "control-plane", which is not an answer here`,
		`triage/root.yaml:6: question symptom: probe pod-symptom may answer "workload", which is not an answer here`,
		`triage/root.yaml:6: question symptom: probe pod-symptom may answer "traffic", which is not an answer here`,
		`triage/root.yaml:6: question symptom: probe pod-symptom may answer "api-refused", which is not an answer here`,
		`triage/root.yaml:6: question symptom: probe pod-symptom may answer "storage", which is not an answer here`,
		`triage/root.yaml:6: question symptom: probe pod-symptom may answer "autoscaling", which is not an answer here`,
		`triage/root.yaml:13: question symptom: answer gone leads to unknown node "no-such-node"`,
		`triage/root.yaml:13: question symptom: probe pod-symptom never answers "gone"`,
		`triage/root.yaml:18: node: unknown field "colour"`,
		`triage/root.yaml:26: outcome out-a: playbook pod-pending has no section #cause-a-insuficient-resources (did you mean #cause-a-insufficient-resources?)`,
		`triage/root.yaml:35: outcome out-b: unknown playbook "no-such-playbook"`,
		`triage/root.yaml:44: node orphan is unreachable: no answer leads to it`,
		`triage/signals.yaml:2: explains: route "no/such-route" has no outcome`,
		"triage/signals.yaml:8: signal bad-regex: bad regex: error parsing regexp: missing closing ): `(?i)Insufficient (cpu`",
		`triage/signals.yaml:12: signal no-outcome: route "pending/volume" has no outcome`,
		`triage/signals.yaml:16: signal bad-answer: no question "nowhere"`,
		`triage/signals.yaml:16: signal bad-answer: question reason has no answer "c"`,
		`triage/signals.yaml:21: signal heavy: weight must be above 0 and at most 1`,
		`triage/signals.yaml:25: signal id "good" already used on line 4`,
		"triage/signals.yaml:29: signal bad-unless: bad unless regex: error parsing regexp: missing closing ): `(?i)configmap (cache`",
		`triage/syntax.yaml:5: invalid YAML: yaml: line 5: found unexpected end of stream`,
		`triage/twins.yaml:8: node out-twins outcome: mitigation_ko has 1 items, mitigation 2`,
		`triage/twins.yaml:8: node out-twins outcome: verify_ko has 2 items, verify 1`,
	)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\n\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestKoProblems loads trees with Korean twins missing and checks that
// lint names each text left without one, and nothing in a complete tree.
func TestKoProblems(t *testing.T) {
	c, problems := Load(os.DirFS("testdata/ko"))
	for _, p := range problems {
		t.Errorf("load: %s", p)
	}
	var got []string
	for _, p := range c.KoProblems() {
		got = append(got, p.String())
	}
	want := []string{
		"triage/root.yaml:2: tree root: title has no title_ko",
		"triage/root.yaml:9: node symptom: help has no help_ko",
		"triage/root.yaml:18: node symptom answer slow: label has no label_ko",
		"triage/root.yaml:35: node out-slow outcome: diagnosis has no diagnosis_ko",
		"triage/root.yaml:35: node out-slow outcome: mitigation has 1 items, mitigation_ko 0",
		"triage/root.yaml:35: node out-slow outcome: verify has 1 items, verify_ko 0",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\n\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
