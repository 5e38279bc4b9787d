package stage

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
)

// Stage applies a scenario to the cluster of kubeconfig and serves its
// container logs as a kubelet would until the returned Staged is closed.
func Stage(ctx context.Context, kubeconfig string, sc *Scenario) (*Staged, error) {
	kl, err := startKubelet(sc.logs)
	if err != nil {
		return nil, fmt.Errorf("log server: %w", err)
	}
	st, err := newStager(kubeconfig, sc, kl.port)
	if err != nil {
		kl.Close()
		return nil, err
	}
	if err := st.apply(ctx); err != nil {
		kl.Close()
		return nil, err
	}
	kl.setLogs(sc.logs)
	return &Staged{kl: kl}, nil
}

// Staged is a staged scenario; Close stops serving its logs.
type Staged struct{ kl *kubelet }

// Close stops the log server.
func (s *Staged) Close() { s.kl.Close() }

type stager struct {
	c      kubernetes.Interface
	dyn    dynamic.Interface
	mapper meta.RESTMapper
	sc     *Scenario
	port   int
}

func newStager(kubeconfig string, sc *Scenario, port int) (*stager, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 50, 100
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(c.Discovery()))
	return &stager{c: c, dyn: dyn, mapper: mapper, sc: sc, port: port}, nil
}

// apply creates the scenario's objects in file order (events last, once
// what they are about exists), waits for the scheduler and writes what
// the kubelets would.
func (st *stager) apply(ctx context.Context) error {
	var pods []*corev1.Pod
	var events []*corev1.Event
	volumes := false
	for _, obj := range st.sc.objects {
		switch o := obj.(type) {
		case *corev1.Node:
			if err := st.node(ctx, o); err != nil {
				return err
			}
		case *corev1.Pod:
			pods = append(pods, o)
		case *corev1.Event:
			events = append(events, o)
		default:
			switch obj.(type) {
			case *corev1.PersistentVolume, *corev1.PersistentVolumeClaim:
				volumes = true
			}
			if err := st.create(ctx, obj); err != nil {
				return err
			}
		}
	}
	// Pods go last, and, when volumes were bound by hand, only once the
	// scheduler's informers have seen the binding: otherwise its first
	// attempt reads an unbound claim that no real cluster would show.
	if volumes {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(3 * time.Second):
		}
	}
	for _, o := range pods {
		status := o.Status
		o.Status = corev1.PodStatus{}
		if err := st.create(ctx, o); err != nil {
			return err
		}
		if status.Phase != "" {
			st.sc.statuses = append(st.sc.statuses, podStatus{Namespace: o.Namespace, Name: o.Name, Status: status})
		}
	}
	// Pods the scenario leaves to the scheduler: wait until it has bound
	// them or said why it cannot.
	for _, p := range pods {
		if p.Spec.NodeName == "" {
			if err := st.waitScheduled(ctx, p.Namespace, p.Name); err != nil {
				return err
			}
		}
	}
	for _, ps := range st.sc.statuses {
		if err := st.podStatus(ctx, ps); err != nil {
			return err
		}
	}
	for _, pt := range st.sc.patches {
		if err := st.patch(ctx, pt); err != nil {
			return err
		}
	}
	for _, e := range events {
		if err := st.event(ctx, e); err != nil {
			return err
		}
	}
	for i := range st.sc.logs {
		l := &st.sc.logs[i]
		if l.Pod == "" {
			p, err := st.findPod(ctx, l.Namespace, "", l.Selector, false)
			if err != nil {
				return err
			}
			l.Pod = p.Name
		}
	}
	return nil
}

// create writes any object through the dynamic client, and its status
// (what a controller would have written) through the status subresource.
func (st *stager) create(ctx context.Context, obj runtime.Object) error {
	gvk := obj.GetObjectKind().GroupVersionKind()
	m, err := st.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return fmt.Errorf("%s: %w", gvk.Kind, err)
	}
	raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return err
	}
	u := &unstructured.Unstructured{Object: raw}
	status, hasStatus := raw["status"].(map[string]any)
	delete(u.Object, "status")
	if err := st.ownerUIDs(ctx, u); err != nil {
		return err
	}
	var ri dynamic.ResourceInterface = st.dyn.Resource(m.Resource)
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		ns := u.GetNamespace()
		if ns == "" {
			ns = st.sc.Namespace
			u.SetNamespace(ns)
		}
		ri = st.dyn.Resource(m.Resource).Namespace(ns)
	}
	created, err := ri.Create(ctx, u, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create %s %s: %w", gvk.Kind, u.GetName(), err)
	}
	if hasStatus && len(status) > 0 && gvk.Kind != "Pod" {
		created.Object["status"] = status
		if _, err := ri.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("status of %s %s: %w", gvk.Kind, u.GetName(), err)
		}
	}
	if p, ok := obj.(*corev1.Pod); ok && p.Namespace == "" {
		p.Namespace = u.GetNamespace()
	}
	return nil
}

