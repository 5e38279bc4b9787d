package cluster

import (
	"context"
	"fmt"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"casebook/internal/snapshot"
)

// forIngress reads an Ingress, its IngressClass and, for each backend
// Service, whether it exists and how many ready endpoints it has. TLS
// Secrets are only named: Casebook never reads Secrets.
func (c *collection) forIngress(ns, name string) (*snapshot.Snapshot, error) {
	var ing *networkingv1.Ingress
	if !c.read("get ingress "+ns+"/"+name, perm("get", "networking.k8s.io", "ingresses", ns), func(ctx context.Context) error {
		var err error
		ing, err = c.r.client.NetworkingV1().Ingresses(ns).Get(ctx, name, metav1.GetOptions{})
		return err
	}) {
		return nil, targetError(c.errs[len(c.errs)-1])
	}
	s := c.newSnapshot(ns, "Ingress", name)
	st := &snapshot.Ingress{Name: name}
	if cls := ing.Spec.IngressClassName; cls != nil && *cls != "" {
		st.Class = *cls
		c.read("get ingressclass "+*cls, perm("get", "networking.k8s.io", "ingressclasses", ""), func(ctx context.Context) error {
			_, err := c.r.client.NetworkingV1().IngressClasses().Get(ctx, *cls, metav1.GetOptions{})
			st.ClassMissing = apierrors.IsNotFound(err)
			if st.ClassMissing {
				return nil
			}
			return err
		})
	}
	add := func(host, path string, b *networkingv1.IngressBackend) {
		if b == nil || b.Service == nil {
			return // a resource backend names no Service
		}
		be := snapshot.Backend{Host: host, Path: path, Service: b.Service.Name, Port: b.Service.Port.Name}
		if b.Service.Port.Number != 0 {
			be.Port = fmt.Sprint(b.Service.Port.Number)
		}
		svc, missing := c.service(ns, be.Service)
		if missing {
			// Not found is the finding, not a failed read.
			c.errs = c.errs[:len(c.errs)-1]
		}
		be.Missing = missing
		if svc != nil {
			_, be.Ready, _ = c.endpoints(ns, be.Service)
		}
		st.Backends = append(st.Backends, be)
	}
	add("", "", ing.Spec.DefaultBackend)
	for _, r := range ing.Spec.Rules {
		if r.HTTP == nil {
			continue
		}
		for _, p := range r.HTTP.Paths {
			add(r.Host, p.Path, &p.Backend)
		}
	}
	for _, t := range ing.Spec.TLS {
		if t.SecretName != "" {
			st.TLSSecrets = append(st.TLSSecrets, t.SecretName)
		}
	}
	s.Ingress = st
	s.Events = c.events(ns, "Ingress", name)
	sortEvents(s.Events)
	s.ReadErrors = c.errs
	return s, nil
}
