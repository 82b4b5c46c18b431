{{/* Chart name, or nameOverride. */}}
{{- define "gpuq.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* RELEASE-gpuq (or just RELEASE when it already contains the name), or fullnameOverride. */}}
{{- define "gpuq.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "gpuq.selectorLabels" -}}
app.kubernetes.io/name: {{ include "gpuq.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "gpuq.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "gpuq.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "gpuq.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/* The Secret that holds the API tokens: the user's, or the one this chart creates. */}}
{{- define "gpuq.tokenSecretName" -}}
{{- default (printf "%s-tokens" (include "gpuq.fullname" .)) .Values.auth.existingSecret }}
{{- end }}

{{/* The Secret that holds the PostgreSQL password: the user's, or the one this chart creates. */}}
{{- define "gpuq.databaseSecretName" -}}
{{- default (printf "%s-database" (include "gpuq.fullname" .)) .Values.database.existingSecret }}
{{- end }}

{{- define "gpuq.databaseSecretKey" -}}
{{- if .Values.database.existingSecret }}{{ .Values.database.existingSecretPasswordKey }}{{ else }}password{{ end }}
{{- end }}

{{/*
Fails, as gpuq would at start, when the jobs of several tokens would run as one account (their
runAs, else worker.runAs) without worker.allowSharedAccount. Compares the names as written: it
cannot tell that a name and a uid:gid are the same account, gpuq still does.
*/}}
{{- define "gpuq.validateAccounts" -}}
{{- if not .Values.worker.allowSharedAccount }}
{{- $owners := dict }}
{{- range $i, $t := .Values.auth.tokens }}
{{- $account := toString (default (default "(the image's GPUQ_WORKER_RUN_AS)" $.Values.worker.runAs) $t.runAs) }}
{{- if hasKey $owners $account }}
{{- fail (printf "auth.tokens %s and %s would both run their jobs as %s, so each could read and stop the other's: give each token its own runAs, or set worker.allowSharedAccount=true" (get $owners $account) (toString $t.name) $account) }}
{{- end }}
{{- $_ := set $owners $account (toString $t.name) }}
{{- end }}
{{- end }}
{{- end }}

{{/* Fails on token entries gpuq would refuse at start, so that helm says it instead. */}}
{{- define "gpuq.validateTokens" -}}
{{- range $i, $t := .Values.auth.tokens }}
{{- if not (regexMatch "^[A-Za-z0-9._-]{1,63}$" (toString $t.name)) }}
{{- fail (printf "auth.tokens[%d].name %q: use 1 to 63 letters, digits, '-', '_' or '.'" $i (toString $t.name)) }}
{{- end }}
{{- if not (has (default "SUBMITTER" $t.role) (list "ADMIN" "SUBMITTER")) }}
{{- fail (printf "auth.tokens[%d].role %q: use ADMIN or SUBMITTER" $i (toString $t.role)) }}
{{- end }}
{{- if and $t.token (lt (len (toString $t.token)) 16) }}
{{- fail (printf "auth.tokens[%d].token: gpuq needs at least 16 characters" $i) }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Fails without database.url unless gpuq is pinned to one node. Without a shared PostgreSQL each
gpuq keeps its own queue (H2 in its data dir), and the Service spreads requests over every pod, so
a GET for a job could land on a node that never saw it (404). A DaemonSet cannot know how many
nodes it will match, so the chart cannot allow H2 on "a single node" other than by naming it.
*/}}
{{- define "gpuq.validateTopology" -}}
{{- if and (not .Values.database.url) (not .Values.singleNode.hostname) }}
{{- fail "database.url is empty: each gpuq would keep its own queue (an H2 database in its data dir), and the Service in front of several nodes would send a request for a job to a node that never saw it (404). Set database.url to a PostgreSQL that every node shares, or singleNode.hostname to the one node gpuq runs on (its kubernetes.io/hostname label)" }}
{{- end }}
{{- end }}

{{/* nodeSelector, with the singleNode.hostname pin added. */}}
{{- define "gpuq.nodeSelector" -}}
{{- $selector := deepCopy (default dict .Values.nodeSelector) }}
{{- with .Values.singleNode.hostname }}
{{- $_ := set $selector "kubernetes.io/hostname" . }}
{{- end }}
{{- with $selector }}
{{- toYaml . }}
{{- end }}
{{- end }}
