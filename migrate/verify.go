package migrate

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/netip"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
)

// ErrDifferent is returned by Verify when the two servers disagree.
var ErrDifferent = errors.New("the answers of the two servers differ")

// VerifyOptions name the two servers and the client tokens to compare with.
type VerifyOptions struct {
	UnleashURL, SignalboxURL string
	// ClientTokens are client (backend) tokens valid on both servers, one
	// per environment to compare.
	ClientTokens []string
	// Contexts is how many generated contexts each flag is evaluated for.
	Contexts int
	Logf     func(format string, args ...any)
	client   func(*client)
}

// Difference is one disagreement between the servers.
type Difference struct {
	Token string // the redacted token whose payloads differ
	Flag  string
	What  string
}

// Verify compares, for each client token, the payloads of
// /api/client/features of both servers and then the answers of our engine
// over generated contexts. It returns every difference found.
func Verify(ctx context.Context, o VerifyOptions) ([]Difference, error) {
	logf := o.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if o.Contexts <= 0 {
		o.Contexts = 1000
	}
	var diffs []Difference
	for _, tok := range o.ClientTokens {
		name := redact(tok)
		fetchFrom := func(base string) (*clientapi.Features, error) {
			c := newClient(base, tok, logf)
			if o.client != nil {
				o.client(c)
			}
			var f clientapi.Features
			if err := c.get(ctx, "/api/client/features", &f); err != nil {
				return nil, err
			}
			return &f, nil
		}
		src, err := fetchFrom(o.UnleashURL)
		if err != nil {
			return nil, fmt.Errorf("reading the source Unleash: %w", err)
		}
		dst, err := fetchFrom(o.SignalboxURL)
		if err != nil {
			// A token Signalbox refuses is a difference SDKs would see.
			diffs = append(diffs, Difference{Token: name, What: "Signalbox: " + err.Error()})
			logf("token %s: Signalbox refused it: %v", name, err)
			continue
		}
		found := comparePayloads(src, dst)
		found = append(found, compareAnswers(src, dst, o.Contexts)...)
		for _, d := range found {
			d.Token = name
			diffs = append(diffs, d)
		}
		logf("token %s: %d flags compared, %d differences", name, len(src.Features), len(found))
	}
	return diffs, nil
}

// normalFlag is a flag as far as SDKs see it, with segments resolved into
// constraints and every list in a canonical order where order does not
// matter.
type normalFlag struct {
	Enabled        bool                   `json:"enabled"`
	ImpressionData bool                   `json:"impressionData"`
	Strategies     []normalStrategy       `json:"strategies"`
	Variants       []clientapi.Variant    `json:"variants"`
	Dependencies   []clientapi.Dependency `json:"dependencies"`
}

type normalStrategy struct {
	ID          string               `json:"id"`
	Name        string               `json:"name"`
	Parameters  clientapi.Parameters `json:"parameters"`
	Constraints []string             `json:"constraints"`
	Variants    []clientapi.Variant  `json:"variants"`
}

func normalConstraint(c clientapi.Constraint) string {
	values := append([]string{}, c.Values...)
	sort.Strings(values)
	if values == nil {
		values = []string{}
	}
	c.Values = values
	b, _ := json.Marshal(c)
	return string(b)
}

func normalVariants(vs []clientapi.Variant) []clientapi.Variant {
	out := []clientapi.Variant{}
	for _, v := range vs {
		if v.Stickiness == "" {
			v.Stickiness = "default"
		}
		if v.WeightType == "" {
			v.WeightType = "variable"
		}
		if len(v.Overrides) == 0 {
			v.Overrides = nil
		}
		for i := range v.Overrides {
			vals := append([]string{}, v.Overrides[i].Values...)
			sort.Strings(vals)
			v.Overrides[i].Values = vals
		}
		out = append(out, v)
	}
	return out
}

func normalize(p *clientapi.Features) map[string]normalFlag {
	segments := map[int][]clientapi.Constraint{}
	for _, s := range p.Segments {
		segments[s.ID] = s.Constraints
	}
	out := map[string]normalFlag{}
	for _, f := range p.Features {
		nf := normalFlag{Enabled: f.Enabled, ImpressionData: f.ImpressionData, Variants: normalVariants(f.Variants), Strategies: []normalStrategy{}, Dependencies: []clientapi.Dependency{}}
		strategies := append([]clientapi.Strategy{}, f.Strategies...)
		sort.SliceStable(strategies, func(i, j int) bool { return sortOrder(strategies[i]) < sortOrder(strategies[j]) })
		for _, s := range strategies {
			ns := normalStrategy{ID: s.ID, Name: s.Name, Parameters: s.Parameters, Variants: normalVariants(s.Variants), Constraints: []string{}}
			if ns.Parameters == nil {
				ns.Parameters = clientapi.Parameters{}
			}
			for _, c := range s.Constraints {
				ns.Constraints = append(ns.Constraints, normalConstraint(c))
			}
			for _, id := range s.Segments {
				cs, ok := segments[id]
				if !ok {
					ns.Constraints = append(ns.Constraints, fmt.Sprintf("missing segment %d", id))
				}
				for _, c := range cs {
					ns.Constraints = append(ns.Constraints, normalConstraint(c))
				}
			}
			sort.Strings(ns.Constraints)
			nf.Strategies = append(nf.Strategies, ns)
		}
		for _, d := range f.Dependencies {
			on := d.WantsEnabled()
			vs := append([]string{}, d.Variants...)
			sort.Strings(vs)
			if len(vs) == 0 {
				vs = nil
			}
			nf.Dependencies = append(nf.Dependencies, clientapi.Dependency{Feature: d.Feature, Enabled: &on, Variants: vs})
		}
		sort.Slice(nf.Dependencies, func(i, j int) bool { return nf.Dependencies[i].Feature < nf.Dependencies[j].Feature })
		out[f.Name] = nf
	}
	return out
}

