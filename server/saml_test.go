package server

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/signalbox/signalbox/auth/saml/samltest"
	"github.com/signalbox/signalbox/internal/pgtest"
	"github.com/signalbox/signalbox/store"
	"github.com/signalbox/signalbox/store/sqlstore"
)

func openSQLiteStore(t *testing.T, path string) store.Store {
	t.Helper()
	st, err := sqlstore.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// browser is a web browser: a cookie jar, redirects not followed.
type browser struct {
	t      *testing.T
	ts     *testServer
	client *http.Client
}

func newBrowser(t *testing.T, ts *testServer) *browser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &browser{t: t, ts: ts, client: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (b *browser) do(req *http.Request) response {
	b.t.Helper()
	res, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return response{Status: res.StatusCode, Header: res.Header, Body: data}
}

func (b *browser) get(path string) response {
	b.t.Helper()
	req, _ := http.NewRequest("GET", b.ts.url+path, nil)
	return b.do(req)
}

// cookie returns the value of the browser's cookie name for path.
func (b *browser) cookie(path, name string) string {
	u, _ := url.Parse(b.ts.url + path)
	for _, c := range b.client.Jar.Cookies(u) {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

// startSignIn asks the server to sign in and returns the identity
// provider's answer.
func (b *browser) startSignIn(idp *samltest.IDP) samltest.Answer {
	b.t.Helper()
	res := b.get("/auth/saml/login").must(b.t, http.StatusFound)
	loc := res.Header.Get("Location")
	if !strings.HasPrefix(loc, idp.SignOnURL+"?SAMLRequest=") || !strings.Contains(loc, "&Signature=") {
		b.t.Fatalf("login redirects to %q", loc)
	}
	ans, err := idp.Answer(loc)
	if err != nil {
		b.t.Fatal(err)
	}
	if ans.Action != b.ts.url+"/auth/saml/callback" {
		b.t.Fatalf("the IdP answers to %q", ans.Action)
	}
	return ans
}

// post posts an answer to the assertion consumer service.
func (b *browser) post(ans samltest.Answer) response {
	b.t.Helper()
	req, _ := http.NewRequest("POST", ans.Action, strings.NewReader(ans.Form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(req)
}

// signIn runs the whole flow: login redirect, identity provider, answer.
func (b *browser) signIn(idp *samltest.IDP) response {
	b.t.Helper()
	return b.post(b.startSignIn(idp))
}

// me is the signed-in user, as GET /api/admin/user shows it with the
// browser's session cookie.
func (b *browser) me() UserJSON {
	b.t.Helper()
	var body struct{ User UserJSON }
	b.get("/api/admin/user").must(b.t, http.StatusOK).Decode(b.t, &body)
	return body.User
}

// settingsFor are valid settings trusting idp.
func settingsFor(idp *samltest.IDP) map[string]any {
	return map[string]any{"enabled": true, "entityId": idp.EntityID, "signOnUrl": idp.SignOnURL, "certificate": idp.CertificatePEM}
}

// configureSAML stores settings and registers the server's metadata with
// idp.
func configureSAML(t *testing.T, ts *testServer, idp *samltest.IDP, settings map[string]any) {
	t.Helper()
	ts.admin("POST", "/api/admin/auth/saml/settings", settings).must(t, http.StatusOK)
	md := ts.request("GET", "/auth/saml/metadata", "", nil).must(t, http.StatusOK)
	if err := idp.Trust(md.Body); err != nil {
		t.Fatal(err)
	}
}

func with(m map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

// events lists the events of type typ, oldest first.
func events(t *testing.T, ts *testServer, typ string) []store.Event {
	t.Helper()
	var out []store.Event
	err := ts.srv.store.View(context.Background(), func(r store.Reader) (err error) {
		out, err = r.ListEvents(context.Background(), store.EventFilter{Type: typ, Ascending: true})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func jsonObject(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return m
}

// selfSigned makes a certificate valid from notBefore to notAfter.
func selfSigned(t *testing.T, notBefore, notAfter time.Time) string {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "old idp"}, NotBefore: notBefore, NotAfter: notAfter}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

// newSAMLTestServerOn is a test server over st whose public URL
// (Config.PublicURL, which SAML needs) is publicURL, or its own address
// when publicURL is empty.
func newSAMLTestServerOn(t *testing.T, st store.Store, publicURL string) *testServer {
	t.Helper()
	ctx := context.Background()
	if _, err := Bootstrap(ctx, st, BootstrapConfig{
		AdminTokens: []string{testAdminToken}, ClientTokens: []string{testClientToken, testProdToken},
		FrontendTokens: []string{testFrontendToken}, AdminPassword: testAdminPassword,
	}); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(nil)
	own := "http://" + hs.Listener.Addr().String()
	if publicURL == "" {
		publicURL = own
	}
	srv, err := New(ctx, st, Config{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), PublicURL: publicURL})
	if err != nil {
		t.Fatal(err)
	}
	hs.Config.Handler = srv.Handler()
	hs.Start()
	t.Cleanup(hs.Close)
	return &testServer{t: t, srv: srv, url: own}
}

// newSAMLTestServer is newSAMLTestServerOn a fresh SQLite database.
func newSAMLTestServer(t *testing.T) *testServer {
	t.Helper()
	return newSAMLTestServerOn(t, openSQLiteStore(t, filepath.Join(t.TempDir(), "signalbox.db")), "")
}

func TestSAMLSettings(t *testing.T) {
	runSAMLSettingsFlow(t, newSAMLTestServer(t))
}

func TestSAMLSignIn(t *testing.T) {
	runSAMLSignInFlow(t, newSAMLTestServer(t))
}

// TestSAMLPostgres runs both flows on PostgreSQL (skipped without
// PostgreSQL binaries, except under CI).
func TestSAMLPostgres(t *testing.T) {
	st, err := sqlstore.Open(t.Context(), pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ts := newSAMLTestServerOn(t, st, "")
	t.Run("Settings", func(t *testing.T) { runSAMLSettingsFlow(t, ts) })
	t.Run("SignIn", func(t *testing.T) { runSAMLSignInFlow(t, ts) })
}

// onT is ts reporting to t, for subtests.
func onT(ts *testServer, t *testing.T) *testServer {
	c := *ts
	c.t = t
	return &c
}

func runSAMLSettingsFlow(t *testing.T, ts *testServer) {
	ts = onT(ts, t)
	idp := samltest.New(t)
	const path = "/api/admin/auth/saml/settings"

	// Before anything is saved: disabled, empty.
	var got samlSettings
	ts.admin("GET", path, nil).must(t, http.StatusOK).Decode(t, &got)
	if got != (samlSettings{DefaultRootRole: "Viewer"}) {
		t.Errorf("initial settings %+v", got)
	}

	valid := settingsFor(idp)
	ts.request("POST", path, "", valid).must(t, http.StatusUnauthorized)
	ts.request("GET", path, "", nil).must(t, http.StatusUnauthorized)
	ts.request("POST", path, testClientToken, valid).must(t, http.StatusForbidden)
	ts.request("POST", path, testFrontendToken, valid).must(t, http.StatusForbidden)
	res := ts.request("POST", path, testAdminToken, `{"enabled": true}`, "Content-Type", "text/plain").must(t, http.StatusUnsupportedMediaType)
	if res.Object()["name"] != "ContentTypeError" {
		t.Errorf("415 body %s", res.Body)
	}
	ts.admin("POST", path, "{not json").must(t, http.StatusBadRequest)

	// A viewer (session) may not change them either.
	ts.admin("POST", "/api/admin/user-admin", map[string]any{"email": "viewer@example.com", "rootRole": "Viewer", "password": "Viewer-password-1"}).must(t, http.StatusCreated)
	viewer := newBrowser(t, ts)
	req, _ := http.NewRequest("POST", ts.url+"/auth/simple/login", strings.NewReader(`{"username":"viewer@example.com","password":"Viewer-password-1"}`))
	req.Header.Set("Content-Type", "application/json")
	viewer.do(req).must(t, http.StatusOK)
	req, _ = http.NewRequest("POST", ts.url+path, strings.NewReader(`{}`))
	req.Header.Set("Content-Type", "application/json")
	viewer.do(req).must(t, http.StatusForbidden)
	viewer.get(path).must(t, http.StatusForbidden)

	before := len(events(t, ts, "setting-updated"))
	other := samltest.New(t)
	block, _ := pem.Decode([]byte(other.CertificatePEM))
	expired := selfSigned(t, time.Now().AddDate(-2, 0, 0), time.Now().AddDate(-1, 0, 0))
	for _, tt := range []struct {
		name string
		body map[string]any
		path string
	}{
		{"bad certificate", with(valid, "certificate", "not a certificate"), "certificate"},
		{"base64 of junk", with(valid, "certificate", base64.StdEncoding.EncodeToString([]byte("junk"))), "certificate"},
		{"private key", with(valid, "certificate", idp.CertificatePEM+idp.KeyPair.Key), "certificate"},
		{"no certificate", with(valid, "certificate", ""), "certificate"},
		{"expired certificate", with(valid, "certificate", expired), "certificate"},
		{"bad spCertificate", with(valid, "spCertificate", "MIIB"), "spCertificate"},
		{"no entityId", with(valid, "entityId", " "), "entityId"},
		{"entityId with NUL", with(valid, "entityId", "my\x00idp"), "entityId"},
		{"entityId with a newline", with(valid, "entityId", "my\nidp"), "entityId"},
		{"entityId too long", with(valid, "entityId", "urn:"+strings.Repeat("x", 1021)), "entityId"},
		{"no signOnUrl", with(valid, "signOnUrl", nil), "signOnUrl"},
		{"signOnUrl not http", with(valid, "signOnUrl", "ftp://idp.example/sso"), "signOnUrl"},
		{"signOnUrl relative", with(valid, "signOnUrl", "/sso"), "signOnUrl"},
		{"signOutUrl", with(valid, "signOutUrl", "javascript:alert(1)"), "signOutUrl"},
		{"defaultRootRole", with(valid, "defaultRootRole", "Owner"), "defaultRootRole"},
		{"emailDomains", with(valid, "emailDomains", "example.com, not a domain"), "emailDomains"},
		{"autoCreate without domains", with(valid, "autoCreate", true), "emailDomains"},
		{"wrong type", with(valid, "enabled", "yes"), "enabled"},
	} {
		res := ts.admin("POST", path, tt.body)
		if res.Status != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400; %s", tt.name, res.Status, res.Body)
			continue
		}
		var body struct {
			Name    string
			Message string
			Details []struct{ Path, Message string }
		}
		res.Decode(t, &body)
		paths := []string{}
		for _, d := range body.Details {
			paths = append(paths, d.Path)
		}
		if body.Name != "ValidationError" || !slices.Contains(paths, tt.path) || !strings.Contains(body.Message, tt.path) {
			t.Errorf("%s: %s, want a ValidationError naming %s", tt.name, res.Body, tt.path)
		}
	}
	// Several problems are listed together.
	var many struct{ Details []struct{ Path string } }
	ts.admin("POST", path, map[string]any{"certificate": "x"}).must(t, http.StatusBadRequest).Decode(t, &many)
	if len(many.Details) != 3 {
		t.Errorf("details %+v, want entityId, signOnUrl and certificate", many.Details)
	}
	if n := len(events(t, ts, "setting-updated")); n != before {
		t.Errorf("refused settings wrote %d events", n-before)
	}

	// Entity ids are any string (anyURI), up to 1024 characters.
	for _, id := range []string{"my-idp", "my idp", "urn:example:idp", "https://idp.example/metadata", "urn:" + strings.Repeat("x", 1020)} {
		ts.admin("POST", path, with(valid, "entityId", id)).must(t, http.StatusOK).Decode(t, &got)
		if got.EntityID != id {
			t.Errorf("entityId %q stored as %q", id, got.EntityID)
		}
	}
	before = len(events(t, ts, "setting-updated"))

	// An expired certificate may be kept while SAML is disabled.
	ts.admin("POST", path, with(valid, "enabled", false, "certificate", expired)).must(t, http.StatusOK)

	// Valid settings are normalised, stored and answered.
	body := with(valid, "entityId", " "+idp.EntityID+" ", "signOutUrl", "https://idp.example/logout",
		"spCertificate", other.CertificatePEM, "autoCreate", true, "emailDomains", "example.com, @Corp.Example",
		"defaultRootRole", "editor", "unknown", "ignored")
	want := samlSettings{Enabled: true, EntityID: idp.EntityID, SignOnURL: idp.SignOnURL, Certificate: strings.TrimSpace(idp.CertificatePEM),
		SignOutURL: "https://idp.example/logout", SPCertificate: strings.TrimSpace(other.CertificatePEM), AutoCreate: true,
		EmailDomains: "example.com, @Corp.Example", DefaultRootRole: "Editor"}
	ts.admin("POST", path, body).must(t, http.StatusOK).Decode(t, &got)
	if got != want {
		t.Errorf("saved settings\n%+v, want\n%+v", got, want)
	}
	ts.admin("GET", path, nil).must(t, http.StatusOK).Decode(t, &got)
	if got != want {
		t.Errorf("read settings %+v", got)
	}

	evs := events(t, ts, "setting-updated")
	if len(evs) != before+2 {
		t.Fatalf("%d setting-updated events, want %d", len(evs), before+2)
	}
	last := evs[len(evs)-1]
	data, pre := jsonObject(t, last.Data), jsonObject(t, last.PreData)
	if data["id"] != samlSettingName || data["entityId"] != idp.EntityID || data["defaultRootRole"] != "Editor" || last.CreatedBy == "" {
		t.Errorf("event data %s by %q", last.Data, last.CreatedBy)
	}
	if pre["enabled"] != false || pre["certificate"] != strings.TrimSpace(expired) {
		t.Errorf("event preData %s", last.PreData)
	}

	// A bare base64 certificate (as identity providers often show it) is
	// accepted and kept as sent.
	bare := base64.StdEncoding.EncodeToString(block.Bytes)
	ts.admin("POST", path, with(valid, "certificate", bare)).must(t, http.StatusOK).Decode(t, &got)
	if got.Certificate != bare {
		t.Errorf("bare certificate stored as %q", got.Certificate)
	}

	// The service provider's own key never shows: not in the settings, not
	// in any event.
	ts.request("GET", "/auth/saml/metadata", "", nil).must(t, http.StatusOK)
	res = ts.admin("GET", path, nil).must(t, http.StatusOK)
	all := ts.admin("GET", "/api/admin/events", nil).must(t, http.StatusOK)
	for _, b := range [][]byte{res.Body, all.Body} {
		if strings.Contains(string(b), "PRIVATE KEY") {
			t.Errorf("private key material in an answer: %.200s", b)
		}
	}
}

func runSAMLSignInFlow(t *testing.T, ts *testServer) {
	ts = onT(ts, t)
	idp := samltest.New(t)
	ada := samltest.User{NameID: "ada@example.com", Email: "ada@example.com", Name: "Ada"}
	idp.SignIn(ada)

	// Disabled: no sign-in, but the metadata is there to set up the IdP.
	ts.admin("POST", "/api/admin/auth/saml/settings", with(settingsFor(idp), "enabled", false)).must(t, http.StatusOK)
	b := newBrowser(t, ts)
	for _, res := range []response{b.get("/auth/saml/login"), b.post(samltest.Answer{Action: ts.url + "/auth/saml/callback", Form: url.Values{"SAMLResponse": {"x"}}})} {
		if res.Status != http.StatusNotFound || !strings.Contains(res.Object()["message"].(string), "not enabled") {
			t.Errorf("disabled: %d %s", res.Status, res.Body)
		}
	}
	md := b.get("/auth/saml/metadata").must(t, http.StatusOK)
	if ct := md.Header.Get("Content-Type"); ct != "application/samlmetadata+xml" ||
		!strings.Contains(string(md.Body), `entityID="`+ts.url+`/auth/saml/metadata"`) ||
		!strings.Contains(string(md.Body), `Location="`+ts.url+`/auth/saml/callback"`) {
		t.Errorf("metadata %s:\n%s", ct, md.Body)
	}

	configureSAML(t, ts, idp, settingsFor(idp))
	user := ts.admin("POST", "/api/admin/user-admin", map[string]any{"email": "ada@example.com", "name": "Ada", "rootRole": "Editor"}).must(t, http.StatusCreated).Object()
	adaID := int(user["id"].(float64))
	usersBefore := len(events(t, ts, "user-created"))

	t.Run("full flow", func(t *testing.T) {
		ts := onT(ts, t)
		b := newBrowser(t, ts)
		b.get("/api/admin/user").must(t, http.StatusUnauthorized)
		ans := b.startSignIn(idp)
		if b.cookie("/auth/saml/callback", samlRequestCookie) == "" {
			t.Error("no request-tracking cookie after the login redirect")
		}
		res := b.post(ans).must(t, http.StatusFound)
		if loc := res.Header.Get("Location"); loc != "/" {
			t.Errorf("redirect to %q", loc)
		}
		if b.cookie("/", SessionCookie) == "" {
			t.Fatal("no session cookie")
		}
		if b.cookie("/auth/saml/callback", samlRequestCookie) != "" {
			t.Error("request-tracking cookie not cleared")
		}
		if me := b.me(); me.ID != adaID || me.Email != "ada@example.com" || me.SeenAt == nil {
			t.Errorf("signed in as %+v", me)
		}
		// The same answer cannot be used twice.
		res = b.post(ans).must(t, http.StatusUnauthorized)
		if !strings.Contains(string(res.Body), "InResponseTo") {
			t.Errorf("replay: %s", res.Body)
		}
	})

	t.Run("email ignores case", func(t *testing.T) {
		ts := onT(ts, t)
		idp.SignIn(samltest.User{NameID: "ADA@Example.COM"})
		defer idp.SignIn(ada)
		b := newBrowser(t, ts)
		b.signIn(idp).must(t, http.StatusFound)
		if me := b.me(); me.ID != adaID {
			t.Errorf("signed in as %+v", me)
		}
	})

	t.Run("unknown user without autoCreate", func(t *testing.T) {
		ts := onT(ts, t)
		idp.SignIn(samltest.User{NameID: "new@example.com"})
		defer idp.SignIn(ada)
		res := newBrowser(t, ts).signIn(idp).must(t, http.StatusUnauthorized)
		if msg := res.Object()["message"].(string); !strings.Contains(msg, "new@example.com") || !strings.Contains(msg, "autoCreate") {
			t.Errorf("message %q", msg)
		}
	})

	t.Run("service account", func(t *testing.T) {
		ts := onT(ts, t)
		err := ts.srv.store.Update(context.Background(), func(tx store.Tx) error {
			_, err := tx.CreateUser(context.Background(), store.User{Email: "bot@example.com", RootRole: store.RoleAdmin, AccountType: store.AccountService})
			if err == nil {
				_, err = tx.AppendEvent(context.Background(), store.Event{Type: "service-account-created", CreatedBy: "test"})
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		idp.SignIn(samltest.User{NameID: "bot@example.com"})
		defer idp.SignIn(ada)
		res := newBrowser(t, ts).signIn(idp).must(t, http.StatusUnauthorized)
		if !strings.Contains(string(res.Body), "service account") {
			t.Errorf("%s", res.Body)
		}
	})

	t.Run("no e-mail", func(t *testing.T) {
		ts := onT(ts, t)
		idp.SignIn(samltest.User{NameID: "u-123", NameIDFormat: "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent"})
		defer idp.SignIn(ada)
		res := newBrowser(t, ts).signIn(idp).must(t, http.StatusUnauthorized)
		if !strings.Contains(string(res.Body), "no e-mail") {
			t.Errorf("%s", res.Body)
		}
	})

	t.Run("autoCreate", func(t *testing.T) {
		ts := onT(ts, t)
		configureSAML(t, ts, idp, with(settingsFor(idp), "autoCreate", true, "emailDomains", "example.com, @corp.example", "defaultRootRole", "Editor"))
		defer configureSAML(t, ts, idp, settingsFor(idp))
		defer idp.SignIn(ada)

		idp.SignIn(samltest.User{NameID: "grace@Corp.Example", Name: "Grace Hopper"})
		b := newBrowser(t, ts)
		b.signIn(idp).must(t, http.StatusFound)
		me := b.me()
		if me.Email != "grace@Corp.Example" || me.Name == nil || *me.Name != "Grace Hopper" || me.RootRole != store.RoleEditor {
			t.Errorf("created %+v", me)
		}
		evs := events(t, ts, "user-created")
		if len(evs) != usersBefore+1 {
			t.Fatalf("%d user-created events, want %d", len(evs), usersBefore+1)
		}
		if e := evs[len(evs)-1]; e.CreatedBy != samlActor || jsonObject(t, e.Data)["email"] != "grace@Corp.Example" {
			t.Errorf("event by %q: %s", e.CreatedBy, e.Data)
		}
		// Signing in again finds the same user.
		again := newBrowser(t, ts)
		again.signIn(idp).must(t, http.StatusFound)
		if again.me().ID != me.ID || len(events(t, ts, "user-created")) != usersBefore+1 {
			t.Error("second sign-in created another user")
		}

		for _, email := range []string{"eve@evil.example", "bob@sub.example.com", "mallory@example.com.evil"} {
			idp.SignIn(samltest.User{NameID: email})
			res := newBrowser(t, ts).signIn(idp).must(t, http.StatusUnauthorized)
			if msg := res.Object()["message"].(string); !strings.Contains(msg, "emailDomains") {
				t.Errorf("%s: message %q", email, msg)
			}
		}
		if n := len(events(t, ts, "user-created")); n != usersBefore+1 {
			t.Errorf("users outside emailDomains were created: %d events", n-usersBefore-1)
		}

		// An e-mail that is another user's username creates no second user
		// signing in with the same name.
		ts.admin("POST", "/api/admin/user-admin", map[string]any{"username": "Squat@Example.com", "rootRole": "Viewer"}).must(t, http.StatusCreated)
		idp.SignIn(samltest.User{NameID: "squat@example.com"})
		res := newBrowser(t, ts).signIn(idp).must(t, http.StatusUnauthorized)
		if msg := res.Object()["message"].(string); !strings.Contains(msg, "username of another user") {
			t.Errorf("message %q", msg)
		}
		if n := len(events(t, ts, "user-created")); n != usersBefore+2 {
			t.Errorf("%d user-created events, want %d", n, usersBefore+2)
		}
	})

	t.Run("group mapping", func(t *testing.T) {
		ts := onT(ts, t)
		var eng, other store.Group
		err := ts.srv.store.Update(context.Background(), func(tx store.Tx) (err error) {
			ctx := context.Background()
			if eng, err = tx.CreateGroup(ctx, store.Group{Name: "Engineering", MappingsSSO: []string{"eng", "dev"}}); err != nil {
				return err
			}
			if other, err = tx.CreateGroup(ctx, store.Group{Name: "Other", MappingsSSO: []string{"other"}}); err != nil {
				return err
			}
			_, err = tx.CreateGroup(ctx, store.Group{Name: "Unmapped"})
			if err == nil {
				_, err = tx.AppendEvent(ctx, store.Event{Type: "group-created", CreatedBy: "test"})
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		before := len(events(t, ts, "group-user-added"))
		idp.SignIn(with2(ada, "eng", "unrelated"))
		defer idp.SignIn(ada)
		for range 2 {
			newBrowser(t, ts).signIn(idp).must(t, http.StatusFound)
		}
		var groups []store.Group
		var members []store.GroupMember
		err = ts.srv.store.View(context.Background(), func(r store.Reader) (err error) {
			if groups, err = r.ListUserGroups(context.Background(), adaID); err != nil {
				return err
			}
			members, err = r.ListGroupMembers(context.Background(), eng.ID)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(groups) != 1 || groups[0].ID != eng.ID || len(members) != 1 || members[0].CreatedBy != samlActor {
			t.Errorf("groups %+v, members %+v (other is %d)", groups, members, other.ID)
		}
		evs := events(t, ts, "group-user-added")
		if len(evs) != before+1 {
			t.Fatalf("%d group-user-added events, want %d", len(evs), before+1)
		}
		if d := jsonObject(t, evs[len(evs)-1].Data); d["groupId"] != float64(eng.ID) || d["userId"] != float64(adaID) {
			t.Errorf("event data %v", d)
		}

		// Memberships of mapped groups follow the identity provider: a
		// group it no longer sends is left at the next sign-in, with an
		// event; groups without mappings are the admins' and stay.
		var unmapped store.Group
		err = ts.srv.store.Update(context.Background(), func(tx store.Tx) (err error) {
			ctx := context.Background()
			groups, err := tx.ListGroups(ctx)
			for _, g := range groups {
				if g.Name == "Unmapped" {
					unmapped = g
				}
			}
			if err == nil {
				err = tx.AddGroupMember(ctx, store.GroupMember{GroupID: unmapped.ID, UserID: adaID, CreatedBy: "admin"})
			}
			if err == nil {
				_, err = tx.AppendEvent(ctx, store.Event{Type: "group-user-added", CreatedBy: "test"})
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		groupsOf := func() []int {
			t.Helper()
			var ids []int
			err := ts.srv.store.View(context.Background(), func(r store.Reader) error {
				groups, err := r.ListUserGroups(context.Background(), adaID)
				for _, g := range groups {
					ids = append(ids, g.ID)
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			return ids
		}
		removedBefore := len(events(t, ts, "group-user-removed"))
		idp.SignIn(with2(ada, "other"))
		newBrowser(t, ts).signIn(idp).must(t, http.StatusFound)
		if got, want := groupsOf(), []int{other.ID, unmapped.ID}; !slices.Equal(got, want) {
			t.Errorf("after the IdP dropped eng: groups %v, want %v", got, want)
		}
		removed := events(t, ts, "group-user-removed")
		if len(removed) != removedBefore+1 {
			t.Fatalf("%d group-user-removed events, want %d", len(removed), removedBefore+1)
		}
		if e := removed[len(removed)-1]; e.CreatedBy != samlActor || jsonObject(t, e.Data)["groupId"] != float64(eng.ID) || jsonObject(t, e.Data)["userId"] != float64(adaID) {
			t.Errorf("removal event by %q: %s", e.CreatedBy, e.Data)
		}
		// An answer without groups leaves every mapped group.
		idp.SignIn(ada)
		newBrowser(t, ts).signIn(idp).must(t, http.StatusFound)
		if got, want := groupsOf(), []int{unmapped.ID}; !slices.Equal(got, want) {
			t.Errorf("after an answer without groups: groups %v, want %v", got, want)
		}
		if n := len(events(t, ts, "group-user-removed")); n != removedBefore+2 {
			t.Errorf("%d group-user-removed events, want %d", n, removedBefore+2)
		}
	})

	t.Run("replayed answer", func(t *testing.T) {
		ts := onT(ts, t)
		b := newBrowser(t, ts)
		ans := b.startSignIn(idp)
		// Whoever copied the answer and the request cookie (a shared
		// computer, a proxy's log) cannot start a second session with them.
		cookie := b.cookie("/auth/saml/callback", samlRequestCookie)
		b.post(ans).must(t, http.StatusFound)
		thief := newBrowser(t, ts)
		u, _ := url.Parse(ts.url + "/auth/saml/")
		thief.client.Jar.SetCookies(u, []*http.Cookie{{Name: samlRequestCookie, Value: cookie, Path: "/auth/saml/"}})
		res := thief.post(ans).must(t, http.StatusUnauthorized)
		if msg := res.Object()["message"].(string); !strings.Contains(msg, "used already") {
			t.Errorf("message %q", msg)
		}
		if thief.cookie("/", SessionCookie) != "" {
			t.Error("session cookie for a replayed answer")
		}
	})

	t.Run("refused answer replayed", func(t *testing.T) {
		ts := onT(ts, t)
		idp.SignIn(samltest.User{NameID: "late@example.com"})
		defer idp.SignIn(ada)
		b := newBrowser(t, ts)
		ans := b.startSignIn(idp)
		cookie := b.cookie("/auth/saml/callback", samlRequestCookie)
		b.post(ans).must(t, http.StatusUnauthorized)
		// Once the user exists, the answer refused before is still used up.
		ts.admin("POST", "/api/admin/user-admin", map[string]any{"email": "late@example.com", "rootRole": "Viewer"}).must(t, http.StatusCreated)
		u, _ := url.Parse(ts.url + "/auth/saml/")
		b.client.Jar.SetCookies(u, []*http.Cookie{{Name: samlRequestCookie, Value: cookie, Path: "/auth/saml/"}})
		res := b.post(ans).must(t, http.StatusUnauthorized)
		if msg := res.Object()["message"].(string); !strings.Contains(msg, "used already") {
			t.Errorf("message %q", msg)
		}
		// A new sign-in works.
		newBrowser(t, ts).signIn(idp).must(t, http.StatusFound)
	})

	t.Run("answer for another host", func(t *testing.T) {
		ts := onT(ts, t)
		const evil = "evil.example"
		// The metadata names the public URL whatever Host and
		// X-Forwarded-* say.
		req, _ := http.NewRequest("GET", ts.url+"/auth/saml/metadata", nil)
		req.Host = evil
		req.Header.Set("X-Forwarded-Proto", "https")
		req.Header.Set("X-Forwarded-Host", evil)
		b := newBrowser(t, ts)
		md := b.do(req).must(t, http.StatusOK)
		if strings.Contains(string(md.Body), evil) || !strings.Contains(string(md.Body), `entityID="`+ts.url+`/auth/saml/metadata"`) {
			t.Errorf("metadata under another Host:\n%s", md.Body)
		}
		if err := idp.Trust(md.Body); err != nil {
			t.Fatal(err)
		}
		// An answer meant for the service provider at the other host,
		// posted under that Host, is refused.
		idp.SetAudience("http://" + evil + "/auth/saml/metadata")
		defer idp.SetAudience("")
		req, _ = http.NewRequest("GET", ts.url+"/auth/saml/login", nil)
		req.Host = evil
		loc := b.do(req).must(t, http.StatusFound).Header.Get("Location")
		ans, err := idp.Answer(loc)
		if err != nil {
			t.Fatal(err)
		}
		req, _ = http.NewRequest("POST", ts.url+"/auth/saml/callback", strings.NewReader(ans.Form.Encode()))
		req.Host = evil
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		res := b.do(req).must(t, http.StatusUnauthorized)
		if msg := res.Object()["message"].(string); !strings.Contains(msg, "audience") {
			t.Errorf("message %q", msg)
		}
		if b.cookie("/", SessionCookie) != "" {
			t.Error("session cookie for an answer meant for another host")
		}
	})

	t.Run("wrong certificate", func(t *testing.T) {
		ts := onT(ts, t)
		other := samltest.New(t)
		configureSAML(t, ts, idp, with(settingsFor(idp), "certificate", other.CertificatePEM))
		defer configureSAML(t, ts, idp, settingsFor(idp))
		b := newBrowser(t, ts)
		res := b.signIn(idp).must(t, http.StatusUnauthorized)
		if msg := res.Object()["message"].(string); !strings.Contains(msg, "signature") {
			t.Errorf("message %q", msg)
		}
		if b.cookie("/", SessionCookie) != "" {
			t.Error("session cookie after a refused answer")
		}
	})

	t.Run("expired assertion", func(t *testing.T) {
		ts := onT(ts, t)
		idp.ShiftTime(-10 * time.Minute)
		defer idp.ShiftTime(0)
		res := newBrowser(t, ts).signIn(idp).must(t, http.StatusUnauthorized)
		if msg := res.Object()["message"].(string); !strings.Contains(msg, "validity period") {
			t.Errorf("message %q", msg)
		}
	})

	t.Run("wrong audience", func(t *testing.T) {
		ts := onT(ts, t)
		idp.SetAudience("https://another-sp.example/metadata")
		defer idp.SetAudience("")
		res := newBrowser(t, ts).signIn(idp).must(t, http.StatusUnauthorized)
		if msg := res.Object()["message"].(string); !strings.Contains(msg, "audience") {
			t.Errorf("message %q", msg)
		}
	})

	t.Run("answer from another browser", func(t *testing.T) {
		ts := onT(ts, t)
		ans := newBrowser(t, ts).startSignIn(idp)
		res := newBrowser(t, ts).post(ans).must(t, http.StatusUnauthorized)
		if msg := res.Object()["message"].(string); !strings.Contains(msg, "InResponseTo") {
			t.Errorf("message %q", msg)
		}
	})

	t.Run("forged request cookie", func(t *testing.T) {
		ts := onT(ts, t)
		b := newBrowser(t, ts)
		ans := b.startSignIn(idp)
		u, _ := url.Parse(ts.url + "/auth/saml/")
		v := b.cookie("/auth/saml/callback", samlRequestCookie)
		b.client.Jar.SetCookies(u, []*http.Cookie{{Name: samlRequestCookie, Value: forgeMAC(t, v), Path: "/auth/saml/"}})
		b.post(ans).must(t, http.StatusUnauthorized)
	})

	t.Run("several pending sign-ins", func(t *testing.T) {
		ts := onT(ts, t)
		b := newBrowser(t, ts)
		first := b.startSignIn(idp)
		b.startSignIn(idp)
		b.post(first).must(t, http.StatusFound)
	})

	t.Run("bad callback requests", func(t *testing.T) {
		ts := onT(ts, t)
		b := newBrowser(t, ts)
		req, _ := http.NewRequest("POST", ts.url+"/auth/saml/callback", strings.NewReader(`{"SAMLResponse":"x"}`))
		req.Header.Set("Content-Type", "application/json")
		b.do(req).must(t, http.StatusUnsupportedMediaType)
		b.post(samltest.Answer{Action: ts.url + "/auth/saml/callback", Form: url.Values{"RelayState": {"x"}}}).must(t, http.StatusBadRequest)
		b.post(samltest.Answer{Action: ts.url + "/auth/saml/callback", Form: url.Values{"SAMLResponse": {"bm90IHhtbA=="}}}).must(t, http.StatusUnauthorized)
	})
}

// forgeMAC changes the first character of a signed cookie's MAC. The last
// characters would not do: base64 ignores a final character's spare bits,
// so some changes there decode to the same MAC.
func forgeMAC(t *testing.T, v string) string {
	t.Helper()
	i := strings.IndexByte(v, '.') + 1
	if i == 0 || i == len(v) {
		t.Fatalf("cookie %q has no MAC", v)
	}
	c := byte('A')
	if v[i] == 'A' {
		c = 'B'
	}
	return v[:i] + string(c) + v[i+1:]
}

func with2(u samltest.User, groups ...string) samltest.User {
	u.Groups = groups
	return u
}

var x509Data = regexp.MustCompile(`<X509Certificate[^>]*>([^<]+)</`)

// An answer is accepted once across every instance sharing the database:
// the used ids are in the database, not in one process.
func TestSAMLReplayAcrossInstances(t *testing.T) {
	st := openSQLiteStore(t, filepath.Join(t.TempDir(), "signalbox.db"))
	a := newSAMLTestServerOn(t, st, "")
	// b is another instance behind the same public URL.
	b := newSAMLTestServerOn(t, st, a.url)
	idp := samltest.New(t)
	idp.SignIn(samltest.User{NameID: "ada@example.com"})
	configureSAML(t, a, idp, settingsFor(idp))
	a.admin("POST", "/api/admin/user-admin", map[string]any{"email": "ada@example.com", "rootRole": "Viewer"}).must(t, http.StatusCreated)

	onB := func(ans samltest.Answer) samltest.Answer {
		ans.Action = strings.Replace(ans.Action, a.url, b.url, 1)
		return ans
	}
	// Each instance accepts an answer to a request started on the other.
	br := newBrowser(t, a)
	ans := br.startSignIn(idp)
	cookie := br.cookie("/auth/saml/callback", samlRequestCookie)
	br.post(onB(ans)).must(t, http.StatusFound)

	// The same answer, with the request cookie, is refused by the other.
	thief := newBrowser(t, a)
	u, _ := url.Parse(a.url + "/auth/saml/")
	thief.client.Jar.SetCookies(u, []*http.Cookie{{Name: samlRequestCookie, Value: cookie, Path: "/auth/saml/"}})
	res := thief.post(ans).must(t, http.StatusUnauthorized)
	if msg := res.Object()["message"].(string); !strings.Contains(msg, "used already") {
		t.Errorf("message %q", msg)
	}
}

// SAML needs the server's public URL: without it, SAML cannot be enabled
// and its routes say what to configure, instead of trusting the Host
// header.
func TestSAMLWithoutPublicURL(t *testing.T) {
	ts := newTestServer(t)
	idp := samltest.New(t)
	const path = "/api/admin/auth/saml/settings"
	res := ts.admin("POST", path, settingsFor(idp)).must(t, http.StatusBadRequest)
	var body struct {
		Name    string
		Message string
		Details []struct{ Path, Message string }
	}
	res.Decode(t, &body)
	if body.Name != "ValidationError" || len(body.Details) != 1 || body.Details[0].Path != "enabled" || !strings.Contains(body.Message, "SIGNALBOX_URL") {
		t.Errorf("enabling SAML without public URL: %s", res.Body)
	}
	// Disabled settings can be prepared.
	ts.admin("POST", path, with(settingsFor(idp), "enabled", false)).must(t, http.StatusOK)
	for _, res := range []response{
		ts.request("GET", "/auth/saml/metadata", "", nil, "X-Forwarded-Proto", "https"),
	} {
		if res.Status != http.StatusServiceUnavailable || !strings.Contains(res.Object()["message"].(string), "SIGNALBOX_URL") {
			t.Errorf("metadata without public URL: %d %s", res.Status, res.Body)
		}
	}
	// Settings enabled while a public URL was configured: sign-in says what
	// is missing.
	value, _ := json.Marshal(with(settingsFor(idp), "defaultRootRole", "Viewer"))
	err := ts.srv.store.Update(context.Background(), func(tx store.Tx) error {
		if _, err := tx.PutSetting(context.Background(), store.Setting{Name: samlSettingName, Value: value}); err != nil {
			return err
		}
		_, err := tx.AppendEvent(context.Background(), store.Event{Type: "setting-updated", CreatedBy: "test"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t, ts)
	for _, res := range []response{
		b.get("/auth/saml/metadata"),
		b.get("/auth/saml/login"),
		b.post(samltest.Answer{Action: ts.url + "/auth/saml/callback", Form: url.Values{"SAMLResponse": {"eA=="}}}),
	} {
		if res.Status != http.StatusServiceUnavailable || !strings.Contains(res.Object()["message"].(string), "SIGNALBOX_URL") {
			t.Errorf("without public URL: %d %s", res.Status, res.Body)
		}
	}
}

// A public URL that is set must be an absolute http(s) URL.
func TestPublicURLChecked(t *testing.T) {
	st := openSQLiteStore(t, filepath.Join(t.TempDir(), "signalbox.db"))
	for _, u := range []string{"flags.example.com", "/signalbox", "ftp://flags.example.com", "https://", "https://flags.example.com/?a=b", "https://flags.example.com/#x", "https://user:pw@flags.example.com"} {
		if _, err := New(t.Context(), st, Config{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), PublicURL: u}); err == nil {
			t.Errorf("public URL %q accepted", u)
		}
	}
	for _, u := range []string{"https://flags.example.com", "http://localhost:4242/", "https://example.com/signalbox"} {
		if _, err := New(t.Context(), st, Config{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), PublicURL: u}); err != nil {
			t.Errorf("public URL %q: %v", u, err)
		}
	}
}

// The service provider's key is generated once and kept in the database:
// every instance, and every restart, publishes the same certificate.
func TestSAMLKeySharedAcrossInstances(t *testing.T) {
	path := filepath.Join(t.TempDir(), "signalbox.db")
	st := openSQLiteStore(t, path)
	a, b := newSAMLTestServerOn(t, st, ""), newSAMLTestServerOn(t, st, "")
	certOf := func(ts *testServer) string {
		t.Helper()
		md := ts.request("GET", "/auth/saml/metadata", "", nil).must(t, http.StatusOK)
		m := x509Data.FindSubmatch(md.Body)
		if m == nil {
			t.Fatalf("no certificate in %s", md.Body)
		}
		return string(m[1])
	}
	// Concurrent first uses agree.
	certs := make(chan string, 4)
	for _, ts := range []*testServer{a, b, a, b} {
		go func() {
			res, err := http.Get(ts.url + "/auth/saml/metadata")
			if err != nil {
				certs <- err.Error()
				return
			}
			defer res.Body.Close()
			body, _ := io.ReadAll(res.Body)
			m := x509Data.FindSubmatch(body)
			if m == nil {
				certs <- string(body)
				return
			}
			certs <- string(m[1])
		}()
	}
	first := <-certs
	for range 3 {
		if c := <-certs; c != first {
			t.Errorf("instances disagree on the certificate:\n%s\n%s", first, c)
		}
	}
	if certOf(a) != first || certOf(b) != first {
		t.Error("certificate changed")
	}
	st.Close()
	restarted := newSAMLTestServerOn(t, openSQLiteStore(t, path), "")
	if certOf(restarted) != first {
		t.Error("the certificate changed across a restart")
	}
}

// The SAML endpoints answer what the OpenAPI document says.
func TestSAMLOpenAPI(t *testing.T) {
	ts := newSAMLTestServer(t)
	idp := samltest.New(t)
	c := newOAChecker(t, ts)
	const path = "/api/admin/auth/saml/settings"
	c.do("GET", path, testAdminToken, nil, http.StatusOK)
	c.do("GET", "/auth/saml/login", "", nil, http.StatusNotFound)
	c.do("POST", path, testAdminToken, with(settingsFor(idp), "autoCreate", true, "emailDomains", "example.com"), http.StatusOK)
	c.do("POST", path, testAdminToken, with(settingsFor(idp), "certificate", "nope"), http.StatusBadRequest)
	c.do("POST", path, "", settingsFor(idp), http.StatusUnauthorized)
	c.do("POST", path, testClientToken, settingsFor(idp), http.StatusForbidden)
	c.do("GET", path, testAdminToken, nil, http.StatusOK)
	noURL := newOAChecker(t, newTestServer(t))
	noURL.do("GET", "/auth/saml/metadata", "", nil, http.StatusServiceUnavailable)
	// The metadata (XML) and the browser flow (redirects, forms) are
	// checked by the tests above; kin-openapi decodes neither.
}
