package server

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"

	"github.com/signalbox/signalbox/auth/saml"
	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// SAML 2.0 single sign-on. Admins store the identity provider's settings
// (/api/admin/auth/saml/settings); the server is the service provider:
//
//   - GET /auth/saml/metadata: its metadata, for the identity provider.
//   - GET /auth/saml/login: redirects the browser to the identity
//     provider with a signed authentication request (HTTP-Redirect).
//   - POST /auth/saml/callback: the assertion consumer service
//     (HTTP-POST). A valid answer signs the person in with a session
//     cookie, as the password login does, and redirects to /.
//
// The service provider's entity id is its metadata URL, and its URLs are
// built from the server's public URL (Config.PublicURL), never from the
// Host or X-Forwarded-* headers of a request, which whoever sends the
// request chooses: SAML cannot be enabled, and its routes answer 503,
// without the public URL. Its signing key and
// self-signed certificate are generated at first use and kept in the
// settings store, so that they survive restarts and every instance
// sharing the database uses the same.
//
// The identity provider's answer must refer to an authentication request
// this browser started: the ids of up to samlMaxPending recent requests
// travel in a signed cookie (IdP-initiated sign-in is not accepted). Each
// answer signs in once: the ids of its assertion and of the request it
// answers are kept in the database (store.UsedIDWriter) until the answer
// would be refused as expired, so that neither this instance nor another
// one sharing the database accepts it again. The
// person is found by e-mail (the NameID, or an e-mail attribute). An
// unknown person is created when autoCreate is on and the address's domain
// is one of emailDomains (exactly; subdomains are not included), with
// defaultRootRole. Then the person's memberships of groups with SSO
// mappings follow the groups the identity provider sent (attribute
// "groups", "memberOf" and the like, see saml.GroupAttributes): the person
// joins every such group whose mappingsSSO names one of them and leaves
// every such group whose mappingsSSO names none (an answer without group
// attribute sends none). Groups without SSO mappings are left alone.

func registerSAML(s *Server, m mux) {
	m.admin("GET /api/admin/auth/saml/settings", PermAdmin, s.handleGetSAMLSettings)
	m.admin("POST /api/admin/auth/saml/settings", PermAdmin, s.handleSaveSAMLSettings)
	m.public("GET /auth/saml/metadata", s.handleSAMLMetadata)
	m.public("GET /auth/saml/login", s.handleSAMLLogin)
	m.public("POST /auth/saml/callback", s.handleSAMLCallback)
}

const (
	// samlSettingName is the setting of the SAML configuration; the name
	// is Unleash's.
	samlSettingName = "unleash.enterprise.auth.saml"
	// samlKeySettingName holds the service provider's key pair. It is
	// never shown by any endpoint.
	samlKeySettingName = "signalbox.auth.saml.service-provider-key"
	// samlRequestCookie carries the ids of pending authentication requests.
	samlRequestCookie = "signalbox-saml-request"
	samlRequestTTL    = 10 * time.Minute
	samlMaxPending    = 5
	// samlActor is the createdBy of events of SAML sign-ins.
	samlActor = "saml"
	// samlMetadataPath etc. are the service provider's endpoints.
	samlMetadataPath = "/auth/saml/metadata"
	samlCallbackPath = "/auth/saml/callback"
)

// newSAMLProvider builds the service provider. It is the only place the
// server names an implementation of saml.ServiceProvider.
var newSAMLProvider = saml.New

// samlSettings is the SAML settings resource, as stored.
type samlSettings struct {
	Enabled         bool   `json:"enabled"`
	EntityID        string `json:"entityId"`
	SignOnURL       string `json:"signOnUrl"`
	Certificate     string `json:"certificate"`
	SignOutURL      string `json:"signOutUrl"`
	SPCertificate   string `json:"spCertificate"`
	AutoCreate      bool   `json:"autoCreate"`
	EmailDomains    string `json:"emailDomains"`
	DefaultRootRole string `json:"defaultRootRole"`
}

