package proxy

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/signalbox/signalbox/answer"
	"github.com/signalbox/signalbox/internal/clientip"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// TestConfigFromEnvEveryVariable sets each variable of the reference
// proxy's two tables (and ours) and checks the option it lands in. A variable added to
// EnvVars without a case here fails the test.
func TestConfigFromEnvEveryVariable(t *testing.T) {
	f := false
	cases := map[string]struct {
		value string
		check func(c Config) bool
	}{
		"SERVICE_URL":                       {"http://up:4242/api", func(c Config) bool { return c.ServiceURL == "http://up:4242/api" }},
		"SERVICE_API_TOKEN":                 {"tok", func(c Config) bool { return c.ServiceAPIToken == "tok" }},
		"SERVICE_PROXY_CLIENT_KEYS":         {"a, b,,c", func(c Config) bool { return cmp.Equal(c.ClientKeys, []string{"a", "b", "c"}) }},
		"SERVICE_PROXY_SECRETS":             {"s1,s2", func(c Config) bool { return cmp.Equal(c.ProxySecrets, []string{"s1", "s2"}) }},
		"PORT":                              {"4000", func(c Config) bool { return c.Port == 4000 }},
		"PROXY_PORT":                        {"4001", func(c Config) bool { return c.Port == 4001 }},
		"HTTP_HOST":                         {"127.0.0.1", func(c Config) bool { return c.Host == "127.0.0.1" }},
		"PROXY_BASE_PATH":                   {"base/path", func(c Config) bool { return c.ProxyBasePath == "base/path" }},
		"SERVICE_APP_NAME":                  {"app", func(c Config) bool { return c.ServiceAppName == "app" }},
		"SERVICE_INSTANCE_ID":               {"inst", func(c Config) bool { return c.ServiceInstanceID == "inst" }},
		"SERVICE_FETCH_INTERVAL":            {"1500", func(c Config) bool { return c.RefreshInterval == 1500*time.Millisecond }},
		"SERVICE_STREAMING":                 {"false", func(c Config) bool { return cmp.Equal(c.ServiceStreaming, &f) }},
		"SERVICE_METRICS_INTERVAL":          {"2500", func(c Config) bool { return c.MetricsInterval == 2500*time.Millisecond }},
		"SERVICE_METRICS_JITTER":            {"300", func(c Config) bool { return c.MetricsJitter == 300*time.Millisecond }},
		"SERVICE_ENVIRONMENT":               {"production", func(c Config) bool { return c.Environment == "production" }},
		"SERVICE_PROJECT_NAME":              {"proj", func(c Config) bool { return c.ProjectName == "proj" }},
		"JSON_LOGGER":                       {"true", func(c Config) bool { return c.UseJSONLogger }},
		"LOG_LEVEL":                         {"DEBUG", func(c Config) bool { return c.LogLevel == "debug" }},
		"SERVICE_CUSTOM_STRATEGIES_FILE":    {"strategies.js", func(c Config) bool { return c.CustomStrategiesFile == "strategies.js" }},
		"TRUST_PROXY":                       {"10.0.0.0/8,127.0.0.1", func(c Config) bool { return c.TrustProxy.String() == "10.0.0.0/8,127.0.0.1" }},
		"SERVICE_NAME_PREFIX":               {"web.", func(c Config) bool { return c.NamePrefix == "web." }},
		"SERVICE_TAGS":                      {"simple:a, team:b", func(c Config) bool { return cmp.Equal(c.Tags, []Tag{{"simple", "a"}, {"team", "b"}}) }},
		"CLIENT_KEY_HEADER_NAME":            {"x-key", func(c Config) bool { return c.ClientKeysHeaderName == "x-key" }},
		"SIGNALBOX_PROXY_BACKUP_DIR":        {"backups", func(c Config) bool { return c.BackupDir == "backups" }},
		"ENABLE_OAS":                        {"true", func(c Config) bool { return c.EnableOAS }},
		"ENABLE_ALL_ENDPOINT":               {"TRUE", func(c Config) bool { return c.EnableAllEndpoint }},
		"CORS_ALLOWED_HEADERS":              {"a,b", func(c Config) bool { return cmp.Equal(c.CORS.AllowedHeaders, []string{"a", "b"}) }},
		"CORS_CREDENTIALS":                  {"true", func(c Config) bool { return c.CORS.Credentials }},
		"CORS_EXPOSED_HEADERS":              {"ETag,X-A", func(c Config) bool { return cmp.Equal(c.CORS.ExposedHeaders, []string{"ETag", "X-A"}) }},
		"CORS_MAX_AGE":                      {"60", func(c Config) bool { return c.CORS.MaxAge == 60 }},
		"CORS_METHODS":                      {"GET, POST, PUT", func(c Config) bool { return cmp.Equal(c.CORS.Methods, []string{"GET", "POST", "PUT"}) }},
		"CORS_OPTIONS_SUCCESS_STATUS":       {"200", func(c Config) bool { return c.CORS.OptionsSuccessStatus == 200 }},
		"CORS_ORIGIN":                       {"https://a, https://b", func(c Config) bool { return cmp.Equal(c.CORS.Origin, []string{"https://a", "https://b"}) }},
		"CORS_PREFLIGHT_CONTINUE":           {"true", func(c Config) bool { return c.CORS.PreflightContinue }},
		"HTTP_OPTIONS_REJECT_UNAUTHORIZED":  {"false", func(c Config) bool { return cmp.Equal(c.HTTPOptions.RejectUnauthorized, &f) }},
		"EXP_BOOTSTRAP_URL":                 {"https://boot/x.json", func(c Config) bool { return c.ExpBootstrap.URL == "https://boot/x.json" }},
		"EXP_BOOTSTRAP_AUTHORIZATION":       {"Bearer b", func(c Config) bool { return c.ExpBootstrap.Authorization == "Bearer b" }},
		"EXP_SERVER_SIDE_SDK_CONFIG_TOKENS": {"t1,t2", func(c Config) bool { return cmp.Equal(c.ExpServerSideSDKConfig.Tokens, []string{"t1", "t2"}) }},
		"EXP_CUSTOM_ENRICHERS_FILE":         {"enrich.js", func(c Config) bool { return c.ExpCustomEnrichersFile == "enrich.js" }},
	}
	cases["SIGNALBOX_PROXY_ANSWER_CACHE_BYTES"] = struct {
		value string
		check func(c Config) bool
	}{"1048576", func(c Config) bool { return c.AnswerCacheBytes == 1<<20 }}
	for _, ev := range EnvVars() {
		tc, ok := cases[ev.Name]
		if !ok {
			t.Errorf("no test case for %s", ev.Name)
			continue
		}
		delete(cases, ev.Name)
		c, err := ConfigFromEnv(env(map[string]string{ev.Name: tc.value}))
		if err != nil {
			t.Errorf("%s=%s: %v", ev.Name, tc.value, err)
			continue
		}
		if !tc.check(c) {
			t.Errorf("%s=%s gave %+v", ev.Name, tc.value, c)
		}
		if ev.Help == "" {
			t.Errorf("%s has no help text", ev.Name)
		}
	}
	for name := range cases {
		t.Errorf("%s is tested but not read", name)
	}
}

