// Package samltest is a SAML 2.0 identity provider for tests, on loopback.
// It signs in whoever the test says (no login form) and answers
// authentication requests (HTTP-Redirect binding) with signed, and for
// service providers that publish an encryption key, encrypted assertions.
// It is crewjam/saml's IdentityProvider with knobs to spoil the answer.
package samltest

import (
	"bytes"
	"crypto/rsa"
	"crypto/x509"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"html/template"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"sync"
	"testing"
	"time"

	crewjam "github.com/crewjam/saml"

	"github.com/signalbox/signalbox/auth/saml"
)

// User is the person the identity provider signs in.
type User struct {
	NameID string
	// NameIDFormat defaults to the e-mail address format.
	NameIDFormat string
	Email        string
	Name         string
	// Groups are sent in an attribute named "groups".
	Groups []string
}

// IDP is a running identity provider.
type IDP struct {
	// EntityID is its entity id (issuer), SignOnURL its single sign-on
	// service.
	EntityID  string
	SignOnURL string
	// KeyPair signs its assertions; CertificatePEM is the certificate to
	// configure in service providers.
	KeyPair        saml.KeyPair
	CertificatePEM string

	idp *crewjam.IdentityProvider

	mu        sync.Mutex
	sps       map[string]*crewjam.EntityDescriptor
	user      User
	shift     time.Duration
	audience  string
	requested []string
}

