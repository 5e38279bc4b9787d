package cluster_test

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"casebook/internal/cluster"
	"casebook/internal/probe"
	"casebook/internal/snapshot"
	"casebook/internal/triage"
	"casebook/library"
)

// TestLiveTriage builds every scenario of issue 6 on the real API server
// and scheduler, then triages each one as the read-only ServiceAccount of
// deploy/rbac-readonly.yaml.
func TestLiveTriage(t *testing.T) {
	admin, kubeconfig := harness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := kubernetes.NewForConfigOrDie(admin)
	role := applyRBAC(t, ctx, c)
	w := &world{t: t, ctx: ctx, c: c, admin: admin, id: runID(t)}
	start := time.Now()
	scenarios := w.build()
	t.Logf("scenarios built in %v (run %s)", time.Since(start).Round(time.Millisecond), w.id)

	ro := tokenConfig(t, ctx, admin, c, "casebook", "casebook")
	rec := &recorder{}
	r, err := cluster.NewReader(ro, cluster.Options{WrapTransport: rec.wrap})
	if err != nil {
		t.Fatal(err)
	}
	cat, _ := triage.Load(library.FS)

	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			s, err := r.Collect(ctx, sc.ns, sc.target)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range s.ReadErrors {
				t.Errorf("read error as the read-only ServiceAccount: %s (%s): %s", e.What, e.Kind, e.Message)
			}
			rep, err := probe.Triage(cat, s)
			if err != nil {
				t.Fatal(err)
			}
			checkReport(t, rep, sc)

			// The download triages the same way.
			var buf bytes.Buffer
			if err := snapshot.Encode(&buf, s); err != nil {
				t.Fatal(err)
			}
			again, err := cluster.LoadSnapshot(&buf)
			if err != nil {
				t.Fatal(err)
			}
			rep2, err := probe.Triage(cat, &again[0])
			if err != nil || rep2.Route != rep.Route || rep2.State != rep.State {
				t.Errorf("from the JSON download: %v, route %q state %q; live route %q state %q", err, rep2.Route, rep2.State, rep.Route, rep.State)
			}
		})
	}

	t.Run("scan", func(t *testing.T) {
		sc, err := r.Scan(ctx, scenarios[0].ns)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, s := range sc.Snapshots {
			got[s.Target.Name] = true
		}
		for _, want := range []string{"llm-0", "train-0", "infer-0", "tp4-0", "nb-0", "db-0", "embed-0", "batch-0", "vllm-0", "vllm-1", "vllm-2"} {
			if !got[want] {
				t.Errorf("scan missed %s; found %v", want, got)
			}
		}
		if got["holder-0"] {
			t.Error("scan reported a healthy, bound pod")
		}
		q, err := r.Scan(ctx, w.name("team-q"))
		if err != nil || len(q.Snapshots) != 1 || q.Snapshots[0].Target.Kind != "ReplicaSet" {
			t.Fatalf("scan of the quota namespace: %v %+v", err, q)
		}
	})

	t.Run("read only, no secrets", func(t *testing.T) {
		paths := rec.all()
		if len(paths) == 0 {
			t.Fatal("recorded no requests")
		}
		for _, p := range paths {
			if !strings.HasPrefix(p, "GET ") {
				t.Errorf("non-GET request: %s", p)
			}
			if strings.Contains(p, "/secrets") || strings.Contains(p, "/configmaps") {
				t.Errorf("request for secrets or configmaps: %s", p)
			}
			if strings.HasPrefix(p, "GET /api/v1/pods?") && !strings.Contains(p, "spec.nodeName") {
				t.Errorf("listed the whole cluster's pods without a node field selector: %s", p)
			}
		}
		checkAudit(t, filepath.Join(filepath.Dir(kubeconfig), "audit.log"), "system:serviceaccount:casebook:casebook")
	})

	t.Run("removed permission degrades to a question", func(t *testing.T) {
		limited := w.limitedAccount(role, "nodes")
		r, err := cluster.NewReader(limited, cluster.Options{})
		if err != nil {
			t.Fatal(err)
		}
		// A new binding reaches the authorizer's cache within moments;
		// until then even the pod read is forbidden.
		var s *snapshot.Snapshot
		eventually(t, "the limited account's binding", 30*time.Second, func() (bool, error) {
			s, err = r.Collect(ctx, scenarios[0].ns, "infer-0")
			return err == nil, err
		})
		e, ok := s.ReadFailed("list nodes")
		if !ok || e.Kind != snapshot.ReadForbidden || e.Permission.String() != "list nodes" {
			t.Fatalf("read errors: %+v", s.ReadErrors)
		}
		rep, err := probe.Triage(cat, s)
		if err != nil {
			t.Fatal(err)
		}
		// Without the nodes, a message that lists several reasons cannot
		// be pinned on one: the person is asked, and told what to grant.
		if rep.Route != "" || rep.Ask == nil || !strings.Contains(rep.Ask.Why, "needs list nodes") {
			t.Fatalf("want a question naming the permission; got route %q ask %+v", rep.Route, rep.Ask)
		}
	})
}

