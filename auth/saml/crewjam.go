package saml

import (
	"bytes"
	"compress/flate"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/beevik/etree"
	crewjam "github.com/crewjam/saml"
)

// This file is the only one that knows github.com/crewjam/saml. Its clock
// is the library's (crewjam.TimeNow, real time), shared by the process.

// rsaSHA256 is the XML-DSig identifier of RSA with SHA-256, with which
// authentication requests are signed.
const rsaSHA256 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"

// New returns a ServiceProvider for cfg built on crewjam/saml's
// ServiceProvider (not its samlsp middleware: sessions stay the server's).
func New(cfg Config) (ServiceProvider, error) {
	if cfg.Key == nil || cfg.Certificate == nil {
		return nil, errors.New("saml: the service provider needs a key and a certificate")
	}
	meta, err := absoluteURL("metadata URL", cfg.MetadataURL)
	if err != nil {
		return nil, err
	}
	acs, err := absoluteURL("assertion consumer service URL", cfg.ACSURL)
	if err != nil {
		return nil, err
	}
	sp := &crewjam.ServiceProvider{
		EntityID:          cfg.EntityID,
		Key:               cfg.Key,
		Certificate:       cfg.Certificate,
		MetadataURL:       *meta,
		AcsURL:            *acs,
		AuthnNameIDFormat: crewjam.UnspecifiedNameIDFormat,
		SignatureMethod:   rsaSHA256,
		IDPMetadata:       idpMetadata(cfg.IDP),
	}
	return &crewjamSP{sp: sp, idp: cfg.IDP}, nil
}

func absoluteURL(what, s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return nil, fmt.Errorf("saml: the %s %q is not an absolute URL", what, s)
	}
	return u, nil
}

// idpMetadata describes the identity provider as its own metadata would:
// entity id, sign-on service and signing certificates.
func idpMetadata(idp IdentityProvider) *crewjam.EntityDescriptor {
	var keys []crewjam.KeyDescriptor
	for _, c := range idp.Certificates {
		keys = append(keys, crewjam.KeyDescriptor{
			Use: "signing",
			KeyInfo: crewjam.KeyInfo{X509Data: crewjam.X509Data{
				X509Certificates: []crewjam.X509Certificate{{Data: base64.StdEncoding.EncodeToString(c.Raw)}},
			}},
		})
	}
	return &crewjam.EntityDescriptor{
		EntityID: idp.EntityID,
		IDPSSODescriptors: []crewjam.IDPSSODescriptor{{
			SSODescriptor: crewjam.SSODescriptor{RoleDescriptor: crewjam.RoleDescriptor{
				ProtocolSupportEnumeration: "urn:oasis:names:tc:SAML:2.0:protocol",
				KeyDescriptors:             keys,
			}},
			SingleSignOnServices: []crewjam.Endpoint{{Binding: crewjam.HTTPRedirectBinding, Location: idp.SignOnURL}},
		}},
	}
}

type crewjamSP struct {
	sp  *crewjam.ServiceProvider
	idp IdentityProvider
}

func (c *crewjamSP) Metadata() ([]byte, error) {
	ed := c.sp.Metadata()
	// Only the HTTP-POST binding is served: the artifact binding would
	// need back-channel calls to the identity provider.
	for i := range ed.SPSSODescriptors {
		d := &ed.SPSSODescriptors[i]
		var acs []crewjam.IndexedEndpoint
		for _, e := range d.AssertionConsumerServices {
			if e.Binding == crewjam.HTTPPostBinding {
				acs = append(acs, e)
			}
		}
		d.AssertionConsumerServices = acs
	}
	b, err := xml.MarshalIndent(ed, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), b...), nil
}

func (c *crewjamSP) AuthnRequest(relayState string) (Request, error) {
	if c.idp.SignOnURL == "" {
		return Request{}, errors.New("saml: the identity provider has no sign-on URL")
	}
	req, err := c.sp.MakeAuthenticationRequest(c.idp.SignOnURL, crewjam.HTTPRedirectBinding, crewjam.HTTPPostBinding)
	if err != nil {
		return Request{}, err
	}
	u, err := c.redirect(req, relayState)
	if err != nil {
		return Request{}, err
	}
	return Request{ID: req.ID, URL: u}, nil
}

// redirect encodes req for the HTTP-Redirect binding (SAML bindings
// §3.4.4.1): deflated, base64, and signed over exactly
// SAMLRequest=…&RelayState=…&SigAlg=…. The library's own Redirect also
// signs any query the sign-on URL already has (as Google's idpid=…), which
// identity providers do not.
func (c *crewjamSP) redirect(req *crewjam.AuthnRequest, relayState string) (string, error) {
	doc := etree.NewDocument()
	doc.SetRoot(req.Element())
	var buf bytes.Buffer
	fw, err := flate.NewWriter(&buf, flate.BestCompression)
	if err != nil {
		return "", err
	}
	if _, err := doc.WriteTo(fw); err != nil {
		return "", err
	}
	if err := fw.Close(); err != nil {
		return "", err
	}
	signed := "SAMLRequest=" + url.QueryEscape(base64.StdEncoding.EncodeToString(buf.Bytes()))
	if relayState != "" {
		signed += "&RelayState=" + url.QueryEscape(relayState)
	}
	signed += "&SigAlg=" + url.QueryEscape(rsaSHA256)
	sum := sha256.Sum256([]byte(signed))
	sig, err := rsa.SignPKCS1v15(rand.Reader, c.sp.Key.(*rsa.PrivateKey), crypto.SHA256, sum[:])
	if err != nil {
		return "", err
	}
	u, err := url.Parse(req.Destination)
	if err != nil {
		return "", err
	}
	if u.RawQuery != "" {
		u.RawQuery += "&"
	}
	u.RawQuery += signed + "&Signature=" + url.QueryEscape(base64.StdEncoding.EncodeToString(sig))
	return u.String(), nil
}

