package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// mdLink finds the targets of Markdown links: [text](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocLinks checks that every relative link in README.md and docs/ names a
// file of the repository, and that a link to a heading (#anchor) names a
// heading of that file.
func TestDocLinks(t *testing.T) {
	root := filepath.Join("..", "..")
	files := []string{filepath.Join(root, "README.md")}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 2 {
		t.Fatalf("found no documentation under docs/")
	}
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(stripCode(string(text)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			dest := f
			if path != "" {
				dest = filepath.Join(filepath.Dir(f), path)
			}
			rel, _ := filepath.Rel(root, f)
			body, err := os.ReadFile(dest)
			if err != nil {
				if st, serr := os.Stat(dest); serr == nil && st.IsDir() && anchor == "" {
					continue
				}
				t.Errorf("%s links to %s, which does not exist", rel, target)
				continue
			}
			if anchor != "" && !hasAnchor(string(body), anchor) {
				t.Errorf("%s links to %s: no heading gives the anchor #%s", rel, target, anchor)
			}
		}
	}
}

// stripCode drops fenced code blocks, whose brackets are not links.
func stripCode(s string) string {
	var b strings.Builder
	in := false
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			in = !in
			continue
		}
		if !in {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// hasAnchor reports whether a heading of the Markdown text s gets the anchor
// GitHub gives it: lower case, spaces as hyphens, punctuation dropped.
func hasAnchor(s, anchor string) bool {
	for _, line := range strings.Split(stripCode(s), "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		if slug(strings.TrimLeft(line, "# ")) == anchor {
			return true
		}
	}
	return false
}

func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}
