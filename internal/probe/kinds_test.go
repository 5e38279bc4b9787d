package probe

import (
	"strings"
	"testing"

	"casebook/internal/snapshot"
)

// TestTargetRoutes walks the trees over the snapshots the reader writes
// for the families no harness fixture covers yet: a pod whose volume
// does not mount (the kubelet's FailedMount, a VolumeAttachment with an
// attach error), a claim no pod uses that is not provisioned, pods
// refused for a missing ServiceAccount, and a Service that does have
// endpoints (no route: the trouble is elsewhere).
func TestTargetRoutes(t *testing.T) {
	cat := loadCatalog(t)
	ns := "shop"
	mountPod := &snapshot.Snapshot{Version: snapshot.Version, Target: snapshot.Target{Namespace: ns, Kind: "Pod", Name: "db-0"},
		Pod: &snapshot.Pod{Namespace: ns, Name: "db-0", NodeName: "node-1", Phase: "Pending",
			Volumes:    []snapshot.Volume{{Name: "data", Kind: "persistentVolumeClaim", ClaimName: "data-db-0"}},
			Containers: []snapshot.Container{{Name: "db", State: snapshot.ContainerState{Kind: "waiting", Reason: "ContainerCreating"}}}},
		PVCs: []snapshot.PVC{{Name: "data-db-0", Phase: "Bound", VolumeName: "pvc-1"}},
		Events: []snapshot.Event{{Type: "Warning", Reason: "FailedMount", Source: "kubelet", Object: snapshot.ObjectRef{Kind: "Pod", Namespace: ns, Name: "db-0"},
			Message: "Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[], failed to process volumes=[]: timed out waiting for the condition"}},
		VolumeAttachments: []snapshot.VolumeAttachment{{Name: "csi-1", PV: "pvc-1", Node: "node-1", AttachError: "rpc error: code = Internal desc = volume is attached to another node"}},
	}
	pvc := &snapshot.Snapshot{Version: snapshot.Version, Target: snapshot.Target{Namespace: ns, Kind: "PersistentVolumeClaim", Name: "data"},
		PVCs: []snapshot.PVC{{Name: "data", Phase: "Pending"}},
		Events: []snapshot.Event{{Type: "Warning", Reason: "ProvisioningFailed", Object: snapshot.ObjectRef{Kind: "PersistentVolumeClaim", Namespace: ns, Name: "data"},
			Message: `storageclass.storage.k8s.io "fast" not found`}},
	}
	three := int32(3)
	noSA := &snapshot.Snapshot{Version: snapshot.Version, Target: snapshot.Target{Namespace: ns, Kind: "Deployment", Name: "api"},
		Owners: []snapshot.Owner{{Kind: "ReplicaSet", Namespace: ns, Name: "api-6f", Replicas: &three, Conditions: []snapshot.Condition{{Type: "ReplicaFailure", Status: "True", Reason: "FailedCreate",
			Message: `pods "api-6f-" is forbidden: error looking up service account shop/api: serviceaccount "api" not found`}}}},
	}
	jobGone := &snapshot.Snapshot{Version: snapshot.Version, Target: snapshot.Target{Namespace: ns, Kind: "Job", Name: "export"},
		Owners: []snapshot.Owner{{Kind: "Job", Namespace: ns, Name: "export", Conditions: []snapshot.Condition{{Type: "Failed", Status: "True", Reason: "DeadlineExceeded",
			Message: "Job was active longer than specified deadline"}}}}}
	healthy := &snapshot.Snapshot{Version: snapshot.Version, Target: snapshot.Target{Namespace: ns, Kind: "Service", Name: "web"},
		Service: &snapshot.Service{Name: "web", Selector: map[string]string{"app": "web"}, MatchingPods: 2, Ready: 2, Slices: []string{"web-x"}}}
	tests := []struct {
		name      string
		s         *snapshot.Snapshot
		wantRoute string
		evidence  string
	}{
		{"volume does not mount", mountPod, "storage/attach-mount", "volumeattachment/csi-1 status.attached: false (pv pvc-1, node node-1)"},
		{"claim not provisioned", pvc, "pending/volume", `storageclass.storage.k8s.io "fast" not found`},
		{"missing ServiceAccount", noSA, "workload/rollout-stuck", `serviceaccount "api" not found`},
		{"failed Job whose pods are gone", jobGone, "workload/job-failed", "status.conditions[Failed]: DeadlineExceeded - Job was active longer than specified deadline"},
		{"Service with endpoints", healthy, "", "2 ready"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := Triage(cat, tt.s)
			if err != nil {
				t.Fatal(err)
			}
			text := ""
			for _, st := range rep.Steps {
				text += st.Question + "=" + st.Answer + "\n"
				for _, e := range st.Evidence {
					text += "  " + e.String() + "\n"
				}
			}
			if rep.Ask != nil {
				text += "ask " + rep.Ask.Question + ": " + rep.Ask.Why + "\n"
				for _, e := range rep.Ask.Evidence {
					text += "  " + e.String() + "\n"
				}
			}
			if rep.Route != tt.wantRoute {
				t.Fatalf("route %q, want %q\n%s", rep.Route, tt.wantRoute, text)
			}
			if !strings.Contains(text, tt.evidence) {
				t.Errorf("report lacks %q:\n%s", tt.evidence, text)
			}
		})
	}
}
