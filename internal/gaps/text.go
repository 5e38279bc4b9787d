package gaps

import (
	"fmt"
	"io"
	"strings"
)

// IncidentURL and PlaybookURL are the portal paths of what a check cites;
// a playbook reference may carry a section (memory#node-memorypressure...).
func IncidentURL(base, id string) string { return base + "/incidents/" + id }

// PlaybookURL is the path of a playbook, or of one of its sections.
func PlaybookURL(base, ref string) string { return base + "/playbooks/" + ref }

// WriteText prints a report for a terminal: the findings and errors by
// severity, worst first, each with its objects, the fix and the links to
// the incidents and playbooks behind it; the passed checks in one line at
// the end. base is prefixed to links (the portal's URL), or "".
func WriteText(w io.Writer, rep *Report, base string) error {
	found, passed, errs := rep.Counts()
	fmt.Fprintf(w, "Gap checks on %s, read %s", orDash(rep.Source), rep.CollectedAt.Format("2006-01-02 15:04 MST"))
	if rep.ServerVersion != "" {
		fmt.Fprintf(w, " (Kubernetes %s)", rep.ServerVersion)
	}
	if len(rep.Scope.Namespaces) > 0 || rep.Scope.NodeSelector != "" {
		fmt.Fprintf(w, "\nscope: namespaces %s; nodes %s", orAll(strings.Join(rep.Scope.Namespaces, ",")), orAll(rep.Scope.NodeSelector))
	}
	fmt.Fprintf(w, "\n%d found, %d errors, %d passed\n", found, errs, passed)
	var sev Severity
	var ok []string
	for _, r := range rep.Results {
		if r.Status == StatusPassed {
			ok = append(ok, r.ID)
			continue
		}
		if r.Severity != sev {
			sev = r.Severity
			fmt.Fprintf(w, "\n%s\n", strings.ToUpper(sev.String()))
		}
		fmt.Fprintf(w, "\n  [%s] %s: %s\n", r.Status, r.ID, r.Title)
		if r.Status == StatusError {
			fmt.Fprintf(w, "    could not check: %s\n", r.Error)
		} else {
			fmt.Fprintf(w, "    %s\n", r.Message)
			for _, o := range r.Objects {
				if o.Detail != "" {
					fmt.Fprintf(w, "    - %s: %s\n", o.Object, o.Detail)
				} else {
					fmt.Fprintf(w, "    - %s\n", o.Object)
				}
			}
			if r.Count > len(r.Objects) {
				fmt.Fprintf(w, "    ... and %d more\n", r.Count-len(r.Objects))
			}
			if r.Partial != "" {
				fmt.Fprintf(w, "    (partial: %s)\n", r.Partial)
			}
			fmt.Fprintf(w, "    fix: %s\n", indent(r.Fix, "         "))
		}
		for _, id := range r.Incidents {
			fmt.Fprintf(w, "    incident: %s %s\n", id, IncidentURL(base, id))
		}
		for _, pb := range r.Playbooks {
			fmt.Fprintf(w, "    playbook: %s\n", PlaybookURL(base, pb))
		}
	}
	if len(ok) > 0 {
		fmt.Fprintf(w, "\npassed: %s\n", strings.Join(ok, ", "))
	}
	return nil
}

func indent(s, pad string) string {
	return strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n"+pad)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func orAll(s string) string {
	if s == "" {
		return "all"
	}
	return s
}
