package server

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// checkConstraint validates one constraint the way SDKs will read it, with
// the engine's own parsers (engine.CheckConstraint), so that the admin API
// refuses exactly what evaluation could not use. Values that are nil
// become [] so JSON never shows null. p is the constraint's path in the
// request body, for the error's details.
func checkConstraint(p string, c *clientapi.Constraint) error {
	if c.Values == nil {
		c.Values = []string{}
	}
	if err := engine.CheckConstraint(*c); err != nil {
		return apierr.Invalid(p+"."+err.Field, "%s", err.Message)
	}
	if err := checkText(p+".contextName", c.ContextName, 100); err != nil {
		return err
	}
	for _, v := range append([]string{c.Value}, c.Values...) {
		if strings.ContainsRune(v, 0) {
			return apierr.Invalid(p+".values", "constraint values must not contain NUL characters")
		}
	}
	return nil
}

// checkConstraintsAt checks the constraints of segments and default
// strategies, which no context field's legal values apply to.
func checkConstraintsAt(path string, cs []clientapi.Constraint) error {
	for i := range cs {
		if err := checkConstraint(fmt.Sprintf("%s[%d]", path, i), &cs[i]); err != nil {
			return err
		}
	}
	return nil
}

// checkFlagConstraints checks a flag strategy's constraints; there, values
// must also be among a context field's legal values when it has some.
func checkFlagConstraints(ctx context.Context, r store.Reader, path string, list []clientapi.Constraint) ([]clientapi.Constraint, error) {
	out := make([]clientapi.Constraint, 0, len(list))
	for i, c := range list {
		p := fmt.Sprintf("%s[%d]", path, i)
		if err := checkConstraint(p, &c); err != nil {
			return nil, err
		}
		if err := checkLegalValues(ctx, r, p, c); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// checkLegalValues applies a context field's legal values, as Unleash does;
// fields that are not defined accept anything, and so do REGEX patterns.
func checkLegalValues(ctx context.Context, r store.Reader, p string, c clientapi.Constraint) error {
	if c.Operator == "REGEX" {
		return nil
	}
	cf, err := r.GetContextField(ctx, c.ContextName)
	if apierr.Is(err, apierr.NotFound) {
		return nil
	} else if err != nil || len(cf.LegalValues) == 0 {
		return err
	}
	operands, field := c.Values, ".values"
	if !engine.MultiValued(c.Operator) {
		operands, field = []string{c.Value}, ".value"
	}
	for _, v := range operands {
		if !slices.ContainsFunc(cf.LegalValues, func(l store.LegalValue) bool { return l.Value == v }) {
			return apierr.Invalid(p+field, "%q is not a legal value of context field %s", v, c.ContextName)
		}
	}
	return nil
}
