package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"casebook/internal/snapshot"
)

func TestReadErrorKinds(t *testing.T) {
	gr := schema.GroupResource{Resource: "nodes"}
	tests := []struct {
		err  error
		want string
	}{
		{apierrors.NewForbidden(gr, "", errors.New("no")), snapshot.ReadForbidden},
		{apierrors.NewNotFound(gr, "x"), snapshot.ReadNotFound},
		{fmt.Errorf("list: %w", context.DeadlineExceeded), snapshot.ReadTimeout},
		{apierrors.NewServiceUnavailable("down"), snapshot.ReadUnavailable},
		{refusedRead(t), snapshot.ReadUnavailable},
		{errors.New("strange"), snapshot.ReadOther},
	}
	for _, tt := range tests {
		if got := readError("list nodes", perm("list", "", "nodes", ""), tt.err); got.Kind != tt.want {
			t.Errorf("%v: kind %s, want %s", tt.err, got.Kind, tt.want)
		}
	}
}

// refusedRead is the error client-go returns when nothing listens at the
// API server's address: a list through a real client to a closed port.
func refusedRead(t *testing.T) error {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: "http://" + addr, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cs.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if err == nil {
		t.Fatalf("listing nodes at the closed port %s succeeded", addr)
	}
	return err
}

func TestGPUComponent(t *testing.T) {
	ds := func(name, image string) *appsv1.DaemonSet {
		return &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Image: image}}}}}}
	}
	tests := []struct {
		ds   *appsv1.DaemonSet
		want string
	}{
		{ds("nvidia-device-plugin-daemonset", "nvcr.io/nvidia/k8s-device-plugin:v0.17"), snapshot.ComponentDevicePlugin},
		{ds("nvdp-nvidia-device-plugin", "nvcr.io/nvidia/k8s-device-plugin:v0.17"), snapshot.ComponentDevicePlugin},
		{ds("nvidia-driver-daemonset", "nvcr.io/nvidia/driver:570"), snapshot.ComponentDriver},
		{ds("nvidia-container-toolkit-daemonset", "nvcr.io/nvidia/k8s/container-toolkit:v1.17"), snapshot.ComponentToolkit},
		{ds("nvidia-dcgm-exporter", "nvcr.io/nvidia/k8s/dcgm-exporter:4"), snapshot.ComponentOther},
		{ds("kube-proxy", "registry.k8s.io/kube-proxy:v1.37.2"), ""},
		{ds("amd-gpu-device-plugin", "rocm/k8s-device-plugin"), ""},
	}
	for _, tt := range tests {
		if got := gpuComponent(tt.ds); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.ds.Name, got, tt.want)
		}
	}
}

func TestTroubleRank(t *testing.T) {
	waiting := func(reason string) corev1.PodStatus {
		return corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason}}}}}
	}
	tests := []struct {
		name     string
		status   corev1.PodStatus
		troubled bool
	}{
		{"pending", corev1.PodStatus{Phase: corev1.PodPending}, true},
		{"evicted", corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Evicted"}, true},
		{"crashloop", waiting("CrashLoopBackOff"), true},
		{"creating", corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}, ContainerStatuses: []corev1.ContainerStatus{{State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}}}}, false},
		{"not ready", corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}}, true},
		{"healthy", corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}, false},
		{"succeeded", corev1.PodStatus{Phase: corev1.PodSucceeded}, false},
	}
	for _, tt := range tests {
		p := &corev1.Pod{Status: tt.status}
		if got := troubleRank(p) > 0; got != tt.troubled {
			t.Errorf("%s: troubled %v, want %v", tt.name, got, tt.troubled)
		}
	}
}

func TestNamespaceAllowList(t *testing.T) {
	r := &Reader{opts: Options{Namespaces: []string{"team-a"}}.withDefaults()}
	if _, err := r.Collect(context.Background(), "kube-system", "coredns-0"); !errors.Is(err, snapshot.ErrNamespaceNotAllowed) {
		t.Fatalf("err = %v, want snapshot.ErrNamespaceNotAllowed", err)
	}
	if _, err := r.Scan(context.Background(), "kube-system"); !errors.Is(err, snapshot.ErrNamespaceNotAllowed) {
		t.Fatalf("scan err = %v", err)
	}
}