// New starts an identity provider for t; it stops when t ends.
func New(t testing.TB) *IDP {
	t.Helper()
	kp, err := saml.NewKeyPair("samltest identity provider", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	key, cert, err := kp.Parse()
	if err != nil {
		t.Fatal(err)
	}
	p := &IDP{KeyPair: kp, CertificatePEM: kp.Certificate, sps: map[string]*crewjam.EntityDescriptor{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metadata", func(w http.ResponseWriter, r *http.Request) { p.idp.ServeMetadata(w, r) })
	mux.HandleFunc("/sso", func(w http.ResponseWriter, r *http.Request) {
		// The answer form is a page a browser shows; without the type it
		// would sniff it as text.
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		p.idp.ServeSSO(w, r)
	})
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	metadataURL, _ := url.Parse(hs.URL + "/metadata")
	ssoURL, _ := url.Parse(hs.URL + "/sso")
	p.idp = &crewjam.IdentityProvider{
		Key:                     key,
		Certificate:             cert,
		Logger:                  testLogger{t},
		MetadataURL:             *metadataURL,
		SSOURL:                  *ssoURL,
		ServiceProviderProvider: p,
		SessionProvider:         p,
		AssertionMaker:          p,
		SignatureMethod:         "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256",
		ResponseFormTemplate:    formTemplate,
	}
	p.EntityID = p.idp.MetadataURL.String()
	p.SignOnURL = p.idp.SSOURL.String()
	return p
}

// Certificate returns the parsed signing certificate.
func (p *IDP) Certificate() *x509.Certificate { return p.idp.Certificate }

// Key returns the signing key.
func (p *IDP) Key() *rsa.PrivateKey { return p.idp.Key.(*rsa.PrivateKey) }

// Trust registers a service provider by its metadata document.
func (p *IDP) Trust(metadata []byte) error {
	var ed crewjam.EntityDescriptor
	if err := xml.Unmarshal(metadata, &ed); err != nil {
		return fmt.Errorf("samltest: service provider metadata: %w", err)
	}
	if ed.EntityID == "" || len(ed.SPSSODescriptors) == 0 {
		return errors.New("samltest: the metadata describes no service provider")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sps[ed.EntityID] = &ed
	return nil
}

// SignIn sets who the next answers sign in.
func (p *IDP) SignIn(u User) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.user = u
}

// ShiftTime moves every instant of the next answers by d: a negative d of
// a few minutes makes them expired.
func (p *IDP) ShiftTime(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.shift = d
}

// SetAudience makes the next answers name audience instead of the
// service provider's entity id; "" restores that.
func (p *IDP) SetAudience(audience string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.audience = audience
}

// Requests lists the ids of the authentication requests received.
func (p *IDP) Requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.requested...)
}

// GetServiceProvider implements crewjam.ServiceProviderProvider.
func (p *IDP) GetServiceProvider(_ *http.Request, id string) (*crewjam.EntityDescriptor, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ed, ok := p.sps[id]; ok {
		return ed, nil
	}
	return nil, os.ErrNotExist
}

// GetSession implements crewjam.SessionProvider: the user set by SignIn is
// always signed in.
func (p *IDP) GetSession(_ http.ResponseWriter, _ *http.Request, req *crewjam.IdpAuthnRequest) *crewjam.Session {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requested = append(p.requested, req.Request.ID)
	u := p.user
	format := u.NameIDFormat
	if format == "" {
		format = saml.EmailNameIDFormat
	}
	s := &crewjam.Session{
		ID: "session-1", CreateTime: time.Now(), ExpireTime: time.Now().Add(time.Hour), Index: "index-1",
		NameID: u.NameID, NameIDFormat: format, UserEmail: u.Email, UserCommonName: u.Name,
	}
	if len(u.Groups) > 0 {
		attr := crewjam.Attribute{Name: "groups", NameFormat: "urn:oasis:names:tc:SAML:2.0:attrname-format:basic"}
		for _, g := range u.Groups {
			attr.Values = append(attr.Values, crewjam.AttributeValue{Type: "xs:string", Value: g})
		}
		s.CustomAttributes = []crewjam.Attribute{attr}
	}
	return s
}

// MakeAssertion implements crewjam.AssertionMaker: the library's
// assertion, then the knobs. The assertion is signed afterwards, so the
// changes are covered by the signature.
func (p *IDP) MakeAssertion(req *crewjam.IdpAuthnRequest, s *crewjam.Session) error {
	if err := (crewjam.DefaultAssertionMaker{}).MakeAssertion(req, s); err != nil {
		return err
	}
	p.mu.Lock()
	shift, audience := p.shift, p.audience
	p.mu.Unlock()
	a := req.Assertion
	if shift != 0 {
		req.Now = req.Now.Add(shift)
		a.IssueInstant = a.IssueInstant.Add(shift)
		a.Conditions.NotBefore = a.Conditions.NotBefore.Add(shift)
		a.Conditions.NotOnOrAfter = a.Conditions.NotOnOrAfter.Add(shift)
		for i := range a.Subject.SubjectConfirmations {
			d := a.Subject.SubjectConfirmations[i].SubjectConfirmationData
			d.NotOnOrAfter = d.NotOnOrAfter.Add(shift)
		}
	}
	if audience != "" {
		a.Conditions.AudienceRestrictions = []crewjam.AudienceRestriction{{Audience: crewjam.Audience{Value: audience}}}
	}
	return nil
}

// Answer is the identity provider's answer to an authentication request:
// the form the browser would post to the service provider.
type Answer struct {
	// Action is the assertion consumer service URL.
	Action string
	// Form holds SAMLResponse and RelayState.
	Form url.Values
}

// Post sends the answer as the browser would, with client (its cookie
// jar carries the service provider's cookies), without following
// redirects.
func (a Answer) Post(client *http.Client) (*http.Response, error) {
	c := *client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c.PostForm(a.Action, a.Form)
}

// Answer follows redirectURL (the service provider's redirect to the
// sign-on service) and returns the identity provider's answer.
func (p *IDP) Answer(redirectURL string) (Answer, error) {
	res, err := http.Get(redirectURL)
	if err != nil {
		return Answer{}, err
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		return Answer{}, fmt.Errorf("samltest: the identity provider answered %d: %s", res.StatusCode, bytes.TrimSpace(body))
	}
	m := formRE.FindSubmatch(body)
	if m == nil {
		return Answer{}, fmt.Errorf("samltest: no response form in %q", body)
	}
	return Answer{
		Action: html.UnescapeString(string(m[1])),
		Form: url.Values{
			"SAMLResponse": {html.UnescapeString(string(m[2]))},
			"RelayState":   {html.UnescapeString(string(m[3]))},
		},
	}, nil
}

// formTemplate is a plain version of the library's auto-posting form,
// with a button instead of the script, so that a browser test posts it
// as a person would.
var formTemplate = template.Must(template.New("form").Parse(
	`<form method="post" action="{{.URL}}"><input name="SAMLResponse" value="{{.SAMLResponse}}"><input name="RelayState" value="{{.RelayState}}"><button type="submit">Continue</button></form>`))

var formRE = regexp.MustCompile(`action="([^"]*)"><input name="SAMLResponse" value="([^"]*)"><input name="RelayState" value="([^"]*)">`)

type testLogger struct{ t testing.TB }

func (l testLogger) Printf(format string, v ...any) { l.t.Logf("samltest IdP: "+format, v...) }
func (l testLogger) Print(v ...any)                 { l.t.Log(append([]any{"samltest IdP:"}, v...)...) }
func (l testLogger) Println(v ...any)               { l.Print(v...) }
func (l testLogger) Fatal(v ...any)                 { l.t.Fatal(v...) }
func (l testLogger) Fatalf(format string, v ...any) { l.t.Fatalf(format, v...) }
func (l testLogger) Fatalln(v ...any)               { l.t.Fatal(v...) }
func (l testLogger) Panic(v ...any)                 { panic(fmt.Sprint(v...)) }
func (l testLogger) Panicf(format string, v ...any) { panic(fmt.Sprintf(format, v...)) }
func (l testLogger) Panicln(v ...any)               { panic(fmt.Sprint(v...)) }