// samlRootRoles are the root roles auto-created users may get.
var samlRootRoles = map[string]int{"Viewer": store.RoleViewer, "Editor": store.RoleEditor, "Admin": store.RoleAdmin}

// checkSAMLSettings validates and normalises settings: trimmed strings,
// the root role in its canonical spelling (Viewer when empty). Every
// problem is listed in one ValidationError. Enabled settings need the
// server's public URL (hasPublicURL), from which the service provider's
// identifiers derive.
func checkSAMLSettings(in samlSettings, now time.Time, hasPublicURL bool) (samlSettings, error) {
	out := in
	for _, p := range []*string{&out.EntityID, &out.SignOnURL, &out.Certificate, &out.SignOutURL, &out.SPCertificate, &out.EmailDomains, &out.DefaultRootRole} {
		*p = strings.TrimSpace(*p)
	}
	var details []apierr.Detail
	bad := func(path, format string, args ...any) {
		details = append(details, apierr.Detail{Path: path, Message: fmt.Sprintf(format, args...)})
	}
	if out.Enabled && !hasPublicURL {
		bad("enabled", "SAML sign-in cannot be enabled while the server's public URL is not configured: set SIGNALBOX_URL (such as https://flags.example.com) and restart; the service provider's entity id and callback URL derive from it")
	}
	// Entity ids are anyURI in the SAML schema, which in practice is any
	// string: identity providers use names such as "my-idp" as well as
	// URLs and URNs.
	switch {
	case out.EntityID == "":
		bad("entityId", "entityId is required: the identity provider's SAML entity id (issuer)")
	case len(out.EntityID) > samlMaxEntityID || hasControl(out.EntityID):
		bad("entityId", "entityId must be at most %d characters without control characters, such as https://idp.example.com/metadata or urn:example:idp", samlMaxEntityID)
	}
	if out.SignOnURL == "" {
		bad("signOnUrl", "signOnUrl is required: the identity provider's single sign-on URL")
	} else if !isHTTPURL(out.SignOnURL) {
		bad("signOnUrl", "signOnUrl must be an absolute http or https URL of at most 2048 characters")
	}
	if out.Certificate == "" {
		bad("certificate", "certificate is required: the identity provider's X.509 signing certificate, PEM or base64")
	} else if certs, err := parseCertificateField(out.Certificate); err != nil {
		bad("certificate", "certificate is not a usable X.509 certificate: %v", err)
	} else if out.Enabled && allExpired(certs, now) {
		bad("certificate", "certificate expired on %s; get the identity provider's current one", certs[0].NotAfter.UTC().Format(time.DateOnly))
	}
	if out.SignOutURL != "" && !isHTTPURL(out.SignOutURL) {
		bad("signOutUrl", "signOutUrl must be an absolute http or https URL of at most 2048 characters")
	}
	if out.SPCertificate != "" {
		if _, err := parseCertificateField(out.SPCertificate); err != nil {
			bad("spCertificate", "spCertificate is not a usable X.509 certificate: %v", err)
		}
	}
	domains, err := parseEmailDomains(out.EmailDomains)
	switch {
	case err != nil:
		bad("emailDomains", "%v", err)
	case out.AutoCreate && len(domains) == 0:
		bad("emailDomains", "autoCreate needs emailDomains: the comma-separated e-mail domains whose people may be created, such as example.com")
	}
	if out.DefaultRootRole == "" {
		out.DefaultRootRole = "Viewer"
	}
	role := ""
	for name := range samlRootRoles {
		if strings.EqualFold(name, out.DefaultRootRole) {
			role = name
		}
	}
	if role == "" {
		bad("defaultRootRole", "defaultRootRole must be Viewer, Editor or Admin, not %q", out.DefaultRootRole)
	}
	out.DefaultRootRole = role
	if len(details) > 0 {
		msgs := make([]string, len(details))
		for i, d := range details {
			msgs[i] = d.Message
		}
		return samlSettings{}, &apierr.Error{Kind: apierr.Validation, Message: strings.Join(msgs, "; "), Details: details}
	}
	return out, nil
}

