package server

import (
	"context"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// Segments: named, reusable lists of constraints that strategies refer to
// by id.

func registerSegments(s *Server, m mux) {
	m.admin("GET /api/admin/segments", PermRead, s.handleListSegments)
	m.admin("POST /api/admin/segments", PermCreateSegment, s.handleCreateSegment)
	m.admin("POST /api/admin/segments/validate", PermCreateSegment, s.handleValidateSegment)
	m.admin("GET /api/admin/segments/{id}", PermRead, s.handleGetSegment)
	m.admin("PUT /api/admin/segments/{id}", PermUpdateSegment, s.handleUpdateSegment)
	m.admin("DELETE /api/admin/segments/{id}", PermDeleteSegment, s.handleDeleteSegment)
	m.admin("GET /api/admin/segments/{id}/strategies", PermRead, s.handleSegmentStrategies)
}

// maxSegmentValues bounds the values of all constraints of one segment, as
// Unleash's segmentValuesLimit does: every SDK downloads them.
const maxSegmentValues = 1000

// segmentJSON is Unleash's adminSegmentSchema.
type segmentJSON struct {
	ID             int                    `json:"id"`
	Name           string                 `json:"name"`
	Description    *string                `json:"description"`
	Project        *string                `json:"project"`
	Constraints    []clientapi.Constraint `json:"constraints"`
	UsedInFeatures *int                   `json:"usedInFeatures,omitempty"`
	UsedInProjects *int                   `json:"usedInProjects,omitempty"`
	CreatedBy      *string                `json:"createdBy"`
	CreatedAt      time.Time              `json:"createdAt"`
}

func segmentResponse(sg store.Segment) segmentJSON {
	cs := sg.Constraints
	if cs == nil {
		cs = []clientapi.Constraint{}
	}
	return segmentJSON{
		ID: sg.ID, Name: sg.Name, Description: nullable(sg.Description), Project: nullable(sg.Project),
		Constraints: cs, CreatedBy: nullable(sg.CreatedBy), CreatedAt: sg.CreatedAt,
	}
}

// segmentUsage is where a segment is used: its strategies and the projects
// of their flags.
type segmentUsage struct {
	strategies []store.Strategy
	features   map[string]bool
	projects   map[string]bool
}

// segmentUsages maps segment ids to their usage, from one read of the
// strategies and flags.
func segmentUsages(ctx context.Context, rd store.Reader) (map[int]*segmentUsage, map[string]string, error) {
	strategies, err := rd.ListStrategies(ctx, store.StrategyFilter{WithSegments: true})
	if err != nil {
		return nil, nil, err
	}
	features, err := rd.ListFeatures(ctx, store.FeatureFilter{})
	if err != nil {
		return nil, nil, err
	}
	projectOf := make(map[string]string, len(features))
	for _, f := range features {
		projectOf[f.Name] = f.Project
	}
	out := map[int]*segmentUsage{}
	for _, st := range strategies {
		for _, id := range st.Segments {
			u := out[id]
			if u == nil {
				u = &segmentUsage{features: map[string]bool{}, projects: map[string]bool{}}
				out[id] = u
			}
			u.strategies = append(u.strategies, st)
			u.features[st.Feature] = true
			u.projects[projectOf[st.Feature]] = true
		}
	}
	return out, projectOf, nil
}

func (s *Server) handleListSegments(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	var out []segmentJSON
	err := s.view(ctx, func(rd store.Reader) error {
		list, err := rd.ListSegments(ctx, store.SegmentFilter{Project: r.URL.Query().Get("project")})
		if err != nil {
			return err
		}
		usages, _, err := segmentUsages(ctx, rd)
		if err != nil {
			return err
		}
		out = make([]segmentJSON, len(list))
		for i, sg := range list {
			out[i] = withSegmentUsage(segmentResponse(sg), usages[sg.ID])
		}
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"segments": out})
}

func withSegmentUsage(j segmentJSON, u *segmentUsage) segmentJSON {
	features, projects := 0, 0
	if u != nil {
		features, projects = len(u.features), len(u.projects)
	}
	j.UsedInFeatures, j.UsedInProjects = &features, &projects
	return j
}

func (s *Server) handleGetSegment(w http.ResponseWriter, r *http.Request) error {
	id, err := pathInt(r, "id")
	if err != nil {
		return err
	}
	ctx := r.Context()
	var out segmentJSON
	err = s.view(ctx, func(rd store.Reader) error {
		sg, err := rd.GetSegment(ctx, id)
		if err != nil {
			return err
		}
		usages, _, err := segmentUsages(ctx, rd)
		out = withSegmentUsage(segmentResponse(sg), usages[id])
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

// segmentBody is Unleash's upsertSegmentSchema; PUT replaces the segment.
type segmentBody struct {
	Name        string                 `json:"name"`
	Description string                 `json:"description"`
	Project     string                 `json:"project"`
	Constraints []clientapi.Constraint `json:"constraints"`
}

// segment checks the body and returns it as a segment; the project must
// exist.
func (b segmentBody) segment(ctx context.Context, rd store.Reader) (store.Segment, error) {
	sg := store.Segment{Name: strings.TrimSpace(b.Name), Description: b.Description, Project: b.Project, Constraints: b.Constraints}
	if sg.Name == "" {
		return sg, apierr.Invalid("name", "name is required")
	}
	if err := checkText("name", sg.Name, 100); err != nil {
		return sg, err
	}
	if err := checkText("description", sg.Description, 1000); err != nil {
		return sg, err
	}
	if err := checkConstraintsAt("constraints", sg.Constraints); err != nil {
		return sg, err
	}
	values := 0
	for _, c := range sg.Constraints {
		values += len(c.Values)
	}
	if values > maxSegmentValues {
		return sg, apierr.Invalid("constraints", "a segment may hold at most %d constraint values, not %d", maxSegmentValues, values)
	}
	if sg.Project != "" {
		if _, err := rd.GetProject(ctx, sg.Project); apierr.Is(err, apierr.NotFound) {
			return sg, apierr.Invalid("project", "project %q does not exist", sg.Project)
		} else if err != nil {
			return sg, err
		}
	}
	return sg, nil
}

func (s *Server) handleCreateSegment(w http.ResponseWriter, r *http.Request) error {
	var body segmentBody
	if err := decode(w, r, &body); err != nil {
		return err
	}
	ctx := r.Context()
	var out segmentJSON
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		sg, err := body.segment(ctx, tx)
		if err != nil {
			return nil, err
		}
		sg.CreatedBy = principalFrom(ctx).Name()
		created, err := tx.CreateSegment(ctx, sg)
		if err != nil {
			return nil, err
		}
		out = withSegmentUsage(segmentResponse(created), nil)
		return []store.Event{{Type: "segment-created", Project: created.Project, Data: eventData(segmentResponse(created))}}, nil
	})
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/admin/segments/"+strconv.Itoa(out.ID))
	return writeJSON(w, http.StatusCreated, out)
}

// handleUpdateSegment replaces a segment (204, as in Unleash). A segment
// cannot be moved into one project while flags of another use it.
func (s *Server) handleUpdateSegment(w http.ResponseWriter, r *http.Request) error {
	id, err := pathInt(r, "id")
	if err != nil {
		return err
	}
	var body segmentBody
	if err := decode(w, r, &body); err != nil {
		return err
	}
	ctx := r.Context()
	err = s.change(ctx, func(tx store.Tx) ([]store.Event, error) { return updateSegment(ctx, tx, id, body) })
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// updateSegment replaces segment id with body. It is the write of
// handleUpdateSegment, shared with change requests.
func updateSegment(ctx context.Context, tx store.Tx, id int, body segmentBody) ([]store.Event, error) {
	before, err := tx.GetSegment(ctx, id)
	if err != nil {
		return nil, err
	}
	sg, err := body.segment(ctx, tx)
	if err != nil {
		return nil, err
	}
	sg.ID = id
	if sg.Project != "" {
		usages, _, err := segmentUsages(ctx, tx)
		if err != nil {
			return nil, err
		}
		if u := usages[id]; u != nil {
			for p := range u.projects {
				if p != sg.Project {
					return nil, apierr.Invalid("project", "segment %d is used by flags of project %q, so it cannot be limited to project %q", id, p, sg.Project)
				}
			}
		}
	}
	updated, err := tx.UpdateSegment(ctx, sg)
	if err != nil {
		return nil, err
	}
	return []store.Event{{Type: "segment-updated", Project: updated.Project,
		Data: eventData(segmentResponse(updated)), PreData: eventData(segmentResponse(before))}}, nil
}

// handleDeleteSegment deletes a segment no strategy uses; while strategies
// use it the answer is 409 naming the flags.
func (s *Server) handleDeleteSegment(w http.ResponseWriter, r *http.Request) error {
	id, err := pathInt(r, "id")
	if err != nil {
		return err
	}
	ctx := r.Context()
	err = s.change(ctx, func(tx store.Tx) ([]store.Event, error) { return deleteSegment(ctx, tx, id) })
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// deleteSegment deletes segment id unless strategies use it. It is the
// write of handleDeleteSegment, shared with change requests.
func deleteSegment(ctx context.Context, tx store.Tx, id int) ([]store.Event, error) {
	sg, err := tx.GetSegment(ctx, id)
	if err != nil {
		return nil, err
	}
	used, err := tx.ListStrategies(ctx, store.StrategyFilter{SegmentID: id})
	if err != nil {
		return nil, err
	}
	if len(used) > 0 {
		return nil, apierr.New(apierr.Conflict, "segment %d is used by %d strateg(ies) of flag(s) %s; remove it from them first",
			id, len(used), strings.Join(strategyFeatures(used), ", "))
	}
	if err := tx.DeleteSegment(ctx, id); err != nil {
		return nil, err
	}
	return []store.Event{{Type: "segment-deleted", Project: sg.Project, PreData: eventData(segmentResponse(sg))}}, nil
}

// strategyFeatures lists the distinct flags of strategies, sorted.
func strategyFeatures(list []store.Strategy) []string {
	seen := map[string]bool{}
	var out []string
	for _, st := range list {
		if !seen[st.Feature] {
			seen[st.Feature] = true
			out = append(out, st.Feature)
		}
	}
	sort.Strings(out)
	return out
}

// handleValidateSegment answers 204 when a segment name is free, 409 when it
// is taken.
func (s *Server) handleValidateSegment(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Name string `json:"name"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	name := strings.TrimSpace(body.Name)
	if name == "" {
		return apierr.Invalid("name", "name is required")
	}
	if err := checkText("name", name, 100); err != nil {
		return err
	}
	ctx := r.Context()
	err := s.view(ctx, func(rd store.Reader) error {
		list, err := rd.ListSegments(ctx, store.SegmentFilter{})
		for _, sg := range list {
			if sg.Name == name {
				return apierr.New(apierr.NameExists, "there is already a segment named %q", name)
			}
		}
		return err
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) handleSegmentStrategies(w http.ResponseWriter, r *http.Request) error {
	id, err := pathInt(r, "id")
	if err != nil {
		return err
	}
	type item struct {
		ID           string `json:"id"`
		FeatureName  string `json:"featureName"`
		ProjectID    string `json:"projectId"`
		Environment  string `json:"environment"`
		StrategyName string `json:"strategyName"`
	}
	ctx := r.Context()
	out := []item{}
	sight, err := s.sightOf(ctx)
	if err != nil {
		return err
	}
	err = s.view(ctx, func(rd store.Reader) error {
		if _, err := rd.GetSegment(ctx, id); err != nil {
			return err
		}
		usages, projectOf, err := segmentUsages(ctx, rd)
		if u := usages[id]; u != nil {
			for _, st := range u.strategies {
				if !sight.canSee(projectOf[st.Feature]) {
					continue
				}
				out = append(out, item{ID: st.ID, FeatureName: st.Feature, ProjectID: projectOf[st.Feature], Environment: st.Environment, StrategyName: st.Name})
			}
		}
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"strategies": out, "changeRequestStrategies": []item{}})
}
