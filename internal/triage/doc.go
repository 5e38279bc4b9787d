// Package triage routes a symptom to the right section of the right
// playbook. It holds two things loaded from library/triage: decision trees
// (one question per node, answered by a person, a probe of a live cluster, or
// a pasted text) and a catalogue of signals, the exact messages operators see
// and the route each one implies. The package is pure: it reads an fs.FS and
// nothing else, so the web UI, the CLI and the cluster reader share it.
package triage
