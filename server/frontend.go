package server

import (
	"errors"
	"net/http"
	"strings"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
	"github.com/signalbox/signalbox/internal/httpx"
	"github.com/signalbox/signalbox/store"
)

// The frontend API answers browser SDKs with evaluated flags for one
// context, as the proxy does, from the same cached payload the client API
// serves (compiled once per revision).

func (s *Server) handleFrontendGet(w http.ResponseWriter, r *http.Request, tok *store.APIToken) error {
	ctx := frontendContextFromQuery(r)
	return s.answerFrontend(w, r, tok, &ctx, nil, false)
}

func (s *Server) handleFrontendPost(w http.ResponseWriter, r *http.Request, tok *store.APIToken) error {
	var body struct {
		Context clientapi.Context `json:"context"`
		Toggles []string          `json:"toggles"`
	}
	if err := httpx.DecodeJSON(w, r, &body, maxBody); err != nil && !errors.Is(err, httpx.ErrEmptyBody) {
		return err
	}
	ctx := engine.ContextFromWire(&body.Context)
	return s.answerFrontend(w, r, tok, &ctx, body.Toggles, body.Toggles != nil)
}

func (s *Server) handleFrontendAll(w http.ResponseWriter, r *http.Request, tok *store.APIToken) error {
	ctx := frontendContextFromQuery(r)
	return s.answerFrontend(w, r, tok, &ctx, nil, true)
}

// answerFrontend evaluates names (or every flag) and writes the toggles. With
// all set, flags that are off are listed too.
func (s *Server) answerFrontend(w http.ResponseWriter, r *http.Request, tok *store.APIToken, ctx *engine.Context, names []string, all bool) error {
	if ctx.Environment == "" {
		ctx.Environment = tokenEnvironment(tok)
	}
	if ctx.RemoteAddress == "" {
		ctx.RemoteAddress = remoteIP(r)
	}
	p, err := s.payload(r.Context(), clientQuery{Environment: tokenEnvironment(tok), Projects: tok.Projects})
	if err != nil {
		return err
	}
	snap := p.engineSnapshot()
	var results []engine.Result
	switch {
	case names != nil:
		for _, n := range names {
			results = append(results, snap.Evaluate(n, ctx))
		}
	case all:
		results = snap.EvaluateAll(ctx, nil)
	default:
		results, _ = snap.EvaluateEnabled(ctx, nil)
	}
	out := clientapi.Toggles{Toggles: make([]clientapi.ToggleResult, 0, len(results))}
	for _, res := range results {
		out.Toggles = append(out.Toggles, toggleResult(res))
	}
	w.Header().Set("Cache-Control", "public, max-age=2")
	return writeJSON(w, http.StatusOK, out)
}

func toggleResult(r engine.Result) clientapi.ToggleResult {
	return clientapi.ToggleResult{
		Name: r.Name, Enabled: r.Enabled, ImpressionData: r.ImpressionData,
		Variant: clientapi.VariantResult{
			Name: r.Variant.Name, Enabled: r.Variant.Enabled, Payload: r.Variant.Payload,
			FeatureEnabled: r.Variant.FeatureEnabled, FeatureEnabled2: r.Variant.FeatureEnabled,
		},
	}
}

// frontendContextFromQuery reads the context from query parameters: the
// known fields by name, properties[x]=v and any other parameter as a
// property.
func frontendContextFromQuery(r *http.Request) engine.Context {
	var ctx engine.Context
	wire := clientapi.Context{}
	for k, vs := range r.URL.Query() {
		if len(vs) == 0 || vs[0] == "" {
			continue
		}
		v := vs[0]
		switch k {
		case "userId":
			wire.UserID = v
		case "sessionId":
			wire.SessionID = v
		case "remoteAddress":
			wire.RemoteAddress = v
		case "environment":
			wire.Environment = v
		case "appName":
			wire.AppName = v
		case "currentTime":
			wire.CurrentTime = v
		default:
			name := k
			if strings.HasPrefix(k, "properties[") && strings.HasSuffix(k, "]") {
				name = k[len("properties[") : len(k)-1]
			}
			if wire.Properties == nil {
				wire.Properties = map[string]*string{}
			}
			wire.Properties[name] = &v
		}
	}
	ctx = engine.ContextFromWire(&wire)
	return ctx
}
