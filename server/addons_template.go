package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// A mustache subset for webhook bodies, as Unleash renders them:
// {{name.path}} (HTML-escaped, as mustache does), {{{name}}} and {{&name}}
// (as is), {{#name}}…{{/name}} sections (skipped when the value is false,
// empty or missing, repeated over a list, entered for an object),
// {{^name}}…{{/name}} inverted sections, {{.}} and {{! comments}}. Names
// are looked up from the innermost section outwards. Objects and lists
// print as JSON. Partials and delimiter changes are not supported.

type mustacheKind int

const (
	mText mustacheKind = iota
	mEscaped
	mRaw
	mSection
	mInverted
)

type mustacheNode struct {
	kind     mustacheKind
	text     string // text, or the name
	children []mustacheNode
}

// maxMustacheOutput bounds a rendered body: sections over lists can
// multiply a template.
const maxMustacheOutput = 1 << 20

func parseMustache(tpl string) ([]mustacheNode, error) {
	nodes, rest, closed, err := parseMustacheUntil(tpl, "")
	if err != nil {
		return nil, err
	}
	if closed != "" || rest != "" {
		return nil, fmt.Errorf("unexpected {{/%s}}", closed)
	}
	return nodes, nil
}

// parseMustacheUntil parses until the closing tag of section (or the end
// when section is ""), returning the rest after it.
func parseMustacheUntil(s, section string) (nodes []mustacheNode, rest, closed string, err error) {
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			if section != "" {
				return nil, "", "", fmt.Errorf("section %q is not closed", section)
			}
			if s != "" {
				nodes = append(nodes, mustacheNode{kind: mText, text: s})
			}
			return nodes, "", "", nil
		}
		if i > 0 {
			nodes = append(nodes, mustacheNode{kind: mText, text: s[:i]})
		}
		s = s[i+2:]
		closer := "}}"
		triple := strings.HasPrefix(s, "{")
		if triple {
			s, closer = s[1:], "}}}"
		}
		j := strings.Index(s, closer)
		if j < 0 {
			return nil, "", "", errors.New("a tag is not closed")
		}
		tag := strings.TrimSpace(s[:j])
		s = s[j+len(closer):]
		if triple {
			nodes = append(nodes, mustacheNode{kind: mRaw, text: tag})
			continue
		}
		if tag == "" {
			return nil, "", "", errors.New("empty tag")
		}
		name := strings.TrimSpace(tag[1:])
		switch tag[0] {
		case '!':
		case '&':
			nodes = append(nodes, mustacheNode{kind: mRaw, text: name})
		case '#', '^':
			kind := mSection
			if tag[0] == '^' {
				kind = mInverted
			}
			children, after, _, err := parseMustacheUntil(s, name)
			if err != nil {
				return nil, "", "", err
			}
			nodes = append(nodes, mustacheNode{kind: kind, text: name, children: children})
			s = after
		case '/':
			if name != section {
				return nil, "", name, fmt.Errorf("{{/%s}} closes no open section", name)
			}
			return nodes, s, name, nil
		case '>', '=':
			return nil, "", "", errors.New("partials and delimiter changes are not supported")
		default:
			nodes = append(nodes, mustacheNode{kind: mEscaped, text: tag})
		}
	}
}

// renderMustache renders nodes over data (decoded JSON).
func renderMustache(nodes []mustacheNode, data any) (string, error) {
	var b strings.Builder
	if err := renderMustacheNodes(&b, nodes, []any{data}); err != nil {
		return "", err
	}
	return b.String(), nil
}

func renderMustacheNodes(b *strings.Builder, nodes []mustacheNode, stack []any) error {
	for _, n := range nodes {
		if b.Len() > maxMustacheOutput {
			return fmt.Errorf("the rendered body is larger than %d bytes", maxMustacheOutput)
		}
		switch n.kind {
		case mText:
			b.WriteString(n.text)
		case mEscaped:
			b.WriteString(mustacheEscape(mustacheString(mustacheLookup(stack, n.text))))
		case mRaw:
			b.WriteString(mustacheString(mustacheLookup(stack, n.text)))
		case mSection, mInverted:
			v := mustacheLookup(stack, n.text)
			truthy := mustacheTruthy(v)
			if n.kind == mInverted {
				if !truthy {
					if err := renderMustacheNodes(b, n.children, stack); err != nil {
						return err
					}
				}
				continue
			}
			if !truthy {
				continue
			}
			items := []any{v}
			if list, ok := v.([]any); ok {
				items = list
			}
			for _, item := range items {
				if err := renderMustacheNodes(b, n.children, append(stack[:len(stack):len(stack)], item)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func mustacheLookup(stack []any, name string) any {
	if name == "." {
		return stack[len(stack)-1]
	}
	parts := strings.Split(name, ".")
	for i := len(stack) - 1; i >= 0; i-- {
		m, ok := stack[i].(map[string]any)
		if !ok {
			continue
		}
		v, ok := m[parts[0]]
		if !ok {
			continue
		}
		for _, p := range parts[1:] {
			switch c := v.(type) {
			case map[string]any:
				v = c[p]
			case []any:
				k, err := strconv.Atoi(p)
				if err != nil || k < 0 || k >= len(c) {
					return nil
				}
				v = c[k]
			default:
				return nil
			}
		}
		return v
	}
	return nil
}

func mustacheTruthy(v any) bool {
	switch c := v.(type) {
	case nil:
		return false
	case bool:
		return c
	case string:
		return c != ""
	case float64:
		return c != 0
	case []any:
		return len(c) > 0
	}
	return true
}

func mustacheString(v any) string {
	switch c := v.(type) {
	case nil:
		return ""
	case string:
		return c
	case bool:
		return strconv.FormatBool(c)
	case float64:
		return strconv.FormatFloat(c, 'f', -1, 64)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

var mustacheEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;",
	"/", "&#x2F;", "`", "&#x60;", "=", "&#x3D;")

func mustacheEscape(s string) string { return mustacheEscaper.Replace(s) }
