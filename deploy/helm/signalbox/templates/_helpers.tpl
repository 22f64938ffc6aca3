{{/* The release's name for its objects, at most 63 characters. */}}
{{- define "signalbox.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "signalbox.edgeName" -}}
{{- printf "%s-edge" (include "signalbox.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "signalbox.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "signalbox.selector" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: server
{{- end -}}

{{- define "signalbox.edgeSelector" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: edge
{{- end -}}

{{- define "signalbox.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* Whether the server uses PostgreSQL. */}}
{{- define "signalbox.postgres" -}}
{{- if or .Values.database.url .Values.database.existingSecret -}}true{{- end -}}
{{- end -}}

{{- define "signalbox.databaseSecret" -}}
{{- default (printf "%s-database" (include "signalbox.fullname" .)) .Values.database.existingSecret -}}
{{- end -}}

{{/* Refuses values that cannot work. */}}
{{- define "signalbox.validate" -}}
{{- if and (gt (int .Values.replicaCount) 1) (not (include "signalbox.postgres" .)) -}}
{{- fail "replicaCount > 1 needs PostgreSQL (database.url or database.existingSecret): SQLite cannot be shared between replicas" -}}
{{- end -}}
{{- if and .Values.database.url .Values.database.existingSecret -}}
{{- fail "set database.url or database.existingSecret, not both" -}}
{{- end -}}
{{- end -}}

{{- define "signalbox.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
fsGroup: 65532
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "signalbox.containerSecurityContext" -}}
runAsNonRoot: true
readOnlyRootFilesystem: true
allowPrivilegeEscalation: false
capabilities:
  drop: [ALL]
{{- end -}}

{{/* The server's pod template, shared by the StatefulSet and the Deployment. */}}
{{- define "signalbox.podTemplate" -}}
metadata:
  labels:
    {{- include "signalbox.selector" . | nindent 4 }}
  {{- with .Values.podAnnotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  {{- with .Values.imagePullSecrets }}
  imagePullSecrets:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  securityContext:
    {{- include "signalbox.podSecurityContext" . | nindent 4 }}
  containers:
    - name: signalbox
      image: {{ include "signalbox.image" . | quote }}
      imagePullPolicy: {{ .Values.image.pullPolicy }}
      args: ["server"]
      ports:
        - name: http
          containerPort: 4242
          protocol: TCP
      env:
        - name: PORT
          value: "4242"
        - name: DATA_DIR
          value: /data
        {{- if include "signalbox.postgres" . }}
        - name: DATABASE_URL
          valueFrom:
            secretKeyRef:
              name: {{ include "signalbox.databaseSecret" . }}
              key: {{ .Values.database.secretKey }}
        {{- end }}
        {{- with .Values.extraEnv }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      {{- with .Values.initTokens.existingSecret }}
      envFrom:
        - secretRef:
            name: {{ . }}
      {{- end }}
      readinessProbe:
        httpGet:
          path: /ready
          port: http
        periodSeconds: 5
        failureThreshold: 3
      livenessProbe:
        httpGet:
          path: /health
          port: http
        initialDelaySeconds: 10
        periodSeconds: 10
        failureThreshold: 6
      securityContext:
        {{- include "signalbox.containerSecurityContext" . | nindent 8 }}
      resources:
        {{- toYaml .Values.resources | nindent 8 }}
      volumeMounts:
        - name: tmp
          mountPath: /tmp
        - name: data
          mountPath: /data
  volumes:
    - name: tmp
      emptyDir: {}
    {{- if or (include "signalbox.postgres" .) (not .Values.persistence.enabled) }}
    - name: data
      emptyDir: {}
    {{- end }}
  {{- with .Values.nodeSelector }}
  nodeSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.tolerations }}
  tolerations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.affinity }}
  affinity:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end -}}
