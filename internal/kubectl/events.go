package kubectl

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"casebook/internal/snapshot"
)

// eventFirst is when an event first happened; events written through
// events.k8s.io carry only one time.
func eventFirst(e snapshot.Event) time.Time {
	if !e.FirstTime.IsZero() {
		return e.FirstTime
	}
	return e.LastTime
}

func eventLast(e snapshot.Event) time.Time {
	if !e.LastTime.IsZero() {
		return e.LastTime
	}
	return e.FirstTime
}

// describeEvents writes the Events section of describe output for one
// object.
func describeEvents(d *describer, s *snapshot.Snapshot, kind, ns, name string, now time.Time) {
	var evs []snapshot.Event
	for _, e := range s.Events {
		if e.Object.Kind == kind && e.Object.Name == name && (e.Object.Namespace == ns || e.Object.Namespace == "") {
			evs = append(evs, e)
		}
	}
	if len(evs) == 0 {
		d.w(0, "Events:\t<none>\n")
		return
	}
	d.w(0, "Events:\n")
	d.w(1, "Type\tReason\tAge\tFrom\tMessage\n")
	d.w(1, "----\t------\t----\t----\t-------\n")
	for _, e := range evs {
		interval := age(eventFirst(e), now)
		if e.Count > 1 {
			interval = fmt.Sprintf("%s (x%d over %s)", age(eventLast(e), now), e.Count, age(eventFirst(e), now))
		}
		d.w(1, "%v\t%v\t%s\t%v\t%v\n", e.Type, e.Reason, interval, e.Source, strings.TrimSpace(e.Message))
	}
}

// getEvents is kubectl get events (and kubectl events): every recorded
// event of the namespace in the API server's order, which is the events'
// names: the object's name, a dot, then the time the event was created.
func getEvents(s *snapshot.Snapshot, c Command) string {
	evs := slices.Clone(s.Events)
	slices.SortStableFunc(evs, func(a, b snapshot.Event) int {
		if n := strings.Compare(a.Object.Name+".", b.Object.Name+"."); n != 0 {
			return n
		}
		return eventFirst(a).Compare(eventFirst(b))
	})
	var rows [][]string
	for _, e := range evs {
		ns := e.Object.Namespace
		if ns == "" {
			ns = s.Target.Namespace
		}
		if !c.AllNamespaces && ns != c.Namespace {
			continue
		}
		if c.Name != "" {
			continue // an event is named by the server; nobody types those names
		}
		obj := strings.ToLower(e.Object.Kind)
		if e.Object.Name != "" {
			obj += "/" + e.Object.Name
		}
		row := []string{age(eventLast(e), s.CollectedAt), e.Type, e.Reason, obj, strings.TrimSpace(e.Message)}
		if c.AllNamespaces {
			row = append([]string{ns}, row...)
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return noResources(c)
	}
	header := []string{"LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"}
	if c.AllNamespaces {
		header = append([]string{"NAMESPACE"}, header...)
	}
	t := newTable(header...)
	for _, r := range rows {
		t.row(r...)
	}
	return t.String()
}