// parseCertificateField parses a certificate setting, bounded in size.
func parseCertificateField(s string) ([]*x509.Certificate, error) {
	if len(s) > 64<<10 {
		return nil, errors.New("it is longer than 64 KiB")
	}
	return saml.ParseCertificates(s)
}

func allExpired(certs []*x509.Certificate, now time.Time) bool {
	for _, c := range certs {
		if now.Before(c.NotAfter) {
			return false
		}
	}
	return true
}

// samlMaxEntityID bounds the identity provider's entity id.
const samlMaxEntityID = 1024

// hasControl reports whether s has a control character (NUL included).
func hasControl(s string) bool {
	for _, r := range s {
		if unicode.IsControl(r) {
			return true
		}
	}
	return false
}

func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && len(s) <= 2048 && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" && !strings.ContainsAny(s, " \t\r\n")
}

// parseEmailDomains reads the comma-separated domain list, lower-cased;
// a leading @ is allowed ("@example.com").
func parseEmailDomains(s string) ([]string, error) {
	var out []string
	for _, d := range strings.Split(s, ",") {
		d = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(d), "@"))
		if d == "" {
			continue
		}
		if !isDomain(d) {
			return nil, fmt.Errorf("emailDomains must be a comma-separated list of domains such as example.com, example.org; %q is not a domain", d)
		}
		out = append(out, d)
	}
	return out, nil
}

func isDomain(d string) bool {
	if len(d) > 253 {
		return false
	}
	for _, label := range strings.Split(d, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
				return false
			}
		}
	}
	return true
}

// loadSAMLSettings returns the stored settings; ok is false when none were
// ever stored.
func (s *Server) loadSAMLSettings(ctx context.Context) (set samlSettings, ok bool, err error) {
	err = s.view(ctx, func(rd store.Reader) error {
		st, err := rd.GetSetting(ctx, samlSettingName)
		if apierr.Is(err, apierr.NotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		ok = true
		return json.Unmarshal(st.Value, &set)
	})
	return set, ok, err
}

func (s *Server) handleGetSAMLSettings(w http.ResponseWriter, r *http.Request) error {
	set, ok, err := s.loadSAMLSettings(r.Context())
	if err != nil {
		return err
	}
	if !ok {
		set = samlSettings{DefaultRootRole: "Viewer"}
	}
	return writeJSON(w, http.StatusOK, set)
}

// samlSettingEvent is the data of a setting-updated event: the setting's
// name and its value.
type samlSettingEvent struct {
	ID string `json:"id"`
	samlSettings
}

// handleSaveSAMLSettings is POST /api/admin/auth/saml/settings:
// it replaces the settings and answers them as stored.
func (s *Server) handleSaveSAMLSettings(w http.ResponseWriter, r *http.Request) error {
	var body samlSettings
	if err := decode(w, r, &body); err != nil {
		return err
	}
	set, err := checkSAMLSettings(body, s.now(), s.cfg.PublicURL != "")
	if err != nil {
		return err
	}
	value, err := json.Marshal(set)
	if err != nil {
		return err
	}
	ctx := r.Context()
	err = s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		var pre json.RawMessage
		old, err := tx.GetSetting(ctx, samlSettingName)
		switch {
		case err == nil:
			var before samlSettings
			if json.Unmarshal(old.Value, &before) == nil {
				pre = eventData(samlSettingEvent{ID: samlSettingName, samlSettings: before})
			}
		case !apierr.Is(err, apierr.NotFound):
			return nil, err
		}
		if _, err := tx.PutSetting(ctx, store.Setting{Name: samlSettingName, Value: value}); err != nil {
			return nil, err
		}
		return []store.Event{{Type: "setting-updated", Data: eventData(samlSettingEvent{ID: samlSettingName, samlSettings: set}), PreData: pre}}, nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, set)
}

