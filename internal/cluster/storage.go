package cluster

import (
	"context"
	"regexp"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"casebook/internal/snapshot"
)

// volumes reads the PVCs the pod mounts, their events, and the storage
// classes they name.
func (c *collection) volumes(s *snapshot.Snapshot) {
	var names []string
	for _, v := range s.Pod.Volumes {
		if v.ClaimName != "" {
			names = append(names, v.ClaimName)
		}
	}
	c.claimsByName(s, names...)
}

// claimsByName reads PVCs of the target's namespace, the events of those
// not bound, and the storage classes they name.
func (c *collection) claimsByName(s *snapshot.Snapshot, names ...string) {
	ns := s.Target.Namespace
	classes := map[string]bool{}
	for _, claim := range names {
		v := struct{ ClaimName string }{claim}
		pvc := snapshot.PVC{Name: v.ClaimName}
		var getErr error
		ok := c.read("get persistentvolumeclaim "+ns+"/"+v.ClaimName, perm("get", "", "persistentvolumeclaims", ns), func(ctx context.Context) error {
			p, err := c.r.client.CoreV1().PersistentVolumeClaims(ns).Get(ctx, v.ClaimName, metav1.GetOptions{})
			getErr = err
			if err != nil {
				return err
			}
			pvc.Phase = string(p.Status.Phase)
			pvc.StorageClassName = p.Spec.StorageClassName
			pvc.VolumeName = p.Spec.VolumeName
			for _, m := range p.Spec.AccessModes {
				pvc.AccessModes = append(pvc.AccessModes, string(m))
			}
			if q, ok := p.Spec.Resources.Requests["storage"]; ok {
				pvc.Request = q.String()
			}
			if q, ok := p.Status.Capacity["storage"]; ok {
				pvc.Capacity = q.String()
			}
			pvc.CreatedAt = p.CreationTimestamp.UTC()
			return nil
		})
		if !ok {
			if apierrors.IsNotFound(getErr) {
				pvc.Missing = true
				s.PVCs = append(s.PVCs, pvc)
			}
			continue
		}
		s.PVCs = append(s.PVCs, pvc)
		if pvc.Phase != "Bound" {
			s.Events = append(s.Events, c.events(ns, "PersistentVolumeClaim", pvc.Name)...)
		}
		if pvc.StorageClassName != nil && *pvc.StorageClassName != "" {
			classes[*pvc.StorageClassName] = true
		}
	}
	for name := range classes {
		sc := snapshot.StorageClass{Name: name}
		var getErr error
		ok := c.read("get storageclass "+name, perm("get", "storage.k8s.io", "storageclasses", ""), func(ctx context.Context) error {
			cls, err := c.r.client.StorageV1().StorageClasses().Get(ctx, name, metav1.GetOptions{})
			getErr = err
			if err != nil {
				return err
			}
			sc.Provisioner = cls.Provisioner
			if cls.VolumeBindingMode != nil {
				sc.VolumeBindingMode = string(*cls.VolumeBindingMode)
			}
			sc.Default = cls.Annotations["storageclass.kubernetes.io/is-default-class"] == "true"
			return nil
		})
		if ok || apierrors.IsNotFound(getErr) {
			sc.Missing = !ok
			s.StorageClasses = append(s.StorageClasses, sc)
		}
	}
}

// draGroupVersion is the DRA API this reader understands (GA since 1.34).
const draGroupVersion = "resource.k8s.io/v1"

