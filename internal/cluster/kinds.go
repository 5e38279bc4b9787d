package cluster

import (
	"context"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"casebook/internal/snapshot"
)

// targetKind maps a KIND of "KIND/NAME" (as kubectl spells it) to the
// object kind triage reads, "" when triage cannot read it.
func targetKind(k string) string {
	switch strings.ToLower(k) {
	case "pod", "pods", "po":
		return "Pod"
	case "deployment", "deployments", "deploy":
		return "Deployment"
	case "replicaset", "replicasets", "rs":
		return "ReplicaSet"
	case "statefulset", "statefulsets", "sts":
		return "StatefulSet"
	case "job", "jobs":
		return "Job"
	case "cronjob", "cronjobs", "cj":
		return "CronJob"
	case "service", "services", "svc":
		return "Service"
	case "ingress", "ingresses", "ing":
		return "Ingress"
	case "hpa", "horizontalpodautoscaler", "horizontalpodautoscalers":
		return "HorizontalPodAutoscaler"
	case "pvc", "persistentvolumeclaim", "persistentvolumeclaims":
		return "PersistentVolumeClaim"
	}
	return ""
}

// forCronJob triages a CronJob through its newest Job; with no Job yet,
// the CronJob's own events are what there is.
func (c *collection) forCronJob(ns, name string) (*snapshot.Snapshot, error) {
	if !c.read("get cronjob "+ns+"/"+name, perm("get", "batch", "cronjobs", ns), func(ctx context.Context) error {
		_, err := c.r.client.BatchV1().CronJobs(ns).Get(ctx, name, metav1.GetOptions{})
		return err
	}) {
		return nil, targetError(c.errs[len(c.errs)-1])
	}
	newest := ""
	var at metav1.Time
	c.read("list jobs in namespace "+ns, perm("list", "batch", "jobs", ns), func(ctx context.Context) error {
		list, err := c.r.client.BatchV1().Jobs(ns).List(ctx, metav1.ListOptions{Limit: 500})
		if err != nil {
			return err
		}
		for _, j := range list.Items {
			if ref := metav1.GetControllerOf(&j); ref != nil && ref.Kind == "CronJob" && ref.Name == name &&
				(newest == "" || at.Before(&j.CreationTimestamp)) {
				newest, at = j.Name, j.CreationTimestamp
			}
		}
		return nil
	})
	if newest != "" {
		return c.forWorkload(ns, "Job", newest)
	}
	s := c.newSnapshot(ns, "CronJob", name)
	s.Events = c.events(ns, "CronJob", name)
	s.ReadErrors = c.errs
	return s, nil
}

// forPVC triages a claim through the pod that uses it, whose events say
// whether the volume attaches and mounts; a claim no pod uses is read on
// its own, with its provisioning events.
func (c *collection) forPVC(ns, name string) (*snapshot.Snapshot, error) {
	if !c.read("get persistentvolumeclaim "+ns+"/"+name, perm("get", "", "persistentvolumeclaims", ns), func(ctx context.Context) error {
		_, err := c.r.client.CoreV1().PersistentVolumeClaims(ns).Get(ctx, name, metav1.GetOptions{})
		return err
	}) {
		return nil, targetError(c.errs[len(c.errs)-1])
	}
	var user *corev1.Pod
	c.read("list pods in namespace "+ns, perm("list", "", "pods", ns), func(ctx context.Context) error {
		list, err := c.r.client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{Limit: 1000})
		if err != nil {
			return err
		}
		for i := range list.Items {
			p := &list.Items[i]
			for _, v := range p.Spec.Volumes {
				if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == name &&
					(user == nil || troubleRank(p) > troubleRank(user)) {
					user = p
				}
			}
		}
		return nil
	})
	if user != nil {
		return c.forPod(user), nil
	}
	s := c.newSnapshot(ns, "PersistentVolumeClaim", name)
	c.claimsByName(s, name)
	s.ReadErrors = c.errs
	return s, nil
}

// attachments reads the VolumeAttachments of the pod's bound volumes when
// its events say a volume fails to attach or mount.
func (c *collection) attachments(s *snapshot.Snapshot) {
	failing := false
	for _, e := range s.Events {
		failing = failing || e.Reason == "FailedAttachVolume" || e.Reason == "FailedMount"
	}
	pvs := map[string]bool{}
	for _, p := range s.PVCs {
		if p.VolumeName != "" {
			pvs[p.VolumeName] = true
		}
	}
	if !failing || len(pvs) == 0 {
		return
	}
	c.read("list volumeattachments", perm("list", "storage.k8s.io", "volumeattachments", ""), func(ctx context.Context) error {
		list, err := c.r.client.StorageV1().VolumeAttachments().List(ctx, metav1.ListOptions{Limit: 1000})
		if err != nil {
			return err
		}
		for _, va := range list.Items {
			pv := va.Spec.Source.PersistentVolumeName
			if pv == nil || !pvs[*pv] {
				continue
			}
			out := snapshot.VolumeAttachment{Name: va.Name, PV: *pv, Node: va.Spec.NodeName, Attached: va.Status.Attached}
			if e := va.Status.AttachError; e != nil {
				out.AttachError = e.Message
			}
			s.VolumeAttachments = append(s.VolumeAttachments, out)
		}
		return nil
	})
}
