// Package web is the admin web UI: a single-page app in plain JavaScript
// modules, embedded in the binary. It has no build step: the files under
// static/ are served as they are, so changing a page is editing a .js or
// .css file and reloading. The app talks only to the admin API with the
// session cookie, so every action it offers goes through the API's
// permission check, change path and audit event.
package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
)

//go:embed static
var files embed.FS

// AssetsPath is the prefix under which the static files are served.
const AssetsPath = "/assets/"

// Security headers on every answer. Scripts and styles come only from this
// origin and nothing is inlined, so an injected <script> or style attribute
// does not run.
var securityHeaders = map[string]string{
	"Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
		"connect-src 'self'; font-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
	"X-Content-Type-Options": "nosniff",
	"Referrer-Policy":        "same-origin",
	"X-Frame-Options":        "DENY",
}

type asset struct {
	body        []byte
	gzipped     []byte // body compressed once at start; nil when that does not pay
	contentType string
	etag        string
}

// compress sets a.gzipped when compression saves at least a tenth. zw is
// reused across assets: each new writer at the best level allocates about
// a megabyte of state, which for every file made tens of megabytes.
func (a *asset) compress(zw *gzip.Writer) {
	var buf bytes.Buffer
	zw.Reset(&buf)
	_, _ = zw.Write(a.body)
	_ = zw.Close()
	if buf.Len() < len(a.body)*9/10 {
		a.gzipped = buf.Bytes()
	}
}

// ui holds the embedded files, read once.
type ui struct {
	version string           // hash over every file: part of each asset's URL
	assets  map[string]asset // by path below static/
	shell   asset            // index.html with the versioned asset prefix
}

// load reads the embedded tree. One hash over every file versions them all:
// modules import each other relatively, so they must share one prefix, and
// any change gives every file a new URL that no cache has seen.
func load(fsys fs.FS) (*ui, error) {
	u := &ui{assets: map[string]asset{}}
	var names []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		names = append(names, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	zw, _ := gzip.NewWriterLevel(nil, gzip.BestCompression) // a valid level never fails
	all := sha256.New()
	for _, name := range names {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(b)
		all.Write([]byte(name))
		all.Write(sum[:])
		ct := mime.TypeByExtension(path.Ext(name))
		switch path.Ext(name) {
		case ".js":
			ct = "text/javascript; charset=utf-8"
		case ".css":
			ct = "text/css; charset=utf-8"
		case ".html":
			ct = "text/html; charset=utf-8"
		case ".svg":
			ct = "image/svg+xml"
		}
		if ct == "" {
			ct = "application/octet-stream"
		}
		a := asset{body: b, contentType: ct, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
		a.compress(zw)
		u.assets[name] = a
	}
	u.version = hex.EncodeToString(all.Sum(nil))[:16]
	index, ok := u.assets["index.html"]
	if !ok {
		return nil, fs.ErrNotExist
	}
	body := bytes.ReplaceAll(index.body, []byte("{{ASSETS}}"), []byte(AssetsPath+u.version))
	sum := sha256.Sum256(body)
	u.shell = asset{body: body, contentType: index.contentType, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
	u.shell.compress(zw)
	return u, nil
}

// embedded is the UI, loaded on first use: only the server serves it, and
// the proxy, Edge and the other commands of the same binary should not pay
// its memory and start-up time.
var embedded = sync.OnceValue(func() *ui {
	sub, err := fs.Sub(files, "static")
	if err != nil {
		panic(err)
	}
	u, err := load(sub)
	if err != nil {
		panic("web: the embedded UI does not load: " + err.Error())
	}
	return u
})

// Version is the hash that versions the asset URLs of this build.
func Version() string { return embedded().version }

// Handler serves the UI: the files below AssetsPath+Version()+"/" with
// immutable caching, and the HTML shell for every other path it is given.
// The caller decides which paths are UI pages; Handler answers any path it
// receives outside AssetsPath with the shell, and unknown or outdated asset
// paths with 404.
func Handler() http.Handler { return embedded() }

func (u *ui) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	for k, v := range securityHeaders {
		h.Set(k, v)
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if rest, ok := strings.CutPrefix(r.URL.Path, AssetsPath); ok {
		version, name, _ := strings.Cut(rest, "/")
		a, found := u.assets[name]
		// An outdated version is not served the current file: it would be
		// cached as immutable under the old URL.
		if version != u.version || !found || name == "index.html" {
			http.NotFound(w, r)
			return
		}
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
		u.write(w, r, a)
		return
	}
	// The shell names the current assets: always revalidate it.
	h.Set("Cache-Control", "no-cache")
	u.write(w, r, u.shell)
}

func (u *ui) write(w http.ResponseWriter, r *http.Request, a asset) {
	h := w.Header()
	body, etag := a.body, a.etag
	if a.gzipped != nil {
		h.Set("Vary", "Accept-Encoding")
		if acceptsGzip(r.Header.Get("Accept-Encoding")) {
			// The compressed form is another representation: its own ETag.
			body, etag = a.gzipped, strings.TrimSuffix(a.etag, `"`)+`-gz"`
			h.Set("Content-Encoding", "gzip")
		}
	}
	h.Set("ETag", etag)
	if etagMatch(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", a.contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// acceptsGzip reports whether an Accept-Encoding header allows gzip.
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			continue
		}
		q, found := strings.CutPrefix(strings.ReplaceAll(params, " ", ""), "q=")
		return !found || (q != "0" && q != "0.0" && q != "0.00" && q != "0.000")
	}
	return false
}

// etagMatch reports whether an If-None-Match header names etag (weak
// comparison, as RFC 9110 asks for If-None-Match).
func etagMatch(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}
