// Package kubectl renders what a snapshot recorded as the output of the
// read-only kubectl commands an on-call engineer runs first (get pods,
// describe pod, get events, get and describe nodes, logs, quotas, claims,
// the GPU stack's DaemonSets), in kubectl's own layout. It backs the drill
// runner: a person investigates a recorded broken cluster by typing the
// commands they would type, and reads the output they would read.
//
// The output is a faithful subset: every line printed is a line kubectl
// prints for the same objects (ages counted to the moment the snapshot was
// taken), and what the snapshot does not record (annotations, IPs, mounts,
// environment) is left out rather than made up.
package kubectl

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// humanDuration is apimachinery's duration.HumanDuration, the age format of
// every kubectl table and describe output.
func humanDuration(d time.Duration) string {
	if seconds := int(d.Seconds()); seconds < -1 {
		return "<invalid>"
	} else if seconds < 0 {
		return "0s"
	} else if seconds < 60*2 {
		return fmt.Sprintf("%ds", seconds)
	}
	minutes := int(d / time.Minute)
	if minutes < 10 {
		s := int(d/time.Second) % 60
		if s == 0 {
			return fmt.Sprintf("%dm", minutes)
		}
		return fmt.Sprintf("%dm%ds", minutes, s)
	} else if minutes < 60*3 {
		return fmt.Sprintf("%dm", minutes)
	}
	hours := int(d / time.Hour)
	switch {
	case hours < 8:
		m := int(d/time.Minute) % 60
		if m == 0 {
			return fmt.Sprintf("%dh", hours)
		}
		return fmt.Sprintf("%dh%dm", hours, m)
	case hours < 48:
		return fmt.Sprintf("%dh", hours)
	case hours < 24*8:
		h := hours % 24
		if h == 0 {
			return fmt.Sprintf("%dd", hours/24)
		}
		return fmt.Sprintf("%dd%dh", hours/24, h)
	case hours < 24*365*2:
		return fmt.Sprintf("%dd", hours/24)
	case hours < 24*365*8:
		dy := (hours / 24) % 365
		if dy == 0 {
			return fmt.Sprintf("%dy", hours/24/365)
		}
		return fmt.Sprintf("%dy%dd", hours/24/365, dy)
	}
	return fmt.Sprintf("%dy", hours/24/365)
}

// age is kubectl's translateTimestampSince, counted to now (the moment the
// snapshot was taken).
func age(t, now time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return humanDuration(now.Sub(t))
}

// describeTime is the time format of describe output (RFC 1123 with a
// numeric zone).
func describeTime(t time.Time) string { return t.Format(time.RFC1123Z) }

// table writes rows the way kubectl's table printer does: columns padded
// by three spaces (tabwriter minwidth 6, tabwidth 4, padding 3).
type table struct {
	buf bytes.Buffer
	tw  *tabwriter.Writer
}

func newTable(header ...string) *table {
	t := &table{}
	t.tw = tabwriter.NewWriter(&t.buf, 6, 4, 3, ' ', 0)
	t.row(header...)
	return t
}

func (t *table) row(cells ...string) {
	fmt.Fprintln(t.tw, strings.Join(cells, "\t"))
}

func (t *table) String() string {
	_ = t.tw.Flush()
	return t.buf.String()
}

// describer writes describe output: kubectl's PrefixWriter over a
// tabwriter (minwidth 0, tabwidth 8, padding 2), two spaces of indent per
// level.
type describer struct {
	buf bytes.Buffer
	tw  *tabwriter.Writer
}

func newDescriber() *describer {
	d := &describer{}
	d.tw = tabwriter.NewWriter(&d.buf, 0, 8, 2, ' ', 0)
	return d
}

func (d *describer) w(level int, format string, args ...any) {
	fmt.Fprint(d.tw, strings.Repeat("  ", level))
	fmt.Fprintf(d.tw, format, args...)
}

func (d *describer) String() string {
	_ = d.tw.Flush()
	return d.buf.String()
}

// labels writes a map as describe does: the first pair after the field
// name, the others aligned under it, "<none>" when empty.
func (d *describer) labels(level int, field string, m map[string]string) {
	if len(m) == 0 {
		d.w(level, "%s:\t<none>\n", field)
		return
	}
	keys := sortedKeys(m)
	for i, k := range keys {
		if i == 0 {
			d.w(level, "%s:\t%s=%s\n", field, k, m[k])
			continue
		}
		d.w(level, "\t%s=%s\n", k, m[k])
	}
}

// list writes lines as describe writes taints and tolerations: the first
// after the field name, the others aligned under it.
func (d *describer) list(level int, field string, items []string) {
	if len(items) == 0 {
		d.w(level, "%s:\t<none>\n", field)
		return
	}
	for i, it := range items {
		if i == 0 {
			d.w(level, "%s:\t%s\n", field, it)
			continue
		}
		d.w(level, "\t%s\n", it)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}