// samlKeyPair returns the service provider's key pair, generating and
// storing it at first use. Concurrent first uses, on this instance or on
// others sharing the database, agree on the one stored first.
func (s *Server) samlKeyPair(ctx context.Context) (saml.KeyPair, error) {
	var kp saml.KeyPair
	read := func(st store.Setting) error {
		if err := json.Unmarshal(st.Value, &kp); err != nil || kp.Key == "" {
			return fmt.Errorf("server: the stored SAML service provider key is unreadable: %v", err)
		}
		return nil
	}
	err := s.view(ctx, func(rd store.Reader) error {
		st, err := rd.GetSetting(ctx, samlKeySettingName)
		if apierr.Is(err, apierr.NotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		return read(st)
	})
	if err != nil || kp.Key != "" {
		return kp, err
	}
	fresh, err := saml.NewKeyPair("Signalbox SAML service provider", s.now())
	if err != nil {
		return kp, err
	}
	value, err := json.Marshal(fresh)
	if err != nil {
		return kp, err
	}
	err = s.store.Update(ctx, func(tx store.Tx) error {
		st, err := tx.InitSetting(ctx, store.Setting{Name: samlKeySettingName, Value: value})
		if err != nil {
			return err
		}
		return read(st)
	})
	return kp, err
}

// samlBaseURL is the server's public URL, from which the SAML entity id,
// callback and expected audience derive. It is never taken from a
// request: Host and X-Forwarded-* are whatever the sender wrote, and an
// answer meant for another service provider would then be accepted.
func (s *Server) samlBaseURL() (string, error) {
	if s.cfg.PublicURL == "" {
		return "", apierr.New(apierr.NotReady,
			"SAML sign-in needs the server's public URL: set SIGNALBOX_URL (such as https://flags.example.com) and restart")
	}
	return strings.TrimRight(s.cfg.PublicURL, "/"), nil
}

// checkPublicURL refuses a public URL (Config.PublicURL) that is set but
// is not an absolute http or https URL without query or fragment.
func checkPublicURL(s string) error {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || !isHTTPURL(s) || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("server: the public URL %q must be an absolute http or https URL such as https://flags.example.com", s)
	}
	return nil
}

// samlProvider builds the service provider for r from the stored
// settings. With needEnabled, SAML sign-in must be enabled (404
// otherwise). Without the public URL it answers 503.
func (s *Server) samlProvider(r *http.Request, needEnabled bool) (saml.ServiceProvider, samlSettings, saml.KeyPair, error) {
	ctx := r.Context()
	set, ok, err := s.loadSAMLSettings(ctx)
	if err != nil {
		return nil, set, saml.KeyPair{}, err
	}
	if needEnabled && (!ok || !set.Enabled) {
		return nil, set, saml.KeyPair{}, apierr.New(apierr.NotFound,
			"SAML sign-in is not enabled on this server; an admin can set it up with POST /api/admin/auth/saml/settings")
	}
	base, err := s.samlBaseURL()
	if err != nil {
		return nil, set, saml.KeyPair{}, err
	}
	kp, err := s.samlKeyPair(ctx)
	if err != nil {
		return nil, set, kp, err
	}
	key, cert, err := kp.Parse()
	if err != nil {
		return nil, set, kp, err
	}
	cfg := saml.Config{MetadataURL: base + samlMetadataPath, ACSURL: base + samlCallbackPath, Key: key, Certificate: cert}
	if ok {
		certs, err := saml.ParseCertificates(set.Certificate)
		if err != nil && set.Enabled {
			return nil, set, kp, fmt.Errorf("server: the stored SAML certificate does not parse: %w", err)
		}
		cfg.IDP = saml.IdentityProvider{EntityID: set.EntityID, SignOnURL: set.SignOnURL, Certificates: certs}
	}
	sp, err := newSAMLProvider(cfg)
	return sp, set, kp, err
}

func (s *Server) handleSAMLMetadata(w http.ResponseWriter, r *http.Request) error {
	sp, _, _, err := s.samlProvider(r, false)
	if err != nil {
		return err
	}
	md, err := sp.Metadata()
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/samlmetadata+xml")
	_, err = w.Write(md)
	return err
}

