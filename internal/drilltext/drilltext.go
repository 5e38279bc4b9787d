// Package drilltext words a drill's fixed labels (verdicts, kinds,
// difficulties, families) from the message catalogue, for the three doors
// that show drills: the pages, the terminal and the MCP tools.
package drilltext

import (
	"casebook/internal/drill"
	"casebook/internal/i18n"
)

// Verdict is the sentence for a route verdict.
func Verdict(p *i18n.Printer, v string) string {
	switch v {
	case drill.RouteExact:
		return p.T("drill.verdict_exact")
	case drill.RouteFamily:
		return p.T("drill.verdict_family")
	case drill.RouteDecoy:
		return p.T("drill.verdict_decoy")
	case drill.RouteWrong:
		return p.T("drill.verdict_wrong")
	}
	return p.T("drill.verdict_none")
}

// Kind names where a starting symptom came from.
func Kind(p *i18n.Printer, k string) string {
	switch k {
	case "alert":
		return p.T("drill.kind_alert")
	case "message":
		return p.T("drill.kind_message")
	case "ticket":
		return p.T("drill.kind_ticket")
	}
	return k
}

// Difficulty names a difficulty.
func Difficulty(p *i18n.Printer, d drill.Difficulty) string {
	switch d {
	case drill.Easy:
		return p.T("drill.difficulty_easy")
	case drill.Hard:
		return p.T("drill.difficulty_hard")
	}
	return p.T("drill.difficulty_medium")
}

// Family names a route family.
func Family(p *i18n.Printer, id string) string {
	switch id {
	case "scheduling":
		return p.T("drill.family_scheduling")
	case "gpu":
		return p.T("drill.family_gpu")
	case "memory":
		return p.T("drill.family_memory")
	case "cpu":
		return p.T("drill.family_cpu")
	case "llm":
		return p.T("drill.family_llm")
	case "pods":
		return p.T("drill.family_pods")
	case "nodes":
		return p.T("drill.family_nodes")
	case "network":
		return p.T("drill.family_network")
	case "control-plane":
		return p.T("drill.family_control_plane")
	}
	return id
}

// Lang is "ko" or "en", for drill.Text.In.
func Lang(p *i18n.Printer) string {
	if p.Lang().Korean() {
		return "ko"
	}
	return "en"
}
