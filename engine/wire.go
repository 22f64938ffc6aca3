package engine

import "github.com/signalbox/signalbox/clientapi"

// ContextFromWire converts a JSON context. Null properties are dropped (they
// mean absent), and a currentTime that does not parse is ignored so that the
// clock is used, as the reference proxy does.
func ContextFromWire(c *clientapi.Context) Context {
	ctx := Context{
		UserID:        c.UserID,
		SessionID:     c.SessionID,
		RemoteAddress: c.RemoteAddress,
		Environment:   c.Environment,
		AppName:       c.AppName,
	}
	if c.CurrentTime != "" {
		if t, ok := parseDate(c.CurrentTime); ok {
			ctx.CurrentTime = t
		}
	}
	if len(c.Properties) > 0 {
		ctx.Properties = make(map[string]string, len(c.Properties))
		for k, v := range c.Properties {
			if v != nil {
				ctx.Properties[k] = *v
			}
		}
	}
	return ctx
}