// claims reads the pod's ResourceClaims and the DeviceClasses they name,
// when the cluster serves the DRA API at all.
func (c *collection) claims(s *snapshot.Snapshot) {
	if len(s.Pod.ResourceClaims) == 0 {
		return
	}
	if !c.hasAPI(draGroupVersion, s) {
		return
	}
	ns := s.Pod.Namespace
	classes := map[string]bool{}
	for _, pc := range s.Pod.ResourceClaims {
		name := pc.ResourceClaimName
		if name == "" {
			// A claim from a template that the controller has not
			// created yet.
			s.ResourceClaims = append(s.ResourceClaims, snapshot.ResourceClaim{Name: pc.Name + " (from template " + pc.TemplateName + ")", Missing: true})
			continue
		}
		rc := snapshot.ResourceClaim{Name: name}
		var getErr error
		ok := c.read("get resourceclaim "+ns+"/"+name, perm("get", "resource.k8s.io", "resourceclaims", ns), func(ctx context.Context) error {
			claim, err := c.r.client.ResourceV1().ResourceClaims(ns).Get(ctx, name, metav1.GetOptions{})
			getErr = err
			if err != nil {
				return err
			}
			for _, r := range claim.Spec.Devices.Requests {
				dr := snapshot.DeviceRequest{Name: r.Name}
				if r.Exactly != nil {
					dr.DeviceClassName, dr.Count = r.Exactly.DeviceClassName, r.Exactly.Count
					classes[dr.DeviceClassName] = true
				}
				rc.Requests = append(rc.Requests, dr)
			}
			rc.Allocated = claim.Status.Allocation != nil
			for _, ref := range claim.Status.ReservedFor {
				rc.ReservedFor = append(rc.ReservedFor, ref.Resource+"/"+ref.Name)
			}
			return nil
		})
		if ok || apierrors.IsNotFound(getErr) {
			rc.Missing = !ok
			s.ResourceClaims = append(s.ResourceClaims, rc)
		}
	}
	drivers := map[string]bool{}
	for _, name := range sortedKeys(classes) {
		var getErr error
		dc := snapshot.DeviceClass{Name: name}
		ok := c.read("get deviceclass "+name, perm("get", "resource.k8s.io", "deviceclasses", ""), func(ctx context.Context) error {
			cls, err := c.r.client.ResourceV1().DeviceClasses().Get(ctx, name, metav1.GetOptions{})
			getErr = err
			if err != nil {
				return err
			}
			for _, sel := range cls.Spec.Selectors {
				if sel.CEL != nil {
					dc.Drivers = append(dc.Drivers, selectorDrivers(sel.CEL.Expression)...)
				}
			}
			return nil
		})
		if ok || apierrors.IsNotFound(getErr) {
			dc.Missing = !ok
			s.DeviceClasses = append(s.DeviceClasses, dc)
			for _, d := range dc.Drivers {
				drivers[d] = true
			}
		}
	}
	for _, d := range sortedKeys(drivers) {
		ds := snapshot.DriverSlices{Driver: d}
		ok := c.read("list resourceslices of driver "+d, perm("list", "resource.k8s.io", "resourceslices", ""), func(ctx context.Context) error {
			list, err := c.r.client.ResourceV1().ResourceSlices().List(ctx, metav1.ListOptions{FieldSelector: "spec.driver=" + d, Limit: 500})
			if err != nil {
				return err
			}
			nodes := map[string]bool{}
			for _, sl := range list.Items {
				ds.Slices++
				ds.Devices += len(sl.Spec.Devices)
				if sl.Spec.NodeName != nil && *sl.Spec.NodeName != "" {
					nodes[*sl.Spec.NodeName] = true
				}
			}
			ds.Nodes = sortedKeys(nodes)
			return nil
		})
		if ok {
			s.DriverSlices = append(s.DriverSlices, ds)
		}
	}
}

// driverInCEL finds the drivers a device class selector names, as DRA
// drivers and their docs write it: device.driver == "gpu.nvidia.com".
var driverInCEL = regexp.MustCompile(`device\.driver\s*==\s*['"]([^'"]+)['"]`)

func selectorDrivers(expr string) []string {
	var out []string
	for _, m := range driverInCEL.FindAllStringSubmatch(expr, -1) {
		out = append(out, m[1])
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// hasAPI asks discovery once per collection whether a group/version is
// served, and records the answer in the snapshot.
func (c *collection) hasAPI(gv string, s *snapshot.Snapshot) bool {
	if c.cache.apis == nil {
		c.cache.apis = map[string]bool{}
	}
	served, ok := c.cache.apis[gv]
	if !ok {
		_, err := c.r.client.Discovery().ServerResourcesForGroupVersion(gv)
		served = err == nil
		if err != nil && !apierrors.IsNotFound(err) {
			c.errs = append(c.errs, readError("discover "+gv, perm("get", "", "/apis/"+gv, ""), err))
		}
		c.cache.apis[gv] = served
	}
	s.APIs[gv] = served
	return served
}
