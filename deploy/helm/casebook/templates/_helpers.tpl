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
