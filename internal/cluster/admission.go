package cluster

import (
	"context"
	"regexp"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"casebook/internal/snapshot"
)

// webhookName is how the API server names a webhook in a refusal:
// `failed calling webhook "NAME"` or `admission webhook "NAME" denied`.
var webhookName = regexp.MustCompile(`webhook "([^"]+)"`)

// refusingWebhooks reads the admission webhooks that the snapshot's
// FailedCreate events and ReplicaFailure conditions name, with the state
// of the Service behind each.
func (c *collection) refusingWebhooks(s *snapshot.Snapshot) {
	named := map[string]bool{}
	for _, e := range s.Events {
		if e.Reason == "FailedCreate" {
			for _, m := range webhookName.FindAllStringSubmatch(e.Message, -1) {
				named[m[1]] = true
			}
		}
	}
	for _, o := range s.Owners {
		for _, cnd := range o.Conditions {
			for _, m := range webhookName.FindAllStringSubmatch(cnd.Message, -1) {
				named[m[1]] = true
			}
		}
	}
	if len(named) == 0 {
		return
	}
	add := func(kind, cfg, name string, policy *admissionv1.FailurePolicyType, cc admissionv1.WebhookClientConfig) {
		if !named[name] {
			return
		}
		w := snapshot.Webhook{ConfigKind: kind, Config: cfg, Name: name, FailurePolicy: string(admissionv1.Fail)}
		if policy != nil {
			w.FailurePolicy = string(*policy)
		}
		if ref := cc.Service; ref != nil {
			w.Service = ref.Namespace + "/" + ref.Name
			svc, missing := c.service(ref.Namespace, ref.Name)
			if missing {
				c.errs = c.errs[:len(c.errs)-1] // the finding, not a failed read
			}
			w.ServiceMissing = missing
			if svc != nil {
				_, w.Ready, _ = c.endpoints(ref.Namespace, ref.Name)
			}
		}
		s.Webhooks = append(s.Webhooks, w)
	}
	adm := c.r.client.AdmissionregistrationV1()
	c.read("list validatingwebhookconfigurations", perm("list", "admissionregistration.k8s.io", "validatingwebhookconfigurations", ""), func(ctx context.Context) error {
		list, err := adm.ValidatingWebhookConfigurations().List(ctx, metav1.ListOptions{Limit: 500})
		if err != nil {
			return err
		}
		for _, cfg := range list.Items {
			for _, w := range cfg.Webhooks {
				add("ValidatingWebhookConfiguration", cfg.Name, w.Name, w.FailurePolicy, w.ClientConfig)
			}
		}
		return nil
	})
	c.read("list mutatingwebhookconfigurations", perm("list", "admissionregistration.k8s.io", "mutatingwebhookconfigurations", ""), func(ctx context.Context) error {
		list, err := adm.MutatingWebhookConfigurations().List(ctx, metav1.ListOptions{Limit: 500})
		if err != nil {
			return err
		}
		for _, cfg := range list.Items {
			for _, w := range cfg.Webhooks {
				add("MutatingWebhookConfiguration", cfg.Name, w.Name, w.FailurePolicy, w.ClientConfig)
			}
		}
		return nil
	})
}