func (s *Server) handleSAMLLogin(w http.ResponseWriter, r *http.Request) error {
	sp, _, kp, err := s.samlProvider(r, true)
	if err != nil {
		return err
	}
	req, err := sp.AuthnRequest("")
	if err != nil {
		return err
	}
	ids := append([]string{req.ID}, s.pendingSAMLRequests(r, kp)...)
	if len(ids) > samlMaxPending {
		ids = ids[:samlMaxPending]
	}
	s.setPendingSAMLRequests(w, kp, ids)
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, req.URL, http.StatusFound)
	return nil
}

// samlPending is the content of the request cookie.
type samlPending struct {
	IDs     []string `json:"ids"`
	Expires int64    `json:"exp"`
}

// samlCookieMAC signs the request cookie with a key derived from the
// service provider's private key, which every instance shares.
func samlCookieMAC(kp saml.KeyPair, payload string) []byte {
	k := sha256.Sum256([]byte("signalbox saml request cookie\x00" + kp.Key))
	m := hmac.New(sha256.New, k[:])
	m.Write([]byte(payload))
	return m.Sum(nil)
}

// pendingSAMLRequests reads the ids of this browser's pending
// authentication requests; none if the cookie is absent, forged or old.
func (s *Server) pendingSAMLRequests(r *http.Request, kp saml.KeyPair) []string {
	c, err := r.Cookie(samlRequestCookie)
	if err != nil {
		return nil
	}
	payload, mac, ok := strings.Cut(c.Value, ".")
	sig, err := base64.RawURLEncoding.DecodeString(mac)
	if !ok || err != nil || !hmac.Equal(sig, samlCookieMAC(kp, payload)) {
		return nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	var p samlPending
	if err != nil || json.Unmarshal(raw, &p) != nil || s.now().Unix() >= p.Expires {
		return nil
	}
	return p.IDs
}

// setPendingSAMLRequests writes the request cookie; no ids clear it. The
// identity provider posts its answer from another site, so the cookie is
// SameSite=None where it can be (Secure); otherwise it gets no SameSite
// attribute, which browsers treat leniently for such posts.
func (s *Server) setPendingSAMLRequests(w http.ResponseWriter, kp saml.KeyPair, ids []string) {
	c := &http.Cookie{Name: samlRequestCookie, Path: "/auth/saml/", HttpOnly: true, Secure: s.cfg.SecureCookies}
	if s.cfg.SecureCookies {
		c.SameSite = http.SameSiteNoneMode
	}
	if len(ids) == 0 {
		c.MaxAge = -1
	} else {
		raw, _ := json.Marshal(samlPending{IDs: ids, Expires: s.now().Add(samlRequestTTL).Unix()})
		payload := base64.RawURLEncoding.EncodeToString(raw)
		c.Value = payload + "." + base64.RawURLEncoding.EncodeToString(samlCookieMAC(kp, payload))
		c.MaxAge = int(samlRequestTTL / time.Second)
	}
	http.SetCookie(w, c)
}

// samlRefused is the 401 of a sign-in that did not succeed.
func samlRefused(cause error, format string, args ...any) error {
	return apierr.Wrap(apierr.AuthenticationRequired, cause, "SAML sign-in failed: "+format, args...)
}

// handleSAMLCallback is the assertion consumer service.
func (s *Server) handleSAMLCallback(w http.ResponseWriter, r *http.Request) error {
	sp, set, kp, err := s.samlProvider(r, true)
	if err != nil {
		return err
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/x-www-form-urlencoded" {
		return apierr.New(apierr.ContentType, "the identity provider must post its answer as a form (application/x-www-form-urlencoded)")
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if err := r.ParseForm(); err != nil {
		return apierr.Wrap(apierr.BadRequest, err, "the identity provider's answer could not be read")
	}
	answer := r.PostForm.Get("SAMLResponse")
	if answer == "" {
		return apierr.New(apierr.BadRequest, "the form has no SAMLResponse; the identity provider must post its answer here (HTTP-POST binding)")
	}
	ident, err := sp.ParseResponse(answer, s.pendingSAMLRequests(r, kp))
	if err != nil {
		reason := saml.ReasonInvalid
		var re *saml.ResponseError
		if errors.As(err, &re) {
			reason = re.Reason
		}
		s.log.Warn("SAML sign-in refused", "reason", reason, "err", err)
		return samlRefused(err, "the identity provider's answer was not accepted: %s", reason)
	}
	email := ident.Email()
	if email == "" {
		return samlRefused(nil, "the identity provider's answer names no e-mail address (as NameID or an email attribute)")
	}
	ctx := r.Context()
	now := s.now()
	// The answer is used up before anything else, in a transaction of its
	// own: one that is then refused (an unknown user, say) cannot be
	// presented again once the reason is gone.
	if err := s.store.Update(ctx, func(tx store.Tx) error { return useSAMLAnswer(ctx, tx, ident, now) }); err != nil {
		return err
	}
	var secret string
	err = s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		u, events, err := samlUser(ctx, tx, set, email, ident.Name())
		if err != nil {
			return nil, err
		}
		synced, err := syncSSOGroups(ctx, tx, u, ident.Groups())
		if err != nil {
			return nil, err
		}
		secret, err = s.startSession(ctx, tx, u.ID, now)
		return append(events, synced...), err
	})
	if err != nil {
		return err
	}
	s.setPendingSAMLRequests(w, kp, nil)
	s.setSessionCookie(w, secret, now)
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, "/", http.StatusFound)
	return nil
}

