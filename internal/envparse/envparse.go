// Package envparse holds the value rules shared by the server's and the
// proxy's environment variables, so that a switch is spelled the same way
// for both commands.
package envparse

import (
	"fmt"
	"strings"
)

// Bool reads a switch: true/false, 1/0, yes/no or on/off, in any case.
func Bool(v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "1", "yes", "on":
		return true, nil
	case "false", "0", "no", "off":
		return false, nil
	}
	return false, fmt.Errorf("%q is not true or false (also accepted: 1/0, yes/no, on/off)", v)
}
