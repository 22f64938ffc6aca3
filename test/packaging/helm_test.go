package packaging

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"sigs.k8s.io/yaml"
)

// helmVersion is the helm the chart is checked with, built from its Go
// module once into the user's cache directory.
const helmVersion = "v3.22.0"

var chart = filepath.Join(root, "deploy", "helm", "signalbox")

// helm returns the path of a helm binary: $HELM, or the cached build,
// built on first use with "go install helm.sh/helm/v3/cmd/helm@version".
func helm(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("HELM"); p != "" {
		return p
	}
	cache, err := os.UserCacheDir()
	need(t, "a cache directory for helm", err)
	dir := filepath.Join(cache, "signalbox", "helm-"+helmVersion)
	bin := filepath.Join(dir, "helm")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	_, errOut, err := try(os.TempDir(), []string{"GOBIN=" + dir, "GOFLAGS=-buildvcs=false"}, 15*time.Minute,
		"go", "install", "helm.sh/helm/v3/cmd/helm@"+helmVersion)
	if err != nil {
		need(t, "helm "+helmVersion+" (go install)", &exec.Error{Name: "helm", Err: os.ErrNotExist})
		t.Fatalf("go install helm: %v\n%s", err, errOut)
	}
	return bin
}

// rendered is one "helm template" output, decoded.
type rendered struct {
	statefulSets map[string]*appsv1.StatefulSet
	deployments  map[string]*appsv1.Deployment
	services     map[string]*corev1.Service
	secrets      map[string]*corev1.Secret
	ingresses    map[string]*networkingv1.Ingress
	hpas         map[string]*autoscalingv2.HorizontalPodAutoscaler
}

var docSep = regexp.MustCompile(`(?m)^---\s*$`)

// render runs helm template with values and decodes every object into its
// Kubernetes API type, refusing unknown fields.
func render(t *testing.T, bin string, set ...string) rendered {
	t.Helper()
	args := []string{"template", "sb", chart, "--namespace", "flags"}
	for _, s := range set {
		args = append(args, "--set", s)
	}
	out := run(t, root, nil, bin, args...)
	r := rendered{map[string]*appsv1.StatefulSet{}, map[string]*appsv1.Deployment{}, map[string]*corev1.Service{},
		map[string]*corev1.Secret{}, map[string]*networkingv1.Ingress{}, map[string]*autoscalingv2.HorizontalPodAutoscaler{}}
	for _, doc := range docSep.Split(out, -1) {
		if strings.TrimSpace(regexp.MustCompile(`(?m)^#.*$`).ReplaceAllString(doc, "")) == "" {
			continue
		}
		var meta struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Metadata   struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			t.Fatalf("rendered document is not YAML: %v\n%s", err, doc)
		}
		strict := func(into any) {
			if err := yaml.UnmarshalStrict([]byte(doc), into); err != nil {
				t.Fatalf("%s %s does not decode as %T: %v\n%s", meta.Kind, meta.Metadata.Name, into, err, doc)
			}
		}
		switch meta.APIVersion + " " + meta.Kind {
		case "apps/v1 StatefulSet":
			o := &appsv1.StatefulSet{}
			strict(o)
			r.statefulSets[o.Name] = o
		case "apps/v1 Deployment":
			o := &appsv1.Deployment{}
			strict(o)
			r.deployments[o.Name] = o
		case "v1 Service":
			o := &corev1.Service{}
			strict(o)
			r.services[o.Name] = o
		case "v1 Secret":
			o := &corev1.Secret{}
			strict(o)
			r.secrets[o.Name] = o
		case "networking.k8s.io/v1 Ingress":
			o := &networkingv1.Ingress{}
			strict(o)
			r.ingresses[o.Name] = o
		case "autoscaling/v2 HorizontalPodAutoscaler":
			o := &autoscalingv2.HorizontalPodAutoscaler{}
			strict(o)
			r.hpas[o.Name] = o
		default:
			t.Fatalf("unexpected object %s %s %s", meta.APIVersion, meta.Kind, meta.Metadata.Name)
		}
	}
	return r
}

func envOf(c corev1.Container) map[string]corev1.EnvVar {
	m := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		m[e.Name] = e
	}
	return m
}

// checkHardened checks the pod and container security settings, the
// emptyDir /tmp and that resource requests are set.
func checkHardened(t *testing.T, what string, pod corev1.PodSpec) {
	t.Helper()
	if len(pod.Containers) != 1 {
		t.Fatalf("%s: %d containers", what, len(pod.Containers))
	}
	c := pod.Containers[0]
	psc, sc := pod.SecurityContext, c.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser != 65532 {
		t.Errorf("%s: pod security context %+v", what, psc)
	}
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) != 0 {
		t.Errorf("%s: container security context %+v", what, sc)
	}
	tmp := false
	for _, m := range c.VolumeMounts {
		if m.MountPath == "/tmp" {
			for _, v := range pod.Volumes {
				if v.Name == m.Name && v.EmptyDir != nil {
					tmp = true
				}
			}
		}
	}
	if !tmp {
		t.Errorf("%s: /tmp is not an emptyDir", what)
	}
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() {
		t.Errorf("%s: resource requests %v", what, c.Resources.Requests)
	}
}