func (c *crewjamSP) ParseResponse(samlResponse string, requestIDs []string) (*Identity, error) {
	raw, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(samlResponse), ""))
	if err == nil && len(raw) == 0 {
		err = errors.New("no SAMLResponse")
	}
	if err != nil {
		return nil, &ResponseError{Reason: ReasonMalformed, Err: err}
	}
	if len(c.idp.Certificates) == 0 || c.idp.EntityID == "" {
		return nil, &ResponseError{Reason: ReasonInvalid, Err: errors.New("no identity provider is configured")}
	}
	a, err := c.sp.ParseXMLResponse(raw, requestIDs, c.sp.AcsURL)
	if err != nil {
		cause := err
		var ire *crewjam.InvalidResponseError
		if errors.As(err, &ire) && ire.PrivateErr != nil {
			cause = ire.PrivateErr
		}
		return nil, &ResponseError{Reason: reasonFor(cause), Err: cause}
	}
	id := identityOf(a)
	if id.RequestID == "" {
		// The library checked the response's InResponseTo; an assertion
		// without subject confirmation does not repeat it.
		doc := etree.NewDocument()
		if doc.ReadFromBytes(raw) == nil && doc.Root() != nil {
			id.RequestID = doc.Root().SelectAttrValue("InResponseTo", "")
		}
	}
	if id.AssertionID == "" || id.RequestID == "" {
		return nil, &ResponseError{Reason: ReasonMalformed, Err: errors.New("the assertion has no ID or answers no request (InResponseTo)")}
	}
	return id, nil
}

// validUntil is the last instant at which the library accepts assertion
// a: it refuses assertions issued more than MaxIssueDelay ago and those
// past a NotOnOrAfter by more than MaxClockSkew.
func validUntil(a *crewjam.Assertion) time.Time {
	until := a.IssueInstant.Add(crewjam.MaxIssueDelay)
	earlier := func(t time.Time) {
		if !t.IsZero() && t.Add(crewjam.MaxClockSkew).Before(until) {
			until = t.Add(crewjam.MaxClockSkew)
		}
	}
	if a.Conditions != nil {
		earlier(a.Conditions.NotOnOrAfter)
	}
	if a.Subject != nil {
		for _, sc := range a.Subject.SubjectConfirmations {
			if sc.SubjectConfirmationData != nil {
				earlier(sc.SubjectConfirmationData.NotOnOrAfter)
			}
		}
	}
	return until
}

// reasonFor sorts the library's (unexported, textual) validation errors
// into the reasons of this package.
func reasonFor(err error) string {
	var status crewjam.ErrBadStatus
	if errors.As(err, &status) {
		return ReasonStatus + " (status " + status.Status + ")"
	}
	msg := strings.ToLower(err.Error())
	has := func(words ...string) bool {
		for _, w := range words {
			if strings.Contains(msg, w) {
				return true
			}
		}
		return false
	}
	switch {
	case has("not valid at this time"):
		return ReasonSignature + " (the certificate is not valid at this time)"
	case has("signature", "certificate", "cert "):
		return ReasonSignature
	case has("decrypt"):
		return "it cannot be decrypted with this service provider's key"
	case has("inresponseto", "request id"):
		return ReasonRequest
	case has("expired", "not yet valid"):
		return ReasonExpired
	case has("audience"):
		return ReasonAudience
	case has("issuer"):
		return ReasonIssuer
	case has("destination", "recipient"):
		return ReasonDestination
	case has("xml", "unmarshal", "no root", "base64"):
		return ReasonMalformed
	}
	return ReasonInvalid
}

func identityOf(a *crewjam.Assertion) *Identity {
	id := &Identity{Issuer: a.Issuer.Value, AssertionID: a.ID, ValidUntil: validUntil(a)}
	if a.Subject != nil {
		for _, sc := range a.Subject.SubjectConfirmations {
			if d := sc.SubjectConfirmationData; d != nil && d.InResponseTo != "" {
				id.RequestID = d.InResponseTo
				break
			}
		}
	}
	if a.Subject != nil && a.Subject.NameID != nil {
		id.NameID = strings.TrimSpace(a.Subject.NameID.Value)
		id.NameIDFormat = a.Subject.NameID.Format
	}
	for _, st := range a.AuthnStatements {
		if st.SessionIndex != "" {
			id.SessionIndex = st.SessionIndex
			break
		}
	}
	for _, st := range a.AttributeStatements {
		for _, at := range st.Attributes {
			attr := Attribute{Name: at.Name, FriendlyName: at.FriendlyName}
			for _, v := range at.Values {
				attr.Values = append(attr.Values, v.Value)
			}
			id.Attributes = append(id.Attributes, attr)
		}
	}
	return id
}
