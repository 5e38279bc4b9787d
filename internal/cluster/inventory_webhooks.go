package cluster

import (
	"casebook/internal/inventory"
	"context"
	"crypto/x509"
	"encoding/pem"
	"net/url"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// webhooks reads both kinds of admission webhook configuration. The
// caBundle is a public CA certificate, not a secret; only its expiry and
// subject are kept.
func (ir *inventoryRead) webhooks() {
	adm := ir.r.client.AdmissionregistrationV1()
	for _, cfg := range listAll(ir, "webhooks", "list validatingwebhookconfigurations",
		perm("list", "admissionregistration.k8s.io", "validatingwebhookconfigurations", ""),
		func(ctx context.Context, o metav1.ListOptions) (page[admissionv1.ValidatingWebhookConfiguration], error) {
			l, err := adm.ValidatingWebhookConfigurations().List(ctx, o)
			if err != nil {
				return page[admissionv1.ValidatingWebhookConfiguration]{}, err
			}
			return page[admissionv1.ValidatingWebhookConfiguration]{l.Items, l.Continue}, nil
		}) {
		for _, w := range cfg.Webhooks {
			ir.inv.Webhooks = append(ir.inv.Webhooks, webhook("ValidatingWebhookConfiguration", cfg.Name, w.Name, w.FailurePolicy,
				w.TimeoutSeconds, w.NamespaceSelector, w.ObjectSelector, w.Rules, w.ClientConfig))
		}
	}
	for _, cfg := range listAll(ir, "webhooks", "list mutatingwebhookconfigurations",
		perm("list", "admissionregistration.k8s.io", "mutatingwebhookconfigurations", ""),
		func(ctx context.Context, o metav1.ListOptions) (page[admissionv1.MutatingWebhookConfiguration], error) {
			l, err := adm.MutatingWebhookConfigurations().List(ctx, o)
			if err != nil {
				return page[admissionv1.MutatingWebhookConfiguration]{}, err
			}
			return page[admissionv1.MutatingWebhookConfiguration]{l.Items, l.Continue}, nil
		}) {
		for _, w := range cfg.Webhooks {
			ir.inv.Webhooks = append(ir.inv.Webhooks, webhook("MutatingWebhookConfiguration", cfg.Name, w.Name, w.FailurePolicy,
				w.TimeoutSeconds, w.NamespaceSelector, w.ObjectSelector, w.Rules, w.ClientConfig))
		}
	}
}

// webhook flattens one webhook, filling in the API's defaults
// (failurePolicy Fail, timeout 10s, scope *) so checks see what the API
// server does.
func webhook(kind, cfg, name string, policy *admissionv1.FailurePolicyType, timeout *int32, nsSel, objSel *metav1.LabelSelector,
	rules []admissionv1.RuleWithOperations, cc admissionv1.WebhookClientConfig) inventory.Webhook {
	w := inventory.Webhook{ConfigKind: kind, ConfigName: cfg, Name: name, FailurePolicy: string(admissionv1.Fail), TimeoutSeconds: 10,
		NamespaceSelector: selector(nsSel), ObjectSelector: selector(objSel)}
	if policy != nil {
		w.FailurePolicy = string(*policy)
	}
	if timeout != nil {
		w.TimeoutSeconds = *timeout
	}
	for _, r := range rules {
		wr := inventory.WebhookRule{APIGroups: r.APIGroups, Resources: r.Resources, Scope: "*"}
		for _, op := range r.Operations {
			wr.Operations = append(wr.Operations, string(op))
		}
		if r.Scope != nil {
			wr.Scope = string(*r.Scope)
		}
		w.Rules = append(w.Rules, wr)
	}
	switch {
	case cc.Service != nil:
		w.Service = cc.Service.Namespace + "/" + cc.Service.Name
	case cc.URL != nil:
		if u, err := url.Parse(*cc.URL); err == nil {
			w.Service = u.Host
		}
	}
	w.CABundleNotAfter, w.CABundleSubject = earliestExpiry(cc.CABundle)
	return w
}

// earliestExpiry returns the first expiry among the PEM certificates of a
// bundle, which is when the bundle stops being able to verify something.
func earliestExpiry(bundle []byte) (time.Time, string) {
	var at time.Time
	var subject string
	for {
		var b *pem.Block
		b, bundle = pem.Decode(bundle)
		if b == nil {
			return at, subject
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			continue
		}
		if at.IsZero() || c.NotAfter.Before(at) {
			at, subject = c.NotAfter.UTC(), c.Subject.String()
		}
	}
}
