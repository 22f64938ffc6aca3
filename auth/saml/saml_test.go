package saml_test

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/signalbox/signalbox/auth/saml"
	"github.com/signalbox/signalbox/auth/saml/samltest"
)

const (
	spMetadata = "https://flags.example/auth/saml/metadata"
	spACS      = "https://flags.example/auth/saml/callback"
)

func newKeyPair(t *testing.T) saml.KeyPair {
	t.Helper()
	kp, err := saml.NewKeyPair("test", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return kp
}

// newSP makes a service provider trusting idp, and registers it there.
func newSP(t *testing.T, idp *samltest.IDP, change func(*saml.Config)) saml.ServiceProvider {
	t.Helper()
	key, cert, err := newKeyPair(t).Parse()
	if err != nil {
		t.Fatal(err)
	}
	cfg := saml.Config{
		MetadataURL: spMetadata, ACSURL: spACS, Key: key, Certificate: cert,
		IDP: saml.IdentityProvider{EntityID: idp.EntityID, SignOnURL: idp.SignOnURL, Certificates: []*x509.Certificate{idp.Certificate()}},
	}
	if change != nil {
		change(&cfg)
	}
	sp, err := saml.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	md, err := sp.Metadata()
	if err != nil {
		t.Fatal(err)
	}
	if err := idp.Trust(md); err != nil {
		t.Fatal(err)
	}
	return sp
}

// signIn runs one sign-in: request, answer, validation with the request's
// id (or ids when given).
func signIn(t *testing.T, sp saml.ServiceProvider, idp *samltest.IDP, ids ...string) (*saml.Identity, error) {
	t.Helper()
	req, err := sp.AuthnRequest("state-1")
	if err != nil {
		t.Fatal(err)
	}
	ans, err := idp.Answer(req.URL)
	if err != nil {
		t.Fatal(err)
	}
	if ans.Action != spACS || ans.Form.Get("RelayState") != "state-1" {
		t.Errorf("answer posts to %q with relay state %q", ans.Action, ans.Form.Get("RelayState"))
	}
	if ids == nil {
		ids = []string{req.ID}
	}
	return sp.ParseResponse(ans.Form.Get("SAMLResponse"), ids)
}

func TestSignInRoundTrip(t *testing.T) {
	idp := samltest.New(t)
	sp := newSP(t, idp, nil)
	idp.SignIn(samltest.User{NameID: "ada@example.com", Email: "ada@example.com", Name: "Ada Lovelace", Groups: []string{"eng", "ops"}})
	id, err := signIn(t, sp, idp)
	if err != nil {
		t.Fatalf("ParseResponse: %v", err)
	}
	if id.Email() != "ada@example.com" || id.Name() != "Ada Lovelace" || !slices.Equal(id.Groups(), []string{"eng", "ops"}) {
		t.Errorf("identity: email %q name %q groups %v", id.Email(), id.Name(), id.Groups())
	}
	if id.NameIDFormat != saml.EmailNameIDFormat || id.SessionIndex == "" {
		t.Errorf("identity: %+v", id)
	}
	// What the server needs to refuse a replay: the ids, and how long the
	// answer would be accepted.
	if id.Issuer != idp.EntityID || id.AssertionID == "" || len(idp.Requests()) != 1 || id.RequestID != idp.Requests()[0] {
		t.Errorf("ids: issuer %q assertion %q request %q (requests %v)", id.Issuer, id.AssertionID, id.RequestID, idp.Requests())
	}
	if now := time.Now(); id.ValidUntil.Before(now) || id.ValidUntil.After(now.Add(10*time.Minute)) {
		t.Errorf("valid until %v", id.ValidUntil)
	}
	again, err := signIn(t, sp, idp)
	if err != nil {
		t.Fatal(err)
	}
	if again.AssertionID == id.AssertionID || again.RequestID == id.RequestID {
		t.Errorf("two sign-ins share ids: %+v %+v", id, again)
	}
}

func TestAuthnRequestIsSigned(t *testing.T) {
	idp := samltest.New(t)
	key, cert, err := newKeyPair(t).Parse()
	if err != nil {
		t.Fatal(err)
	}
	sp, err := saml.New(saml.Config{MetadataURL: spMetadata, ACSURL: spACS, Key: key, Certificate: cert,
		IDP: saml.IdentityProvider{EntityID: idp.EntityID, SignOnURL: idp.SignOnURL + "?tenant=1", Certificates: []*x509.Certificate{idp.Certificate()}}})
	if err != nil {
		t.Fatal(err)
	}
	req, err := sp.AuthnRequest("a b&c")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(req.URL, idp.SignOnURL+"?tenant=1&SAMLRequest=") || !strings.HasPrefix(req.ID, "id-") {
		t.Fatalf("request %+v", req)
	}
	u, _ := url.Parse(req.URL)
	q := u.Query()
	if q.Get("RelayState") != "a b&c" || q.Get("SigAlg") != "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256" {
		t.Errorf("query %v", q)
	}
	// The signature covers SAMLRequest, RelayState and SigAlg, as sent,
	// and not the sign-on URL's own query.
	rest, ok := strings.CutPrefix(u.RawQuery, "tenant=1&")
	signed, sig, ok2 := strings.Cut(rest, "&Signature=")
	if !ok || !ok2 || !strings.HasPrefix(signed, "SAMLRequest=") || !strings.Contains(signed, "&RelayState=a+b%26c&SigAlg=") {
		t.Fatalf("query %s", u.RawQuery)
	}
	sigB64, err := url.QueryUnescape(sig)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := base64.StdEncoding.DecodeString(sigB64)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(signed))
	if err := rsa.VerifyPKCS1v15(&key.PublicKey, crypto.SHA256, sum[:], raw); err != nil {
		t.Errorf("signature does not verify with the SP key: %v", err)
	}
}