// checkReport asserts the route (or the question asked) and that every
// expected piece of evidence appears in what triage shows.
func checkReport(t *testing.T, rep *probe.Report, sc scenario) {
	t.Helper()
	var text strings.Builder
	for _, st := range rep.Steps {
		text.WriteString(st.Question + "=" + st.Answer + " (" + st.Note + ")\n")
		for _, e := range st.Evidence {
			text.WriteString("  " + e.String() + "\n")
		}
	}
	if rep.Ask != nil {
		text.WriteString("ask " + rep.Ask.Question + ": " + rep.Ask.Why + "\n")
		for _, e := range rep.Ask.Evidence {
			text.WriteString("  " + e.String() + "\n")
		}
	}
	if sc.wantRoute != "" && rep.Route != sc.wantRoute {
		t.Fatalf("route %q, want %q\n%s", rep.Route, sc.wantRoute, text.String())
	}
	if sc.wantAsk != "" && (rep.Ask == nil || rep.Ask.Question != sc.wantAsk) {
		t.Fatalf("want the question %s, got route %q\n%s", sc.wantAsk, rep.Route, text.String())
	}
	for _, want := range sc.evidence {
		if !strings.Contains(text.String(), want) {
			t.Errorf("evidence lacks %q:\n%s", want, text.String())
		}
	}
}

// checkAudit reads the harness's audit log, when there is one, for any
// request by user to Secrets or ConfigMaps.
func checkAudit(t *testing.T, path, user string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Logf("no audit log at %s; relying on the recorded requests", path)
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	seen := 0
	for sc.Scan() {
		line := sc.Text()
		if !strings.Contains(line, `"username":"`+user+`"`) {
			continue
		}
		seen++
		if strings.Contains(line, `"resource":"secrets"`) || strings.Contains(line, `"resource":"configmaps"`) {
			t.Errorf("audit log: %s read secrets or configmaps: %.300s", user, line)
		}
	}
	if seen == 0 {
		t.Errorf("audit log %s has no request by %s", path, user)
	}
}

// limitedAccount makes a ServiceAccount bound to the shipped role minus the
// rules for one resource, and returns its config.
func (w *world) limitedAccount(role *rbacv1.ClusterRole, drop string) *rest.Config {
	w.t.Helper()
	name := w.name("casebook-no-" + drop)
	var rules []rbacv1.PolicyRule
	for _, r := range role.Rules {
		var keep []string
		for _, res := range r.Resources {
			if res != drop {
				keep = append(keep, res)
			}
		}
		if len(keep) > 0 {
			r.Resources = keep
			rules = append(rules, r)
		}
	}
	c := w.c
	if _, err := c.RbacV1().ClusterRoles().Create(w.ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}, metav1.CreateOptions{}); err != nil {
		w.t.Fatal(err)
	}
	if _, err := c.CoreV1().ServiceAccounts("casebook").Create(w.ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "casebook"}}, metav1.CreateOptions{}); err != nil {
		w.t.Fatal(err)
	}
	if _, err := c.RbacV1().ClusterRoleBindings().Create(w.ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: name},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: name, Namespace: "casebook"}},
	}, metav1.CreateOptions{}); err != nil {
		w.t.Fatal(err)
	}
	return tokenConfig(w.t, w.ctx, w.admin, c, "casebook", name)
}