// checkProbes checks the readiness and liveness paths on the named port.
func checkProbes(t *testing.T, what string, c corev1.Container, ready, live string) {
	t.Helper()
	for _, p := range []struct {
		probe *corev1.Probe
		path  string
	}{{c.ReadinessProbe, ready}, {c.LivenessProbe, live}} {
		if p.probe == nil || p.probe.HTTPGet == nil || p.probe.HTTPGet.Path != p.path || p.probe.HTTPGet.Port.String() != "http" {
			t.Errorf("%s: probe %+v, want GET %s on port http", what, p.probe, p.path)
		}
	}
}

// TestHelmChart: helm lint passes; the defaults, Edge nodes, PostgreSQL
// from a Secret (and from a URL) render objects that decode into the
// Kubernetes API types with what each case needs; two replicas on SQLite
// are refused at render time.
func TestHelmChart(t *testing.T) {
	bin := helm(t)
	run(t, root, nil, bin, "lint", "--strict", chart)
	run(t, root, nil, bin, "lint", "--strict", chart, "--set", "edge.enabled=true,edge.autoscaling.enabled=true,ingress.enabled=true,database.existingSecret=pg,replicaCount=2")

	chartYAML, err := os.ReadFile(filepath.Join(chart, "Chart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		AppVersion string `json:"appVersion"`
	}
	if err := yaml.Unmarshal(chartYAML, &meta); err != nil || meta.AppVersion == "" {
		t.Fatalf("Chart.yaml appVersion: %v", err)
	}
	image := "localhost/signalbox:" + meta.AppVersion

	t.Run("defaults", func(t *testing.T) {
		r := render(t, bin)
		if len(r.deployments) != 0 || len(r.secrets) != 0 || len(r.ingresses) != 0 || len(r.hpas) != 0 {
			t.Errorf("defaults render more than the StatefulSet and Service: %+v", r)
		}
		ss := r.statefulSets["sb-signalbox"]
		if ss == nil {
			t.Fatalf("no StatefulSet sb-signalbox: %v", r.statefulSets)
		}
		if ss.Spec.Replicas == nil || *ss.Spec.Replicas != 1 {
			t.Errorf("replicas %v", ss.Spec.Replicas)
		}
		pod := ss.Spec.Template.Spec
		checkHardened(t, "server", pod)
		c := pod.Containers[0]
		checkProbes(t, "server", c, "/ready", "/health")
		if c.Image != image || !slices.Equal(c.Args, []string{"server"}) {
			t.Errorf("image %q args %q, want %q server", c.Image, c.Args, image)
		}
		if len(c.Ports) != 1 || c.Ports[0].ContainerPort != 4242 || c.Ports[0].Name != "http" {
			t.Errorf("ports %+v", c.Ports)
		}
		env := envOf(c)
		if env["DATA_DIR"].Value != "/data" {
			t.Errorf("DATA_DIR %+v", env["DATA_DIR"])
		}
		if _, ok := env["DATABASE_URL"]; ok {
			t.Errorf("DATABASE_URL set without PostgreSQL")
		}
		if len(ss.Spec.VolumeClaimTemplates) != 1 || ss.Spec.VolumeClaimTemplates[0].Name != "data" ||
			ss.Spec.VolumeClaimTemplates[0].Spec.Resources.Requests.Storage().String() != "1Gi" {
			t.Errorf("volume claims %+v", ss.Spec.VolumeClaimTemplates)
		}
		mounted := false
		for _, m := range c.VolumeMounts {
			mounted = mounted || (m.Name == "data" && m.MountPath == "/data")
		}
		if !mounted {
			t.Errorf("the data volume is not at /data: %+v", c.VolumeMounts)
		}
		svc := r.services["sb-signalbox"]
		if svc == nil || len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Port != 4242 || svc.Spec.Ports[0].TargetPort.String() != "http" {
			t.Fatalf("service %+v", svc)
		}
		for k, v := range svc.Spec.Selector {
			if ss.Spec.Template.Labels[k] != v {
				t.Errorf("the service's selector %v does not select the pods %v", svc.Spec.Selector, ss.Spec.Template.Labels)
			}
		}
	})

	t.Run("edge", func(t *testing.T) {
		r := render(t, bin, "edge.enabled=true", "edge.tokensSecret=edge-tokens", "edge.autoscaling.enabled=true",
			"image.tag=v9.9.9", "ingress.enabled=true")
		d := r.deployments["sb-signalbox-edge"]
		if d == nil {
			t.Fatalf("no edge Deployment: %v", r.deployments)
		}
		pod := d.Spec.Template.Spec
		checkHardened(t, "edge", pod)
		c := pod.Containers[0]
		checkProbes(t, "edge", c, "/internal-backstage/ready", "/internal-backstage/health")
		if c.Image != "localhost/signalbox:v9.9.9" || !slices.Equal(c.Args, []string{"edge"}) {
			t.Errorf("edge image %q args %q", c.Image, c.Args)
		}
		env := envOf(c)
		if env["UPSTREAM_URL"].Value != "http://sb-signalbox:4242" {
			t.Errorf("UPSTREAM_URL %+v", env["UPSTREAM_URL"])
		}
		if ref := env["TOKENS"].ValueFrom; ref == nil || ref.SecretKeyRef == nil || ref.SecretKeyRef.Name != "edge-tokens" || ref.SecretKeyRef.Key != "tokens" {
			t.Errorf("TOKENS %+v", env["TOKENS"])
		}
		if d.Spec.Replicas != nil {
			t.Errorf("replicas %d set although the autoscaler owns them", *d.Spec.Replicas)
		}
		hpa := r.hpas["sb-signalbox-edge"]
		if hpa == nil || hpa.Spec.ScaleTargetRef.Name != "sb-signalbox-edge" || hpa.Spec.ScaleTargetRef.Kind != "Deployment" {
			t.Errorf("autoscaler %+v", hpa)
		}
		if svc := r.services["sb-signalbox-edge"]; svc == nil || svc.Spec.Ports[0].Port != 3063 {
			t.Errorf("edge service %+v", svc)
		}
		if r.statefulSets["sb-signalbox"] == nil {
			t.Errorf("the server is missing beside the edge nodes")
		}
		ing := r.ingresses["sb-signalbox"]
		if ing == nil || ing.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Name != "sb-signalbox" {
			t.Errorf("ingress %+v", ing)
		}
	})

	t.Run("postgres from a secret", func(t *testing.T) {
		r := render(t, bin, "database.existingSecret=signalbox-db", "replicaCount=3", "initTokens.existingSecret=signalbox-tokens")
		if len(r.statefulSets) != 0 || len(r.secrets) != 0 {
			t.Errorf("a StatefulSet or Secret with PostgreSQL from a Secret: %v %v", r.statefulSets, r.secrets)
		}
		d := r.deployments["sb-signalbox"]
		if d == nil || d.Spec.Replicas == nil || *d.Spec.Replicas != 3 {
			t.Fatalf("server Deployment %+v", d)
		}
		pod := d.Spec.Template.Spec
		checkHardened(t, "server", pod)
		c := pod.Containers[0]
		checkProbes(t, "server", c, "/ready", "/health")
		ref := envOf(c)["DATABASE_URL"].ValueFrom
		if ref == nil || ref.SecretKeyRef == nil || ref.SecretKeyRef.Name != "signalbox-db" || ref.SecretKeyRef.Key != "url" {
			t.Errorf("DATABASE_URL %+v", envOf(c)["DATABASE_URL"])
		}
		if len(c.EnvFrom) != 1 || c.EnvFrom[0].SecretRef == nil || c.EnvFrom[0].SecretRef.Name != "signalbox-tokens" {
			t.Errorf("init tokens %+v", c.EnvFrom)
		}
		for _, v := range pod.Volumes {
			if v.PersistentVolumeClaim != nil {
				t.Errorf("a volume claim with PostgreSQL: %+v", v)
			}
		}
	})

	t.Run("postgres from a url", func(t *testing.T) {
		r := render(t, bin, "database.url=postgres://sb:pw@db:5432/sb", "database.secretKey=dsn")
		s := r.secrets["sb-signalbox-database"]
		if s == nil || s.StringData["dsn"] != "postgres://sb:pw@db:5432/sb" {
			t.Fatalf("database Secret %+v", s)
		}
		d := r.deployments["sb-signalbox"]
		if d == nil {
			t.Fatalf("no server Deployment")
		}
		ref := envOf(d.Spec.Template.Spec.Containers[0])["DATABASE_URL"].ValueFrom
		if ref == nil || ref.SecretKeyRef == nil || ref.SecretKeyRef.Name != s.Name || ref.SecretKeyRef.Key != "dsn" {
			t.Errorf("DATABASE_URL %+v", ref)
		}
	})

	t.Run("two replicas on SQLite are refused", func(t *testing.T) {
		out, errOut, err := try(root, nil, 2*time.Minute, bin, "template", "sb", chart, "--set", "replicaCount=2")
		if err == nil || !strings.Contains(errOut, "SQLite cannot be shared") {
			t.Errorf("helm template with replicaCount=2 and SQLite: %v\n%s%s", err, out, errOut)
		}
	})

	t.Run("schema refuses unknown values", func(t *testing.T) {
		_, errOut, err := try(root, nil, 2*time.Minute, bin, "template", "sb", chart, "--set", "replicas=2")
		if err == nil || !strings.Contains(errOut, "replicas") {
			t.Errorf("helm template with an unknown value: %v\n%s", err, errOut)
		}
	})
}