// ownerUIDs fills the uid of owner references that name an object the
// scenario created earlier (a Job's pod, a Deployment's ReplicaSet).
func (st *stager) ownerUIDs(ctx context.Context, u *unstructured.Unstructured) error {
	refs := u.GetOwnerReferences()
	for i, r := range refs {
		if r.UID != "" {
			continue
		}
		gv, err := schema.ParseGroupVersion(r.APIVersion)
		if err != nil {
			return err
		}
		m, err := st.mapper.RESTMapping(gv.WithKind(r.Kind).GroupKind(), gv.Version)
		if err != nil {
			return fmt.Errorf("owner %s: %w", r.Kind, err)
		}
		ns := u.GetNamespace()
		if ns == "" {
			ns = st.sc.Namespace
		}
		owner, err := st.dyn.Resource(m.Resource).Namespace(ns).Get(ctx, r.Name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("owner %s %s: %w", r.Kind, r.Name, err)
		}
		refs[i].UID = owner.GetUID()
	}
	u.SetOwnerReferences(refs)
	return nil
}

// node creates a node the way a kubelet registers one: the scenario's
// labels, taints and status, with a healthy kubelet's defaults for what
// the scenario leaves out, and its kubelet endpoint pointed at this
// process so the API server can fetch logs.
func (st *stager) node(ctx context.Context, n *corev1.Node) error {
	want := n.DeepCopy()
	if n.Labels == nil {
		n.Labels = map[string]string{}
	}
	n.Labels["kubernetes.io/hostname"] = n.Name
	n.Labels["kubernetes.io/os"] = "linux"
	n.Labels["kubernetes.io/arch"] = "amd64"
	n.Spec.Taints = nil
	n.Status = corev1.NodeStatus{}
	created, err := st.c.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create node %s: %w", n.Name, err)
	}
	now := metav1.Now()
	s := want.Status
	if s.Capacity == nil {
		s.Capacity = corev1.ResourceList{}
	}
	for k, v := range map[corev1.ResourceName]string{"cpu": "32", "memory": "128Gi", "pods": "110", "ephemeral-storage": "200Gi"} {
		if _, ok := s.Capacity[k]; !ok {
			s.Capacity[k] = resource.MustParse(v)
		}
	}
	if s.Allocatable == nil {
		s.Allocatable = corev1.ResourceList{}
	}
	for k, v := range s.Capacity {
		if _, ok := s.Allocatable[k]; !ok {
			s.Allocatable[k] = v
		}
	}
	defaults := []corev1.NodeCondition{
		{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientMemory", Message: "kubelet has sufficient memory available"},
		{Type: corev1.NodeDiskPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasNoDiskPressure", Message: "kubelet has no disk pressure"},
		{Type: corev1.NodePIDPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientPID", Message: "kubelet has sufficient PID available"},
		{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status"},
	}
	conds := []corev1.NodeCondition{}
	for _, d := range defaults {
		c := d
		for _, w := range s.Conditions {
			if w.Type == d.Type {
				c = w
			}
		}
		conds = append(conds, c)
	}
	for _, w := range s.Conditions {
		known := false
		for _, d := range defaults {
			known = known || d.Type == w.Type
		}
		if !known {
			conds = append(conds, w)
		}
	}
	for i := range conds {
		if conds[i].LastHeartbeatTime.IsZero() {
			conds[i].LastHeartbeatTime = now
		}
		if conds[i].LastTransitionTime.IsZero() {
			conds[i].LastTransitionTime = now
		}
	}
	s.Conditions = conds
	s.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}}
	s.DaemonEndpoints.KubeletEndpoint.Port = int32(st.port)
	if s.NodeInfo.KubeletVersion == "" {
		s.NodeInfo.KubeletVersion = "v1.37.2"
	}
	if s.NodeInfo.ContainerRuntimeVersion == "" {
		s.NodeInfo.ContainerRuntimeVersion = "containerd://2.1.4"
	}
	s.NodeInfo.OperatingSystem, s.NodeInfo.Architecture = "linux", "amd64"
	created.Status = s
	created, err = st.c.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("status of node %s: %w", n.Name, err)
	}
	// Admission tainted the new node not-ready; a kubelet that posts
	// Ready gets that lifted by the node lifecycle controller, which the
	// harness does not run. Set the scenario's own taints instead.
	created.Spec.Taints = want.Spec.Taints
	created.Spec.Unschedulable = want.Spec.Unschedulable
	if _, err := st.c.CoreV1().Nodes().Update(ctx, created, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("taints of node %s: %w", n.Name, err)
	}
	return nil
}