// samlUsedIDTTL is how long the ids of an accepted answer are kept at
// least: longer than a pending request lives, so that a request cannot be
// answered twice while its cookie is valid.
const samlUsedIDTTL = samlRequestTTL + time.Minute

// useSAMLAnswer records the ids of the assertion and of the request it
// answers; it refuses the answer if either was used before. The records last until the answer expires, so the
// table holds no more than the sign-ins of that period.
func useSAMLAnswer(ctx context.Context, tx store.Tx, ident *saml.Identity, now time.Time) error {
	expires := now.Add(samlUsedIDTTL)
	if until := ident.ValidUntil.Add(time.Second); until.After(expires) {
		expires = until
	}
	for _, id := range []string{
		"saml-assertion:" + samlIDKey(ident.Issuer, ident.AssertionID),
		"saml-request:" + samlIDKey("", ident.RequestID),
	} {
		unused, err := tx.UseID(ctx, id, expires, now)
		if err != nil {
			return err
		}
		if !unused {
			return samlRefused(nil, "the identity provider's answer was not accepted: %s", saml.ReasonReplay)
		}
	}
	return nil
}

// samlIDKey is a fixed-length key for an id chosen by the identity
// provider, which may be long.
func samlIDKey(scope, id string) string {
	sum := sha256.Sum256([]byte(scope + "\x00" + id))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// samlUser finds the user with e-mail address email or, if settings allow,
// creates one; it returns the events of the creation.
func samlUser(ctx context.Context, tx store.Tx, set samlSettings, email, name string) (store.User, []store.Event, error) {
	u, err := userByEmail(ctx, tx, email)
	if err == nil && u.AccountType == store.AccountService {
		return u, nil, samlRefused(nil, "%s is a service account, which cannot sign in", email)
	}
	if err == nil || !apierr.Is(err, apierr.NotFound) {
		return u, nil, err
	}
	if !set.AutoCreate {
		return u, nil, samlRefused(nil, "there is no user with the e-mail address %s, and automatic creation (autoCreate) is off; ask an admin to create the user", email)
	}
	domains, _ := parseEmailDomains(set.EmailDomains)
	domain := strings.ToLower(email[strings.LastIndexByte(email, '@')+1:])
	allowed := false
	for _, d := range domains {
		allowed = allowed || d == domain
	}
	if !allowed {
		return u, nil, samlRefused(nil, "there is no user with the e-mail address %s, and its domain %s is not one whose users are created automatically (emailDomains)", email, domain)
	}
	if err := checkEmail(email); err != nil {
		return u, nil, samlRefused(err, "the e-mail address %q cannot be used for a new user", email)
	}
	role, ok := samlRootRoles[set.DefaultRootRole]
	if !ok {
		role = store.RoleViewer
	}
	if r := []rune(name); len(r) > 255 {
		name = string(r[:255])
	}
	u, err = tx.CreateUser(ctx, store.User{Email: email, Name: name, RootRole: role})
	if apierr.Is(err, apierr.NameExists) {
		return u, nil, samlRefused(err, "the e-mail address %s is the username of another user, so no user can be created with it; ask an admin", email)
	}
	if err != nil {
		return u, nil, err
	}
	data := struct {
		UserJSON
		SendEmail bool `json:"sendEmail"`
	}{userResponse(u), false}
	return u, []store.Event{{Type: "user-created", CreatedBy: samlActor, CreatedByUserID: u.ID, Data: eventData(data)}}, nil
}

// userByEmail finds the user, not deleted, whose e-mail address is email
// (ignoring case); a user whose username merely equals it does not count.
func userByEmail(ctx context.Context, rd store.Reader, email string) (store.User, error) {
	u, err := rd.GetUserByLogin(ctx, email)
	if err == nil && strings.EqualFold(u.Email, email) {
		return u, nil
	}
	if err != nil && !apierr.Is(err, apierr.NotFound) {
		return u, err
	}
	users, err := rd.ListUsers(ctx, store.UserFilter{})
	if err != nil {
		return store.User{}, err
	}
	for _, u := range users {
		if strings.EqualFold(u.Email, email) {
			return u, nil
		}
	}
	return store.User{}, apierr.New(apierr.NotFound, "no user has the e-mail address %s", email)
}

// syncSSOGroups makes u's memberships of groups with SSO mappings follow
// idpGroups, the groups the identity provider sent: u joins each such
// group whose mappings name one of idpGroups (exactly) and leaves each
// whose mappings name none. It returns one event per membership added or
// removed. Groups without mappings are the admins' and are left alone.
func syncSSOGroups(ctx context.Context, tx store.Tx, u store.User, idpGroups []string) ([]store.Event, error) {
	sent := map[string]bool{}
	for _, g := range idpGroups {
		sent[g] = true
	}
	groups, err := tx.ListGroups(ctx)
	if err != nil {
		return nil, err
	}
	current, err := tx.ListUserGroups(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	member := map[int]bool{}
	for _, g := range current {
		member[g.ID] = true
	}
	var events []store.Event
	event := func(typ string, g store.Group) {
		events = append(events, store.Event{Type: typ, CreatedBy: samlActor, CreatedByUserID: u.ID,
			Data: eventData(groupMemberEvent{GroupID: g.ID, UserID: u.ID})})
	}
	for _, g := range groups {
		if !hasMappings(g.MappingsSSO) {
			continue
		}
		switch want := mapsAny(g.MappingsSSO, sent); {
		case want && !member[g.ID]:
			err := tx.AddGroupMember(ctx, store.GroupMember{GroupID: g.ID, UserID: u.ID, CreatedBy: samlActor})
			if apierr.Is(err, apierr.NameExists) {
				continue
			}
			if err != nil {
				return nil, err
			}
			event("group-user-added", g)
		case !want && member[g.ID]:
			err := tx.RemoveGroupMember(ctx, g.ID, u.ID)
			if apierr.Is(err, apierr.NotFound) {
				continue
			}
			if err != nil {
				return nil, err
			}
			event("group-user-removed", g)
		}
	}
	return events, nil
}

// hasMappings reports whether mappings name any SSO group.
func hasMappings(mappings []string) bool {
	for _, m := range mappings {
		if strings.TrimSpace(m) != "" {
			return true
		}
	}
	return false
}

func mapsAny(mappings []string, sent map[string]bool) bool {
	for _, m := range mappings {
		if sent[strings.TrimSpace(m)] {
			return true
		}
	}
	return false
}
