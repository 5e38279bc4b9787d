// Package triage routes a symptom to the right section of the right
// playbook. It holds two things loaded from library/triage: decision trees
// (one question per node, answered by a person, a probe of a live cluster, or
// a pasted text) and a catalogue of signals, the exact messages operators see
// and the route each one implies. The package is pure: it reads an fs.FS and
// nothing else, so the web UI, the CLI and the cluster reader share it.
//
// # Trees
//
// Every triage/*.yaml file except signals.yaml is a tree:
//
//	id: pending                  # tree id, also the URL's tree parameter
//	title: Pod stays Pending
//	root: true                   # only on the chooser a triage starts from
//	start: pending-reason        # first node
//	nodes:
//	  - id: pending-reason       # unique across all trees
//	    question: What does the FailedScheduling event say?
//	    help: How to read the evidence.
//	    command: kubectl describe pod <pod> | sed -n '/^Events:/,$p'
//	    probe: scheduler-message # optional; see Probes
//	    answers:
//	      - {id: taint, label: "had untolerated taint", next: out-pending-taint}
//	  - id: out-pending-taint
//	    outcome:
//	      route: pending/untolerated-taint   # stable id, see Routes
//	      playbook: pod-pending
//	      section: cause-c-untolerated-taint # a heading anchor of the playbook
//	      diagnosis: One line.
//	      commands: [...]
//	      mitigation: [...]
//	      verify: [...]
//
// An answer may lead into another tree (a Pending GPU pod ends in the GPU
// tree), which is why node ids are global. Several outcomes may share a route
// when the route's playbook has a section per case (llm/latency).
//
// # Walking
//
// A walk is replayed from its State, "q1=a,q2~b" (= answered by the person,
// ~ inferred), so the web UI keeps no session: back drops the last answer,
// restart drops them all. Catalog.Walk fills in what the person did not
// answer from Hints: a Prober over a cluster snapshot, and the answers a
// paste implies (Result.Answers).
//
// # Signals
//
// triage/signals.yaml lists patterns with the route they imply and a weight;
// see the comment at its top. Catalog.Classify matches them against a paste,
// parses scheduler messages reason by reason, and ranks routes.
package triage