func (st *stager) waitScheduled(ctx context.Context, ns, name string) error {
	for {
		p, err := st.c.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			if p.Spec.NodeName != "" {
				return nil
			}
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
					return nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("pod %s/%s: the scheduler did not act in time (last error: %v)", ns, name, err)
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// findPod returns the pod a status or log is for: by name, or the first
// pod matching a label selector (pods a controller created), waiting for
// it to exist.
func (st *stager) findPod(ctx context.Context, ns, name string, sel map[string]string, bound bool) (*corev1.Pod, error) {
	for {
		var p *corev1.Pod
		var err error
		if name != "" {
			p, err = st.c.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				p, err = nil, nil
			}
		} else {
			var list *corev1.PodList
			list, err = st.c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: labels.SelectorFromSet(sel).String()})
			if err == nil && len(list.Items) > 0 {
				p = &list.Items[0]
			}
		}
		if err != nil {
			return nil, err
		}
		if p != nil && (!bound || p.Spec.NodeName != "") {
			return p, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("pod %s/%s%v never appeared (bound: %v)", ns, name, sel, bound)
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// podStatus writes what the pods' kubelet would report: the scenario's
// status over the scheduler's conditions.
func (st *stager) podStatus(ctx context.Context, ps podStatus) error {
	p, err := st.findPod(ctx, ps.Namespace, ps.Name, ps.Selector, true)
	if err != nil {
		return err
	}
	if !ps.All {
		return st.writePodStatus(ctx, p, ps.Status)
	}
	var list *corev1.PodList
	for {
		list, err = st.c.CoreV1().Pods(ps.Namespace).List(ctx, metav1.ListOptions{LabelSelector: labels.SelectorFromSet(ps.Selector).String()})
		if err != nil {
			return err
		}
		if len(list.Items) >= ps.Count {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("only %d pods match %v, want %d", len(list.Items), ps.Selector, ps.Count)
		case <-time.After(300 * time.Millisecond):
		}
	}
	for i := range list.Items {
		p := &list.Items[i]
		// A kubelet never rewrites a finished pod, whose status the Job
		// controller may be updating (a Job's failed pods, one per retry).
		if p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded {
			continue
		}
		if p.Spec.NodeName == "" {
			if p, err = st.findPod(ctx, p.Namespace, p.Name, nil, true); err != nil {
				return err
			}
		}
		if err := st.writePodStatus(ctx, p, *ps.Status.DeepCopy()); err != nil {
			return err
		}
	}
	return nil
}

// patch applies a merge patch and waits for the event it should cause.
func (st *stager) patch(ctx context.Context, pt patch) error {
	gr := schema.ParseGroupResource(pt.Resource)
	gvr, err := st.mapper.ResourceFor(gr.WithVersion(""))
	if err != nil {
		return fmt.Errorf("patch %s: %w", pt.Resource, err)
	}
	body, err := json.Marshal(pt.Patch)
	if err != nil {
		return err
	}
	ns := pt.Namespace
	if ns == "" {
		ns = st.sc.Namespace
	}
	var ri dynamic.ResourceInterface = st.dyn.Resource(gvr).Namespace(ns)
	if gr.Resource == "nodes" {
		ri = st.dyn.Resource(gvr)
	}
	if _, err := ri.Patch(ctx, pt.Name, types.MergePatchType, body, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("patch %s %s: %w", pt.Resource, pt.Name, err)
	}
	if err := st.waitCondition(ctx, ri, pt); err != nil {
		return err
	}
	if pt.WaitFor == "" {
		return nil
	}
	for {
		evs, err := st.c.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "reason=" + pt.WaitFor})
		if err == nil && len(evs.Items) > 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("patch %s %s: no %s event came", pt.Resource, pt.Name, pt.WaitFor)
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// waitCondition waits until the patched object's status.conditions holds
// the patch's WaitCondition.
func (st *stager) waitCondition(ctx context.Context, ri dynamic.ResourceInterface, pt patch) error {
	if pt.WaitCondition == "" {
		return nil
	}
	typ, status, ok := strings.Cut(pt.WaitCondition, "=")
	if !ok {
		return fmt.Errorf("patch %s %s: waitCondition %q is not TYPE=STATUS", pt.Resource, pt.Name, pt.WaitCondition)
	}
	for {
		obj, err := ri.Get(ctx, pt.Name, metav1.GetOptions{})
		if err == nil {
			conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
			for _, c := range conds {
				m, _ := c.(map[string]any)
				if m["type"] == typ && m["status"] == status {
					return nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("patch %s %s: condition %s never came", pt.Resource, pt.Name, pt.WaitCondition)
		case <-time.After(time.Second):
		}
	}
}

func (st *stager) writePodStatus(ctx context.Context, p *corev1.Pod, want corev1.PodStatus) error {
	for _, c := range p.Status.Conditions {
		found := false
		for _, w := range want.Conditions {
			found = found || w.Type == c.Type
		}
		if !found {
			want.Conditions = append(want.Conditions, c)
		}
	}
	now := metav1.Now()
	for i := range want.Conditions {
		if want.Conditions[i].LastTransitionTime.IsZero() {
			want.Conditions[i].LastTransitionTime = now
		}
	}
	for i := range want.ContainerStatuses {
		cs := &want.ContainerStatuses[i]
		if cs.Image == "" {
			for _, c := range p.Spec.Containers {
				if c.Name == cs.Name {
					cs.Image = c.Image
				}
			}
		}
	}
	if want.HostIP == "" {
		want.HostIP = "127.0.0.1"
	}
	p.Status = want
	if _, err := st.c.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("status of pod %s/%s: %w", p.Namespace, p.Name, err)
	}
	return nil
}

// event writes an event as its reporter (usually the kubelet) would. An
// involvedObject name "@k=v" means the first pod with that label.
func (st *stager) event(ctx context.Context, e *corev1.Event) error {
	io := &e.InvolvedObject
	if io.Kind == "" {
		io.Kind = "Pod"
	}
	if io.Namespace == "" && io.Kind != "Node" {
		io.Namespace = st.sc.Namespace
	}
	if sel, ok := strings.CutPrefix(io.Name, "@"); ok {
		set, err := labels.ConvertSelectorToLabelsMap(sel)
		if err != nil {
			return err
		}
		p, err := st.findPod(ctx, io.Namespace, "", set, false)
		if err != nil {
			return err
		}
		io.Name = p.Name
	}
	switch io.Kind {
	case "Pod":
		p, err := st.c.CoreV1().Pods(io.Namespace).Get(ctx, io.Name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("event about pod %s: %w", io.Name, err)
		}
		io.UID, io.APIVersion = p.UID, "v1"
		if e.Source.Host == "" && e.Source.Component == "kubelet" {
			e.Source.Host = p.Spec.NodeName
		}
	case "Node":
		n, err := st.c.CoreV1().Nodes().Get(ctx, io.Name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("event about node %s: %w", io.Name, err)
		}
		io.UID, io.APIVersion = n.UID, "v1"
	}
	ns := io.Namespace
	if ns == "" {
		ns = "default"
	}
	e.Namespace = ns
	if e.Name == "" && e.GenerateName == "" {
		e.GenerateName = io.Name + "."
	}
	if e.Type == "" {
		e.Type = corev1.EventTypeNormal
	}
	if e.Source.Component == "" {
		e.Source.Component = "kubelet"
	}
	if e.FirstTimestamp.IsZero() {
		e.FirstTimestamp = metav1.Now()
	}
	if e.LastTimestamp.IsZero() {
		e.LastTimestamp = e.FirstTimestamp
	}
	if e.Count == 0 {
		e.Count = 1
	}
	e.ReportingController = e.Source.Component
	e.ReportingInstance = e.Source.Host
	if _, err := st.c.CoreV1().Events(ns).Create(ctx, e, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("event %s about %s: %w", e.Reason, io.Name, err)
	}
	return nil
}