func sortOrder(s clientapi.Strategy) int {
	if s.SortOrder == nil {
		return 0
	}
	return *s.SortOrder
}

// comparePayloads lists the flags whose SDK view differs.
func comparePayloads(src, dst *clientapi.Features) []Difference {
	a, b := normalize(src), normalize(dst)
	var out []Difference
	for _, name := range sortedKeys(a) {
		nb, ok := b[name]
		if !ok {
			out = append(out, Difference{Flag: name, What: "missing in Signalbox"})
			continue
		}
		// Unleash 8 and Signalbox leave strategy ids out of client payloads
		// (older Unleash versions show them): they are compared only where
		// both show them. SDKs do not read them; the migration's own report
		// says which ids it could not carry.
		if len(a[name].Strategies) == len(nb.Strategies) {
			for i, s := range a[name].Strategies {
				if s.ID == "" || nb.Strategies[i].ID == "" {
					a[name].Strategies[i].ID, nb.Strategies[i].ID = "", ""
				}
			}
		}
		ja, _ := json.Marshal(a[name])
		jb, _ := json.Marshal(nb)
		if string(ja) != string(jb) {
			out = append(out, Difference{Flag: name, What: fmt.Sprintf("payload differs:\n    Unleash:   %s\n    Signalbox: %s", ja, jb)})
		}
	}
	for _, name := range sortedKeys(b) {
		if _, ok := a[name]; !ok {
			out = append(out, Difference{Flag: name, What: "only in Signalbox"})
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// compareAnswers evaluates every flag of both payloads with our engine for
// n generated contexts and lists the first disagreement of each flag.
// Random draws and the clock are fixed so that both sides see the same.
func compareAnswers(src, dst *clientapi.Features, n int) []Difference {
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	opts := func() engine.Options {
		return engine.Options{Rand: func(int) int { return 0 }, Now: func() time.Time { return now }, Hostname: "verify-host"}
	}
	a, b := engine.Compile(src, opts()), engine.Compile(dst, opts())
	var out []Difference
	contexts := GenerateContexts(src, n, 1)
	for _, name := range a.Names() {
		if !b.Has(name) {
			continue
		}
		for _, c := range contexts {
			ra, rb := a.Evaluate(name, &c), b.Evaluate(name, &c)
			if ra.Enabled != rb.Enabled || ra.Variant.Name != rb.Variant.Name || ra.Variant.Enabled != rb.Variant.Enabled || !same(ra.Variant.Payload, rb.Variant.Payload) {
				ctxJSON, _ := json.Marshal(c)
				out = append(out, Difference{Flag: name, What: fmt.Sprintf("answers differ for context %s: Unleash enabled=%t variant=%s, Signalbox enabled=%t variant=%s",
					ctxJSON, ra.Enabled, ra.Variant.Name, rb.Enabled, rb.Variant.Name)})
				break
			}
		}
	}
	return out
}

// GenerateContexts makes n evaluation contexts that exercise a payload:
// the values its constraints, segments and overrides name, near misses of
// them, and random users, sessions and addresses. The same seed gives the
// same contexts.
func GenerateContexts(p *clientapi.Features, n int, seed uint64) []engine.Context {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	values := map[string][]string{}
	add := func(field string, vs ...string) {
		for _, v := range vs {
			if v != "" && !slices.Contains(values[field], v) {
				values[field] = append(values[field], v)
			}
		}
	}
	addConstraint := func(c clientapi.Constraint) {
		add(c.ContextName, c.Values...)
		add(c.ContextName, c.Value)
		for _, v := range append(append([]string{}, c.Values...), c.Value) {
			if v == "" {
				continue
			}
			// Near misses: other case, a prefix, a suffix, neighbouring
			// numbers and versions, instants around a date.
			add(c.ContextName, strings.ToUpper(v), v+"x", "x"+v)
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				add(c.ContextName, strconv.FormatFloat(f+1, 'f', -1, 64), strconv.FormatFloat(f-1, 'f', -1, 64))
			}
			if t, err := time.Parse(time.RFC3339, v); err == nil {
				add(c.ContextName, t.Add(time.Hour).Format(time.RFC3339), t.Add(-time.Hour).Format(time.RFC3339))
			}
			if strings.Count(v, ".") == 2 {
				add(c.ContextName, v+"-beta.1", "0.0.1", "99.0.0")
			}
		}
	}
	for _, s := range p.Segments {
		for _, c := range s.Constraints {
			addConstraint(c)
		}
	}
	for _, f := range p.Features {
		for _, s := range f.Strategies {
			for _, c := range s.Constraints {
				addConstraint(c)
			}
			for k, v := range s.Parameters {
				if k == "userIds" || k == "IPs" || k == "hostNames" {
					for _, x := range strings.Split(v, ",") {
						field := map[string]string{"userIds": "userId", "IPs": "remoteAddress", "hostNames": "hostname"}[k]
						add(field, strings.TrimSpace(x))
					}
				}
				if k == "stickiness" && v != "default" && v != "random" {
					add(v, "s1", "s2", "s3")
				}
			}
		}
		for _, v := range f.Variants {
			for _, o := range v.Overrides {
				add(o.ContextName, o.Values...)
			}
		}
	}
	fields := sortedKeys(values)
	pick := func(field string) (string, bool) {
		vs := values[field]
		if len(vs) == 0 || rng.IntN(4) == 0 {
			return "", false
		}
		return vs[rng.IntN(len(vs))], true
	}
	out := make([]engine.Context, 0, n)
	for i := range n {
		c := engine.Context{
			UserID:      fmt.Sprintf("user-%d", rng.IntN(100000)),
			SessionID:   fmt.Sprintf("session-%d", rng.IntN(100000)),
			AppName:     "verify",
			Environment: "default",
			Properties:  map[string]string{},
		}
		if i%7 == 0 {
			c.UserID = ""
		}
		if i%11 == 0 {
			c.SessionID = ""
		}
		c.RemoteAddress = netip.AddrFrom4([4]byte{10, byte(rng.IntN(4)), byte(rng.IntN(256)), byte(rng.IntN(256))}).String()
		for _, field := range fields {
			v, ok := pick(field)
			if !ok {
				continue
			}
			switch field {
			case "userId":
				c.UserID = v
			case "sessionId":
				c.SessionID = v
			case "remoteAddress":
				if _, err := netip.ParseAddr(v); err == nil {
					c.RemoteAddress = v
				}
			case "appName":
				c.AppName = v
			case "environment":
				c.Environment = v
			case "currentTime":
				if t, err := time.Parse(time.RFC3339, v); err == nil {
					c.CurrentTime = t
				}
			default:
				c.Properties[field] = v
			}
		}
		out = append(out, c)
	}
	return out
}

func verifyMain(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: signalbox migrate verify --url URL --client-token TOKEN[,TOKEN…] --signalbox-url URL [flags]\n\nflags:\n")
		fs.PrintDefaults()
		fmt.Fprint(stderr, "\n"+verifyEnv)
	}
	rawURL := fs.String("url", env("UNLEASH_SOURCE_URL"), "base URL of the Unleash (env UNLEASH_SOURCE_URL)")
	fs.String("token", env("UNLEASH_SOURCE_TOKEN"), "admin token of the Unleash; accepted for symmetry with from-unleash, the comparison needs only client tokens (env UNLEASH_SOURCE_TOKEN)")
	var tokens []string
	for _, t := range strings.Split(env("UNLEASH_CLIENT_TOKENS"), ",") {
		if t = strings.TrimSpace(t); t != "" {
			tokens = append(tokens, t)
		}
	}
	fromFlags := false
	fs.Func("client-token", "client token valid on both servers, one per environment; repeat or separate with commas (env UNLEASH_CLIENT_TOKENS)", func(v string) error {
		if !fromFlags {
			tokens, fromFlags = nil, true
		}
		for _, t := range strings.Split(v, ",") {
			if t = strings.TrimSpace(t); t != "" {
				tokens = append(tokens, t)
			}
		}
		return nil
	})
	sbURL := fs.String("signalbox-url", envOr(env, "SIGNALBOX_URL", "http://localhost:4242"), "base URL of the Signalbox server (env SIGNALBOX_URL)")
	n := fs.Int("contexts", 1000, "generated contexts per flag")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected arguments %q", fs.Args())}
	}
	src, err := checkURL(*rawURL, "url")
	if err != nil {
		return err
	}
	dst, err := checkURL(*sbURL, "signalbox-url")
	if err != nil {
		return err
	}
	if len(tokens) == 0 {
		return usageError{errors.New("--client-token is required")}
	}
	diffs, err := Verify(ctx, VerifyOptions{UnleashURL: src, SignalboxURL: dst, ClientTokens: tokens, Contexts: *n, Logf: logger(stderr)})
	if err != nil {
		return err
	}
	if len(diffs) == 0 {
		fmt.Fprintf(stdout, "Identical: %d client tokens, payloads and answers over %d contexts agree.\n", len(tokens), *n)
		return nil
	}
	for _, d := range diffs {
		fmt.Fprintf(stdout, "%s %s: %s\n", d.Token, d.Flag, d.What)
	}
	return fmt.Errorf("%w: %d differences", ErrDifferent, len(diffs))
}
