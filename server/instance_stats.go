package server

// Instance statistics (/api/admin/instance-admin/statistics and its CSV
// form): counts of what this instance holds, for usage reports.

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// instanceIDSettingName holds the instance's id, generated once and shared
// by every instance of the server using the database.
const instanceIDSettingName = "instance.id"

func registerInstanceStats(s *Server, m mux) {
	m.admin("GET /api/admin/instance-admin/statistics", PermAdmin, s.handleInstanceStats)
	m.admin("GET /api/admin/instance-admin/statistics/csv", PermAdmin, s.handleInstanceStatsCSV)
}

// instanceStats is the part of Unleash's instanceAdminStatsSchema this
// server can fill, in the schema's order (the CSV follows it).
type instanceStats struct {
	InstanceID               string         `json:"instanceId"`
	Timestamp                time.Time      `json:"timestamp"`
	VersionOSS               string         `json:"versionOSS"`
	Users                    int            `json:"users"`
	FeatureToggles           int            `json:"featureToggles"`
	Projects                 int            `json:"projects"`
	ContextFields            int            `json:"contextFields"`
	Roles                    int            `json:"roles"`
	Groups                   int            `json:"groups"`
	Environments             int            `json:"environments"`
	Segments                 int            `json:"segments"`
	Strategies               int            `json:"strategies"`
	SAMLEnabled              bool           `json:"SAMLenabled"`
	OIDCEnabled              bool           `json:"OIDCenabled"`
	ClientApps               []clientAppsIn `json:"clientApps"`
	APITokens                map[string]int `json:"apiTokens"`
	MaxEnvironmentStrategies int            `json:"maxEnvironmentStrategies"`
	MaxConstraints           int            `json:"maxConstraints"`
	MaxConstraintValues      int            `json:"maxConstraintValues"`
	Sum                      string         `json:"sum"`
}

type clientAppsIn struct {
	Range string `json:"range"`
	Count int    `json:"count"`
}

// instanceID reads the instance's id, creating it on first use. Reading
// comes first, so that only the first use takes a write transaction.
func (s *Server) instanceID(r *http.Request) (string, error) {
	var id string
	err := s.view(r.Context(), func(rd store.Reader) error {
		st, err := rd.GetSetting(r.Context(), instanceIDSettingName)
		if err != nil {
			return err
		}
		return json.Unmarshal(st.Value, &id)
	})
	if err == nil && id != "" {
		return id, nil
	}
	if err != nil && !apierr.Is(err, apierr.NotFound) {
		return "", err
	}
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	h := hex.EncodeToString(b)
	fresh, _ := json.Marshal(h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:])
	var st store.Setting
	err = s.store.Update(r.Context(), func(tx store.Tx) error {
		var err error
		st, err = tx.InitSetting(r.Context(), store.Setting{Name: instanceIDSettingName, Value: fresh})
		return err
	})
	if err != nil {
		return "", err
	}
	err = json.Unmarshal(st.Value, &id)
	return id, err
}

