package packaging

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// composeFile is the part of the Compose specification the file uses;
// decoding refuses any other field.
type composeFile struct {
	Name     string                    `json:"name"`
	Services map[string]composeService `json:"services"`
	Volumes  map[string]*struct{}      `json:"volumes"`
}

type composeService struct {
	Image       string                       `json:"image"`
	Command     []string                     `json:"command"`
	Restart     string                       `json:"restart"`
	Environment map[string]string            `json:"environment"`
	Ports       []string                     `json:"ports"`
	Volumes     []string                     `json:"volumes"`
	Profiles    []string                     `json:"profiles"`
	DependsOn   map[string]composeDependency `json:"depends_on"`
	Healthcheck *struct {
		Test        []string `json:"test"`
		Interval    string   `json:"interval"`
		Timeout     string   `json:"timeout"`
		Retries     int      `json:"retries"`
		StartPeriod string   `json:"start_period"`
	} `json:"healthcheck"`
}

type composeDependency struct {
	Condition string `json:"condition"`
}

// TestComposeFile: signalbox on postgres, started once postgres is
// healthy, both with health checks (signalbox's through its own binary),
// PostgreSQL's data on a named volume, an optional edge behind a profile.
func TestComposeFile(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "deploy", "compose", "compose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var f composeFile
	if err := yaml.UnmarshalStrict(data, &f); err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
	sb, pg, edge := f.Services["signalbox"], f.Services["postgres"], f.Services["edge"]
	if len(f.Services) != 3 {
		t.Errorf("services %v", f.Services)
	}
	if !strings.Contains(sb.Image, "localhost/signalbox:latest") || !slices.Equal(sb.Command, []string{"server"}) {
		t.Errorf("signalbox image %q command %q", sb.Image, sb.Command)
	}
	if u := sb.Environment["DATABASE_URL"]; !strings.HasPrefix(u, "postgres://") || !strings.Contains(u, "@postgres:5432/") {
		t.Errorf("DATABASE_URL %q does not point at the postgres service", u)
	}
	if sb.DependsOn["postgres"].Condition != "service_healthy" {
		t.Errorf("signalbox depends_on %+v", sb.DependsOn)
	}
	if sb.Healthcheck == nil || !slices.Equal(sb.Healthcheck.Test, []string{"CMD", "/signalbox", "healthcheck"}) {
		t.Errorf("signalbox health check %+v", sb.Healthcheck)
	}
	if !slices.Contains(sb.Ports, "4242:4242") {
		t.Errorf("signalbox ports %v", sb.Ports)
	}
	if pg.Healthcheck == nil || len(pg.Healthcheck.Test) < 2 || pg.Healthcheck.Test[0] != "CMD" || pg.Healthcheck.Test[1] != "pg_isready" {
		t.Errorf("postgres health check %+v", pg.Healthcheck)
	}
	named := false
	for _, v := range pg.Volumes {
		src, dst, _ := strings.Cut(v, ":")
		if _, ok := f.Volumes[src]; ok && dst == "/var/lib/postgresql/data" {
			named = true
		}
	}
	if !named {
		t.Errorf("postgres data %v is not on a named volume of %v", pg.Volumes, f.Volumes)
	}
	if len(sb.Profiles) != 0 || len(pg.Profiles) != 0 {
		t.Errorf("signalbox or postgres behind a profile")
	}
	if !slices.Equal(edge.Profiles, []string{"edge"}) || !slices.Equal(edge.Command, []string{"edge"}) ||
		edge.Environment["UPSTREAM_URL"] != "http://signalbox:4242" || edge.DependsOn["signalbox"].Condition != "service_healthy" {
		t.Errorf("edge service %+v", edge)
	}
	if edge.Healthcheck == nil || len(edge.Healthcheck.Test) < 3 || edge.Healthcheck.Test[1] != "/signalbox" || edge.Healthcheck.Test[2] != "healthcheck" {
		t.Errorf("edge health check %+v", edge.Healthcheck)
	}
}
