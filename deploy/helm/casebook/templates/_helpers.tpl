{{- define "casebook.name" -}}{{ .Chart.Name }}{{- end -}}
{{- define "casebook.fullname" -}}{{ printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" }}{{- end -}}
{{- define "casebook.labels" -}}
app.kubernetes.io/name: {{ include "casebook.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}
{{- define "casebook.selector" -}}
app.kubernetes.io/name: {{ include "casebook.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- /* The host names the portal answers to: the Service's names in the
cluster, the ingress hosts, and allowedHosts. */ -}}
{{- define "casebook.allowedHosts" -}}
{{- $svc := include "casebook.fullname" . -}}
{{- $ns := .Release.Namespace -}}
{{- $hosts := list $svc (printf "%s.%s" $svc $ns) (printf "%s.%s.svc" $svc $ns) (printf "%s.%s.svc.%s" $svc $ns .Values.clusterDomain) -}}
{{- if .Values.ingress.enabled -}}{{- $hosts = concat $hosts .Values.ingress.hosts -}}{{- end -}}
{{- $hosts = concat $hosts .Values.allowedHosts -}}
{{- join "," (uniq $hosts) -}}
{{- end -}}
