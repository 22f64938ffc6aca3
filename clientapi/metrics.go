package clientapi

import "time"

// Registration is the body of POST /api/client/register.
type Registration struct {
	AppName          string    `json:"appName"`
	InstanceID       string    `json:"instanceId"`
	ConnectionID     string    `json:"connectionId,omitempty"`
	SDKVersion       string    `json:"sdkVersion,omitempty"`
	Environment      string    `json:"environment,omitempty"`
	Strategies       []string  `json:"strategies"`
	Started          time.Time `json:"started"`
	Interval         int64     `json:"interval"`
	PlatformName     string    `json:"platformName,omitempty"`
	PlatformVersion  string    `json:"platformVersion,omitempty"`
	YggdrasilVersion string    `json:"yggdrasilVersion,omitempty"`
	SpecVersion      string    `json:"specVersion,omitempty"`
}

// Metrics is the body of POST /api/client/metrics.
type Metrics struct {
	AppName          string        `json:"appName"`
	InstanceID       string        `json:"instanceId"`
	ConnectionID     string        `json:"connectionId,omitempty"`
	Environment      string        `json:"environment,omitempty"`
	Bucket           MetricsBucket `json:"bucket"`
	PlatformName     string        `json:"platformName,omitempty"`
	PlatformVersion  string        `json:"platformVersion,omitempty"`
	YggdrasilVersion string        `json:"yggdrasilVersion,omitempty"`
	SpecVersion      string        `json:"specVersion,omitempty"`
}

// MetricsBucket counts evaluations per flag between Start and Stop.
type MetricsBucket struct {
	Start   time.Time              `json:"start"`
	Stop    time.Time              `json:"stop"`
	Toggles map[string]ToggleCount `json:"toggles"`
}

// ToggleCount counts how often a flag was on (Yes) and off (No) and which
// variants were handed out.
type ToggleCount struct {
	Yes      int64            `json:"yes"`
	No       int64            `json:"no"`
	Variants map[string]int64 `json:"variants,omitempty"`
}

// Add merges other into c.
func (c *ToggleCount) Add(other ToggleCount) {
	c.Yes += other.Yes
	c.No += other.No
	if len(other.Variants) == 0 {
		return
	}
	if c.Variants == nil {
		c.Variants = make(map[string]int64, len(other.Variants))
	}
	for k, v := range other.Variants {
		c.Variants[k] += v
	}
}
