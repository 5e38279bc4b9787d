package cluster

import (
	"context"
	"regexp"
	"slices"
	"strings"

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
		if named[name] {
			s.Webhooks = append(s.Webhooks, c.webhookState(kind, cfg, name, policy, cc))
		}
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

// webhookState is one webhook with the state of the Service behind it.
func (c *collection) webhookState(kind, cfg, name string, policy *admissionv1.FailurePolicyType, cc admissionv1.WebhookClientConfig) snapshot.Webhook {
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
	return w
}

// webhookBroken is a fail-closed webhook whose Service is missing or has
// no ready endpoint: every request it intercepts is refused.
func webhookBroken(w snapshot.Webhook) bool {
	return w.FailurePolicy == string(admissionv1.Fail) && w.Service != "" && (w.ServiceMissing || w.Ready == 0)
}

// failClosedWebhooks lists the webhook configurations whose fail-closed
// webhooks are served by a Service of namespace ns, by kind and name.
func (c *collection) failClosedWebhooks(ns string) []candidate {
	var out []candidate
	backedIn := func(p *admissionv1.FailurePolicyType, cc admissionv1.WebhookClientConfig) bool {
		return (p == nil || *p == admissionv1.Fail) && cc.Service != nil && cc.Service.Namespace == ns
	}
	adm := c.r.client.AdmissionregistrationV1()
	c.read("list validatingwebhookconfigurations", perm("list", "admissionregistration.k8s.io", "validatingwebhookconfigurations", ""), func(ctx context.Context) error {
		list, err := adm.ValidatingWebhookConfigurations().List(ctx, metav1.ListOptions{Limit: 500})
		if err != nil {
			return err
		}
		for _, cfg := range list.Items {
			if slices.ContainsFunc(cfg.Webhooks, func(w admissionv1.ValidatingWebhook) bool { return backedIn(w.FailurePolicy, w.ClientConfig) }) {
				out = append(out, candidate{"ValidatingWebhookConfiguration", cfg.Name})
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
			if slices.ContainsFunc(cfg.Webhooks, func(w admissionv1.MutatingWebhook) bool { return backedIn(w.FailurePolicy, w.ClientConfig) }) {
				out = append(out, candidate{"MutatingWebhookConfiguration", cfg.Name})
			}
		}
		return nil
	})
	return out
}

// forWebhookConfig is a scan's snapshot of a webhook configuration whose
// fail-closed webhooks have no backend, nil when all of them serve.
func (c *collection) forWebhookConfig(ns string, k candidate) *snapshot.Snapshot {
	s := c.newSnapshot(ns, k.kind, k.name)
	var hooks []snapshot.Webhook
	add := func(name string, policy *admissionv1.FailurePolicyType, cc admissionv1.WebhookClientConfig) {
		if cc.Service == nil || cc.Service.Namespace != ns {
			return
		}
		w := c.webhookState(k.kind, k.name, name, policy, cc)
		if webhookBroken(w) {
			hooks = append(hooks, w)
		}
	}
	adm := c.r.client.AdmissionregistrationV1()
	what, res := "get "+strings.ToLower(k.kind)+" "+k.name, strings.ToLower(k.kind)+"s"
	c.read(what, perm("get", "admissionregistration.k8s.io", res, ""), func(ctx context.Context) error {
		if k.kind == "ValidatingWebhookConfiguration" {
			cfg, err := adm.ValidatingWebhookConfigurations().Get(ctx, k.name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			for _, w := range cfg.Webhooks {
				add(w.Name, w.FailurePolicy, w.ClientConfig)
			}
			return nil
		}
		cfg, err := adm.MutatingWebhookConfigurations().Get(ctx, k.name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, w := range cfg.Webhooks {
			add(w.Name, w.FailurePolicy, w.ClientConfig)
		}
		return nil
	})
	if len(hooks) == 0 {
		return nil
	}
	s.Webhooks = hooks
	s.ReadErrors = c.errs
	return s
}
