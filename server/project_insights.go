package server

import (
	"net/http"

	"github.com/signalbox/signalbox/store"
)

// Project insights gather, for one page of Unleash's UI, figures other
// endpoints give one by one: the health report's statistics and counts,
// the DORA lead time, flags by type, and members.

type insightsDebt struct {
	Rating                int `json:"rating"`
	ActiveCount           int `json:"activeCount"`
	PotentiallyStaleCount int `json:"potentiallyStaleCount"`
	StaleCount            int `json:"staleCount"`
}

type projectInsights struct {
	Stats             projectStats       `json:"stats"`
	Health            insightsDebt       `json:"health"`
	TechnicalDebt     insightsDebt       `json:"technicalDebt"`
	LeadTime          doraMetrics        `json:"leadTime"`
	FeatureTypeCounts []featureTypeCount `json:"featureTypeCounts"`
	Members           struct {
		CurrentMembers int `json:"currentMembers"`
		// Change is the members added in the last 30 days.
		Change int `json:"change"`
	} `json:"members"`
}

// handleProjectInsights is Unleash's getProjectInsights. 404 for an unknown
// project.
func (s *Server) handleProjectInsights(w http.ResponseWriter, r *http.Request) error {
	ctx, project := r.Context(), r.PathValue("projectId")
	var out projectInsights
	err := s.view(ctx, func(rd store.Reader) error {
		rep, err := buildHealthReport(ctx, rd, project, s.now())
		if err != nil {
			return err
		}
		counts := insightsDebt{ActiveCount: rep.ActiveCount, PotentiallyStaleCount: rep.PotentiallyStaleCount, StaleCount: rep.StaleCount}
		out.Stats = rep.Stats
		out.Health, out.TechnicalDebt = counts, counts
		out.Health.Rating, out.TechnicalDebt.Rating = rep.Health, 100-rep.Health
		out.Members.CurrentMembers = rep.Members
		out.Members.Change = rep.Stats.ProjectMembersAddedCurrentWindow
		if out.LeadTime, err = projectDora(ctx, rd, project); err != nil {
			return err
		}
		active := false
		flags, err := rd.ListFeatures(ctx, store.FeatureFilter{Project: project, Archived: &active})
		out.FeatureTypeCounts = countFeatureTypes(flags)
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}
