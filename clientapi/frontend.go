package clientapi

// ToggleResult is one evaluated flag as the frontend API and the proxy
// answer it to browser SDKs. It never carries configuration.
type ToggleResult struct {
	Name           string        `json:"name"`
	Enabled        bool          `json:"enabled"`
	Variant        VariantResult `json:"variant"`
	ImpressionData bool          `json:"impressionData"`
}

// VariantResult is the variant picked for a context. FeatureEnabled is sent
// twice, as feature_enabled and featureEnabled, because SDKs read either.
//
// The members are in the reference's order (name, payload, enabled, ...),
// so that answers can be compared and hashed byte for byte.
type VariantResult struct {
	Name            string   `json:"name"`
	Payload         *Payload `json:"payload,omitempty"`
	Enabled         bool     `json:"enabled"`
	FeatureEnabled  bool     `json:"feature_enabled"`
	FeatureEnabled2 bool     `json:"featureEnabled"`
}

// Toggles is the body of GET and POST /proxy and /api/frontend.
type Toggles struct {
	Toggles []ToggleResult `json:"toggles"`
}

// Context is the evaluation context as it travels in JSON bodies (POST
// /proxy, the playground). Properties may hold null values, which mean absent.
type Context struct {
	UserID        string             `json:"userId,omitempty"`
	SessionID     string             `json:"sessionId,omitempty"`
	RemoteAddress string             `json:"remoteAddress,omitempty"`
	Environment   string             `json:"environment,omitempty"`
	AppName       string             `json:"appName,omitempty"`
	CurrentTime   string             `json:"currentTime,omitempty"`
	Properties    map[string]*string `json:"properties,omitempty"`
}