func TestConfigFromEnvPrecedence(t *testing.T) {
	c, err := ConfigFromEnv(env(map[string]string{"PORT": "4000", "PROXY_PORT": "5000"}))
	if err != nil || c.Port != 4000 {
		t.Errorf("PORT should win over PROXY_PORT: %d %v", c.Port, err)
	}
	// @unleash/proxy's UNLEASH_ names are read when SERVICE_ ones are unset.
	c, _ = ConfigFromEnv(env(map[string]string{"UNLEASH_URL": "http://u/api", "SERVICE_API_TOKEN": "s", "UNLEASH_API_TOKEN": "u",
		"UNLEASH_PROXY_CLIENT_KEYS": "k"}))
	if c.ServiceURL != "http://u/api" || c.ServiceAPIToken != "s" || !cmp.Equal(c.ClientKeys, []string{"k"}) {
		t.Errorf("UNLEASH_ fallback: %+v", c)
	}
	// The deprecated alias is used only without client keys.
	c, _ = ConfigFromEnv(env(map[string]string{"SERVICE_PROXY_CLIENT_KEYS": "new", "SERVICE_PROXY_SECRETS": "old"}))
	if !cmp.Equal(c.clientKeys(), []string{"new"}) {
		t.Errorf("keys %v", c.clientKeys())
	}
	c, _ = ConfigFromEnv(env(map[string]string{"SERVICE_PROXY_SECRETS": "old"}))
	if !cmp.Equal(c.clientKeys(), []string{"old"}) {
		t.Errorf("alias keys %v", c.clientKeys())
	}
}