func (s *Server) instanceStats(r *http.Request) (instanceStats, error) {
	ctx := r.Context()
	id, err := s.instanceID(r)
	if err != nil {
		return instanceStats{}, err
	}
	now := s.now().UTC()
	out := instanceStats{InstanceID: id, Timestamp: now, VersionOSS: s.cfg.Version, APITokens: map[string]int{"admin": 0, "client": 0, "frontend": 0}}
	err = s.view(ctx, func(rd store.Reader) error {
		users, err := rd.ListUsers(ctx, store.UserFilter{})
		if err != nil {
			return err
		}
		out.Users = len(users)
		active := false
		flags, err := rd.ListFeatures(ctx, store.FeatureFilter{Archived: &active})
		if err != nil {
			return err
		}
		out.FeatureToggles = len(flags)
		projects, err := rd.ListProjects(ctx)
		if err != nil {
			return err
		}
		out.Projects = len(projects)
		fields, err := rd.ListContextFields(ctx)
		if err != nil {
			return err
		}
		out.ContextFields = len(fields)
		roles, err := rd.ListRoles(ctx)
		if err != nil {
			return err
		}
		out.Roles = len(roles)
		groups, err := rd.ListGroups(ctx)
		if err != nil {
			return err
		}
		out.Groups = len(groups)
		envs, err := rd.ListEnvironments(ctx)
		if err != nil {
			return err
		}
		out.Environments = len(envs)
		segments, err := rd.ListSegments(ctx, store.SegmentFilter{})
		if err != nil {
			return err
		}
		out.Segments = len(segments)
		defs, err := rd.ListStrategyDefinitions(ctx)
		if err != nil {
			return err
		}
		out.Strategies = len(defs)
		if st, err := rd.GetSetting(ctx, samlSettingName); err == nil {
			var saml struct {
				Enabled bool `json:"enabled"`
			}
			_ = json.Unmarshal(st.Value, &saml)
			out.SAMLEnabled = saml.Enabled
		}
		apps, err := rd.ListClientApplications(ctx)
		if err != nil {
			return err
		}
		week, month := 0, 0
		for _, a := range apps {
			seen := a.CreatedAt
			if a.SeenAt != nil {
				seen = *a.SeenAt
			}
			if seen.After(now.AddDate(0, 0, -7)) {
				week++
			}
			if seen.After(now.AddDate(0, 0, -30)) {
				month++
			}
		}
		out.ClientApps = []clientAppsIn{{"allTime", len(apps)}, {"30d", month}, {"7d", week}}
		tokens, err := rd.ListAPITokens(ctx, store.APITokenFilter{})
		if err != nil {
			return err
		}
		for _, t := range tokens {
			if _, ok := out.APITokens[t.Type]; ok {
				out.APITokens[t.Type]++
			}
		}
		// Counted in the database: decoding every strategy took most of
		// the answer's time on large instances.
		limits, err := rd.StrategyLimits(ctx)
		out.MaxEnvironmentStrategies, out.MaxConstraints, out.MaxConstraintValues =
			limits.MaxEnvironmentStrategies, limits.MaxConstraints, limits.MaxConstraintValues
		return err
	})
	if err != nil {
		return out, err
	}
	data, err := json.Marshal(out)
	if err != nil {
		return out, err
	}
	sum := sha256.Sum256(data)
	out.Sum = hex.EncodeToString(sum[:])
	return out, nil
}

// handleInstanceStats is Unleash's getInstanceAdminStats. sum is the
// SHA-256 of the answer's JSON with sum empty, so that a report can be
// checked for changes.
func (s *Server) handleInstanceStats(w http.ResponseWriter, r *http.Request) error {
	out, err := s.instanceStats(r)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

// handleInstanceStatsCSV is Unleash's getInstanceAdminStatsCsv: the same
// numbers as one CSV header line and one value line; lists and maps are
// flattened to one column per entry (clientApps30d, apiTokensAdmin, ...).
func (s *Server) handleInstanceStatsCSV(w http.ResponseWriter, r *http.Request) error {
	out, err := s.instanceStats(r)
	if err != nil {
		return err
	}
	var generic map[string]any
	data, _ := json.Marshal(out)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // counts as written, never in exponent form
	if err := dec.Decode(&generic); err != nil {
		return err
	}
	var header, row []string
	add := func(k string, v any) {
		header, row = append(header, k), append(row, fmt.Sprint(v))
	}
	keys := make([]string, 0, len(generic))
	for k := range generic {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		switch v := generic[k].(type) {
		case []any:
			for _, item := range v {
				if m, ok := item.(map[string]any); ok {
					add(k+fmt.Sprint(m["range"]), m["count"])
				}
			}
		case map[string]any:
			sub := make([]string, 0, len(v))
			for sk := range v {
				sub = append(sub, sk)
			}
			slices.Sort(sub)
			for _, sk := range sub {
				add(k+sk, v[sk])
			}
		default:
			add(k, v)
		}
	}
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	_ = cw.Write(header)
	_ = cw.Write(row)
	cw.Flush()
	w.Header().Set("Content-Type", "text/csv")
	w.Header().Set("Content-Disposition", `attachment; filename="signalbox-statistics.csv"`)
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(buf.Bytes())
	return err
}