func TestMetadata(t *testing.T) {
	idp := samltest.New(t)
	sp := newSP(t, idp, nil)
	md, err := sp.Metadata()
	if err != nil {
		t.Fatal(err)
	}
	s := string(md)
	for _, want := range []string{`entityID="` + spMetadata + `"`, `Location="` + spACS + `"`, `urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST`, `use="signing"`, `AuthnRequestsSigned="true"`} {
		if !strings.Contains(s, want) {
			t.Errorf("metadata lacks %s:\n%s", want, s)
		}
	}
	if strings.Contains(s, "HTTP-Artifact") {
		t.Error("metadata offers the artifact binding, which is not served")
	}
	// Metadata alone needs no identity provider.
	key, cert, _ := newKeyPair(t).Parse()
	bare, err := saml.New(saml.Config{EntityID: "urn:sp", MetadataURL: spMetadata, ACSURL: spACS, Key: key, Certificate: cert})
	if err != nil {
		t.Fatal(err)
	}
	if md, err := bare.Metadata(); err != nil || !strings.Contains(string(md), `entityID="urn:sp"`) {
		t.Errorf("metadata without IdP: %v\n%s", err, md)
	}
	if _, err := bare.AuthnRequest(""); err == nil {
		t.Error("AuthnRequest without a sign-on URL succeeded")
	}
	if _, err := bare.ParseResponse(base64.StdEncoding.EncodeToString([]byte("<x/>")), []string{"id"}); err == nil {
		t.Error("ParseResponse without an IdP succeeded")
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	key, cert, _ := newKeyPair(t).Parse()
	for name, cfg := range map[string]saml.Config{
		"no key":          {MetadataURL: spMetadata, ACSURL: spACS, Certificate: cert},
		"relative URL":    {MetadataURL: "/auth/saml/metadata", ACSURL: spACS, Key: key, Certificate: cert},
		"no ACS":          {MetadataURL: spMetadata, Key: key, Certificate: cert},
		"no certificate":  {MetadataURL: spMetadata, ACSURL: spACS, Key: key},
		"host-less (bad)": {MetadataURL: "https:///x", ACSURL: spACS, Key: key, Certificate: cert},
	} {
		if _, err := saml.New(cfg); err == nil {
			t.Errorf("%s: New succeeded", name)
		}
	}
}

// reason returns the ResponseError reason of err, failing without one.
func reason(t *testing.T, err error) string {
	t.Helper()
	var re *saml.ResponseError
	if !errors.As(err, &re) {
		t.Fatalf("error %v is not a *ResponseError", err)
	}
	if re.Err == nil || !strings.Contains(re.Error(), re.Reason) {
		t.Errorf("ResponseError %q lacks its cause", re.Error())
	}
	return re.Reason
}

func TestResponsesRefused(t *testing.T) {
	user := samltest.User{NameID: "ada@example.com", Email: "ada@example.com"}
	t.Run("wrong certificate", func(t *testing.T) {
		idp := samltest.New(t)
		other := samltest.New(t)
		sp := newSP(t, idp, func(c *saml.Config) { c.IDP.Certificates = []*x509.Certificate{other.Certificate()} })
		idp.SignIn(user)
		_, err := signIn(t, sp, idp)
		if r := reason(t, err); r != saml.ReasonSignature {
			t.Errorf("reason %q", r)
		}
	})
	t.Run("expired", func(t *testing.T) {
		idp := samltest.New(t)
		sp := newSP(t, idp, nil)
		idp.SignIn(user)
		idp.ShiftTime(-10 * time.Minute)
		_, err := signIn(t, sp, idp)
		if r := reason(t, err); r != saml.ReasonExpired {
			t.Errorf("reason %q", r)
		}
	})
	t.Run("not yet valid", func(t *testing.T) {
		idp := samltest.New(t)
		sp := newSP(t, idp, nil)
		idp.SignIn(user)
		idp.ShiftTime(10 * time.Minute)
		_, err := signIn(t, sp, idp)
		if r := reason(t, err); r != saml.ReasonExpired {
			t.Errorf("reason %q", r)
		}
	})
	t.Run("audience", func(t *testing.T) {
		idp := samltest.New(t)
		sp := newSP(t, idp, nil)
		idp.SignIn(user)
		idp.SetAudience("https://other.example/metadata")
		_, err := signIn(t, sp, idp)
		if r := reason(t, err); r != saml.ReasonAudience {
			t.Errorf("reason %q", r)
		}
	})
	t.Run("issuer", func(t *testing.T) {
		idp := samltest.New(t)
		sp := newSP(t, idp, func(c *saml.Config) { c.IDP.EntityID = "urn:another-idp" })
		idp.SignIn(user)
		_, err := signIn(t, sp, idp)
		if r := reason(t, err); r != saml.ReasonIssuer {
			t.Errorf("reason %q", r)
		}
	})
	t.Run("unsolicited", func(t *testing.T) {
		idp := samltest.New(t)
		sp := newSP(t, idp, nil)
		idp.SignIn(user)
		for _, ids := range [][]string{{"id-other"}, {}} {
			_, err := signIn(t, sp, idp, ids...)
			if r := reason(t, err); r != saml.ReasonRequest {
				t.Errorf("ids %v: reason %q", ids, r)
			}
		}
	})
	t.Run("malformed", func(t *testing.T) {
		idp := samltest.New(t)
		sp := newSP(t, idp, nil)
		for _, resp := range []string{"", "!!not base64!!", base64.StdEncoding.EncodeToString([]byte("<unclosed"))} {
			_, err := sp.ParseResponse(resp, []string{"id-1"})
			if r := reason(t, err); r != saml.ReasonMalformed {
				t.Errorf("%q: reason %q", resp, r)
			}
		}
	})
}

func TestParseCertificates(t *testing.T) {
	a, b := newKeyPair(t), newKeyPair(t)
	block, _ := pem.Decode([]byte(a.Certificate))
	bare := base64.StdEncoding.EncodeToString(block.Bytes)
	wrapped := ""
	for i := 0; i < len(bare); i += 64 {
		wrapped += bare[i:min(i+64, len(bare))] + "\n"
	}
	for name, tt := range map[string]struct {
		in    string
		n     int
		error string
	}{
		"pem":          {in: a.Certificate, n: 1},
		"pem chain":    {in: a.Certificate + "\n" + b.Certificate, n: 2},
		"bare base64":  {in: bare, n: 1},
		"wrapped":      {in: "  " + wrapped, n: 1},
		"empty":        {in: "  ", error: "no certificate"},
		"private key":  {in: a.Certificate + a.Key, error: "private key"},
		"only key":     {in: a.Key, error: "private key"},
		"not base64":   {in: "MIIC%%%", error: "neither PEM nor base64"},
		"not a cert":   {in: base64.StdEncoding.EncodeToString([]byte("hello")), error: "not a valid X.509"},
		"pem trailing": {in: a.Certificate + "junk", error: "not valid PEM"},
		"pem type":     {in: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n", error: "PUBLIC KEY"},
	} {
		certs, err := saml.ParseCertificates(tt.in)
		switch {
		case tt.error != "" && (err == nil || !strings.Contains(err.Error(), tt.error)):
			t.Errorf("%s: error %v, want one containing %q", name, err, tt.error)
		case tt.error == "" && (err != nil || len(certs) != tt.n):
			t.Errorf("%s: %d certificates, %v", name, len(certs), err)
		}
	}
}

func TestKeyPair(t *testing.T) {
	a, b := newKeyPair(t), newKeyPair(t)
	key, cert, err := a.Parse()
	if err != nil || key == nil || cert.Subject.CommonName != "test" || !cert.NotAfter.After(time.Now().AddDate(9, 0, 0)) {
		t.Fatalf("Parse: %v %v", err, cert)
	}
	if _, _, err := (saml.KeyPair{Key: a.Key, Certificate: b.Certificate}).Parse(); err == nil {
		t.Error("a certificate of another key was accepted")
	}
	if _, _, err := (saml.KeyPair{Key: "x", Certificate: a.Certificate}).Parse(); err == nil {
		t.Error("a key that is not PEM was accepted")
	}
}

func TestIdentity(t *testing.T) {
	for _, tt := range []struct {
		id          saml.Identity
		email, name string
		groups      []string
	}{
		{id: saml.Identity{NameID: "ada@example.com", NameIDFormat: saml.EmailNameIDFormat}, email: "ada@example.com"},
		{id: saml.Identity{NameID: "u-123", Attributes: []saml.Attribute{{Name: "urn:oid:0.9.2342.19200300.100.1.3", FriendlyName: "mail", Values: []string{"not-an-address", "ada@example.com"}}}}, email: "ada@example.com"},
		{id: saml.Identity{NameID: "ada@example.com", Attributes: []saml.Attribute{{Name: "EMAIL", Values: []string{"other@example.com"}}}}, email: "other@example.com"},
		{id: saml.Identity{NameID: "u-123"}, email: ""},
		{id: saml.Identity{NameID: "Ada <ada@example.com>"}, email: ""},
		{id: saml.Identity{Attributes: []saml.Attribute{{Name: "givenName", Values: []string{"Ada"}}, {Name: "sn", Values: []string{"Lovelace"}}}}, name: "Ada Lovelace"},
		{id: saml.Identity{Attributes: []saml.Attribute{{Name: "x", FriendlyName: "displayName", Values: []string{" Ada "}}}}, name: "Ada"},
		{id: saml.Identity{Attributes: []saml.Attribute{
			{Name: "http://schemas.microsoft.com/ws/2008/06/identity/claims/groups", Values: []string{"a", "b"}},
			{Name: "groups", Values: []string{"b", "", "c"}},
			{Name: "roles", Values: []string{"admin"}},
		}}, groups: []string{"a", "b", "c"}},
	} {
		if got := tt.id.Email(); got != tt.email {
			t.Errorf("%+v: Email %q, want %q", tt.id, got, tt.email)
		}
		if got := tt.id.Name(); got != tt.name {
			t.Errorf("%+v: Name %q, want %q", tt.id, got, tt.name)
		}
		if got := tt.id.Groups(); !slices.Equal(got, tt.groups) {
			t.Errorf("%+v: Groups %v, want %v", tt.id, got, tt.groups)
		}
	}
}