func TestConfigFromEnvErrors(t *testing.T) {
	_, err := ConfigFromEnv(env(map[string]string{
		"PORT": "http", "SERVICE_FETCH_INTERVAL": "5s", "ENABLE_OAS": "maybe", "TRUST_PROXY": "not-an-ip",
		"SERVICE_TAGS": "novalue", "CORS_MAX_AGE": "x", "HTTP_OPTIONS_REJECT_UNAUTHORIZED": "nah",
	}))
	if err == nil {
		t.Fatal("no error")
	}
	for _, name := range []string{"PORT", "SERVICE_FETCH_INTERVAL", "ENABLE_OAS", "TRUST_PROXY", "SERVICE_TAGS", "CORS_MAX_AGE", "HTTP_OPTIONS_REJECT_UNAUTHORIZED"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error does not name %s: %v", name, err)
		}
	}
}

// TestValidate: every missing required option is named in one message.
func TestValidate(t *testing.T) {
	err := Config{}.Validate()
	if err == nil {
		t.Fatal("empty config is valid")
	}
	msg := err.Error()
	if strings.Count(msg, "\n") != 0 {
		t.Errorf("want one message, got %q", msg)
	}
	for _, want := range []string{"serviceUrl (SERVICE_URL)", "serviceApiToken (SERVICE_API_TOKEN)", "clientKeys (SERVICE_PROXY_CLIENT_KEYS)"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q does not name %s", msg, want)
		}
	}
	ok := Config{ServiceURL: "http://u/api", ServiceAPIToken: "t", ClientKeys: []string{"k"}}
	if err := ok.Validate(); err != nil {
		t.Errorf("minimal config: %v", err)
	}
	alias := Config{ServiceURL: "http://u/api", ServiceAPIToken: "t", ProxySecrets: []string{"k"}}
	if err := alias.Validate(); err != nil {
		t.Errorf("proxySecrets alone: %v", err)
	}
	for name, mod := range map[string]func(*Config){
		"serviceUrl":           func(c *Config) { c.ServiceURL = "ftp://x" },
		"expBootstrap.url":     func(c *Config) { c.ExpBootstrap.URL = "not a url" },
		"logLevel":             func(c *Config) { c.LogLevel = "loud" },
		"clientKeysHeaderName": func(c *Config) { c.ClientKeysHeaderName = "bad header" },
		"refreshInterval":      func(c *Config) { c.RefreshInterval = -1 },
		"optionsSuccessStatus": func(c *Config) { c.CORS.OptionsSuccessStatus = 404 },
		"port":                 func(c *Config) { c.Port = 70000 },
		"tag":                  func(c *Config) { c.Tags = []Tag{{Name: "x"}} },
	} {
		c := ok
		mod(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: error %v", name, err)
		}
	}
	if _, err := New(Config{}); err == nil {
		t.Error("New accepted an empty config")
	}
}

func TestDefaults(t *testing.T) {
	c := Config{ServiceURL: "http://u/api/", ServiceAPIToken: "t", ClientKeys: []string{"k"}, ProxyBasePath: "base/path/"}.withDefaults()
	want := Config{
		ServiceURL: "http://u/api", ServiceAPIToken: "t", ClientKeys: []string{"k"}, ProxyBasePath: "/base/path",
		Port: 3000, ServiceAppName: "service-proxy", RefreshInterval: 5 * time.Second, MetricsInterval: 30 * time.Second,
		ClientKeysHeaderName: "authorization", LogLevel: "warn", MaxBodyBytes: 1 << 20, UpstreamTimeout: 10 * time.Second,
		SDKVersion: "signalbox-proxy:dev",
	}
	want.AnswerCacheBytes = answer.DefaultCacheBytes
	if diff := cmp.Diff(want, c, cmpopts.IgnoreUnexported(clientip.Trust{})); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
	if !(HTTPOptions{}).rejectUnauthorized() {
		t.Error("rejectUnauthorized should default to true")
	}
	for in, want := range map[string]string{"": "", "/": "", "base/path": "/base/path", "/a/": "/a"} {
		if got := normalizeBasePath(in); got != want {
			t.Errorf("normalizeBasePath(%q) = %q, want %q", in, got, want)
		}
	}
}
