// Package saml is the service-provider side of SAML 2.0 single sign-on:
// the provider's metadata, authentication requests (HTTP-Redirect binding)
// and the validation of the identity provider's answers (HTTP-POST
// binding).
//
// The server depends only on the ServiceProvider interface and the plain
// types of this file. New implements the interface with
// github.com/crewjam/saml (in crewjam.go, the only file that imports it),
// so that the library can be replaced without touching the server.
package saml

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net/mail"
	"strings"
	"time"
)

// ServiceProvider is what a SAML service provider does for the server. An
// implementation is built from a Config and is safe for concurrent use.
type ServiceProvider interface {
	// Metadata returns the provider's SAML metadata document (XML), which
	// identity providers import to trust it.
	Metadata() ([]byte, error)
	// AuthnRequest makes an authentication request for the identity
	// provider's sign-on URL. The browser is to be redirected to
	// Request.URL; Request.ID is the id the answer must refer to
	// (InResponseTo). relayState, if not empty, must be URL-safe: it is
	// sent as is and comes back with the answer.
	AuthnRequest(relayState string) (Request, error)
	// ParseResponse validates samlResponse, the base64 SAMLResponse form
	// value posted to the assertion consumer service: the identity
	// provider's signature (with its configured certificates), the issuer,
	// the destination and recipient, the audience, the validity period,
	// and that it answers one of requestIDs. It returns the identity the
	// assertion vouches for. A response that is not accepted gives a
	// *ResponseError.
	ParseResponse(samlResponse string, requestIDs []string) (*Identity, error)
}

// Config is everything a ServiceProvider needs.
type Config struct {
	// EntityID is the service provider's entity id, which assertions must
	// name as their audience. Empty means MetadataURL.
	EntityID string
	// MetadataURL and ACSURL are the absolute URLs at which the server
	// serves the metadata and receives assertions.
	MetadataURL string
	ACSURL      string
	// Key signs authentication requests and decrypts encrypted assertions;
	// Certificate is its public half, published in the metadata.
	Key         *rsa.PrivateKey
	Certificate *x509.Certificate
	// IDP is the identity provider. It may be zero for Metadata alone.
	IDP IdentityProvider
}

// IdentityProvider describes the identity provider the service provider
// trusts.
type IdentityProvider struct {
	// EntityID is the identity provider's entity id (its issuer).
	EntityID string
	// SignOnURL is its single sign-on service (HTTP-Redirect binding).
	SignOnURL string
	// Certificates verify its signatures; any of them may have signed.
	Certificates []*x509.Certificate
}

// Request is an authentication request ready to be sent.
type Request struct {
	// ID is the request's id, to be kept until the answer comes back.
	ID string
	// URL is where to redirect the browser.
	URL string
}

// Attribute is one attribute of an assertion.
type Attribute struct {
	Name         string
	FriendlyName string
	Values       []string
}

// Identity is what a validated assertion says about the signed-in person.
type Identity struct {
	NameID       string
	NameIDFormat string
	SessionIndex string
	Attributes   []Attribute

	// Issuer is the identity provider's entity id, AssertionID the id of
	// the assertion and RequestID the id of the authentication request it
	// answers (InResponseTo). The library checks one answer at a time: to
	// refuse a replayed answer, the server must remember these ids until
	// ValidUntil, when ParseResponse would refuse the answer anyway.
	Issuer      string
	AssertionID string
	RequestID   string
	ValidUntil  time.Time
}

// Attribute names the identity provider may use, compared ignoring case
// with both the Name and the FriendlyName of each attribute.
var (
	EmailAttributes = []string{
		"email", "mail", "emailAddress", "e-mail",
		"http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress",
		"urn:oid:0.9.2342.19200300.100.1.3",
	}
	NameAttributes = []string{
		"displayName", "name", "cn", "fullName",
		"http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name",
		"urn:oid:2.16.840.1.113730.3.1.241", "urn:oid:2.5.4.3",
	}
	GroupAttributes = []string{
		"groups", "group", "memberOf", "isMemberOf",
		"http://schemas.microsoft.com/ws/2008/06/identity/claims/groups",
		"http://schemas.xmlsoap.org/claims/Group",
		"urn:oid:1.3.6.1.4.1.5923.1.5.1.1",
	}
)

// EmailNameIDFormat is the NameID format of an e-mail address.
const EmailNameIDFormat = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress"

// Values returns the values of every attribute whose Name or FriendlyName
// is one of names (ignoring case), in the order of the assertion, without
// empty values and duplicates.
func (id *Identity) Values(names ...string) []string {
	var out []string
	seen := map[string]bool{}
	for _, a := range id.Attributes {
		if !matchesAny(a, names) {
			continue
		}
		for _, v := range a.Values {
			if v = strings.TrimSpace(v); v != "" && !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	return out
}

func matchesAny(a Attribute, names []string) bool {
	for _, n := range names {
		if strings.EqualFold(a.Name, n) || (a.FriendlyName != "" && strings.EqualFold(a.FriendlyName, n)) {
			return true
		}
	}
	return false
}

// Email is the person's e-mail address: the NameID when its format is
// emailAddress, else the first address among the e-mail attributes, else
// the NameID if it is an address. Empty when there is none.
func (id *Identity) Email() string {
	nameID := strings.TrimSpace(id.NameID)
	if id.NameIDFormat == EmailNameIDFormat && isAddress(nameID) {
		return nameID
	}
	for _, v := range id.Values(EmailAttributes...) {
		if isAddress(v) {
			return v
		}
	}
	if isAddress(nameID) {
		return nameID
	}
	return ""
}

// Name is the person's display name, empty when the assertion has none.
func (id *Identity) Name() string {
	if v := id.Values(NameAttributes...); len(v) > 0 {
		return v[0]
	}
	given := id.Values("givenName", "firstName", "urn:oid:2.5.4.42")
	sur := id.Values("sn", "surname", "lastName", "urn:oid:2.5.4.4")
	if len(given) > 0 && len(sur) > 0 {
		return given[0] + " " + sur[0]
	}
	return ""
}

// Groups are the values of the group attributes.
func (id *Identity) Groups() []string { return id.Values(GroupAttributes...) }

func isAddress(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && strings.Count(s, "@") == 1
}

// ResponseError is a response that was not accepted. Reason says why in
// words safe to show to the person signing in; Err has the details, for
// the logs.
type ResponseError struct {
	Reason string
	Err    error
}

func (e *ResponseError) Error() string {
	if e.Err != nil {
		return "saml: response not accepted: " + e.Reason + ": " + e.Err.Error()
	}
	return "saml: response not accepted: " + e.Reason
}

func (e *ResponseError) Unwrap() error { return e.Err }

// Reasons a response is not accepted.
const (
	ReasonMalformed   = "it is not a well-formed SAML response"
	ReasonSignature   = "its signature does not verify with the configured identity provider certificate"
	ReasonExpired     = "it is outside its validity period (expired, or not yet valid)"
	ReasonAudience    = "it is meant for another service provider (audience)"
	ReasonIssuer      = "it comes from another identity provider (issuer)"
	ReasonDestination = "it was addressed to another URL (destination or recipient)"
	ReasonRequest     = "it does not answer a sign-in started in this browser (InResponseTo); start again"
	ReasonStatus      = "the identity provider did not sign the person in"
	ReasonReplay      = "it was used already (a SAML answer signs in once); start again"
	ReasonInvalid     = "it is not valid"
)

// ParseCertificates reads X.509 certificates given either as PEM (one or
// more CERTIFICATE blocks) or as bare base64 DER, as identity providers
// show them; white space is ignored. Private keys are refused, so that
// they are never stored where certificates belong.
func ParseCertificates(s string) ([]*x509.Certificate, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("no certificate given")
	}
	if strings.Contains(s, "-----BEGIN") {
		var certs []*x509.Certificate
		rest := []byte(s)
		for {
			var block *pem.Block
			block, rest = pem.Decode(rest)
			if block == nil {
				break
			}
			if strings.Contains(block.Type, "PRIVATE KEY") {
				return nil, errors.New("it contains a private key; give only the certificate")
			}
			if block.Type != "CERTIFICATE" {
				return nil, fmt.Errorf("it contains a PEM block of type %q; want CERTIFICATE", block.Type)
			}
			c, err := x509.ParseCertificate(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("it is not a valid X.509 certificate: %v", err)
			}
			certs = append(certs, c)
		}
		if len(certs) == 0 || strings.TrimSpace(string(rest)) != "" {
			return nil, errors.New("it is not valid PEM")
		}
		return certs, nil
	}
	der, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		return nil, errors.New("it is neither PEM nor base64")
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("it is not a valid X.509 certificate: %v", err)
	}
	return []*x509.Certificate{c}, nil
}

// KeyPair is a service provider's private key and self-signed certificate,
// PEM encoded.
type KeyPair struct {
	Key         string `json:"key"`
	Certificate string `json:"certificate"`
}

// NewKeyPair generates an RSA key and a self-signed certificate for it,
// valid from now for ten years.
func NewKeyPair(commonName string, now time.Time) (KeyPair, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return KeyPair{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return KeyPair{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.AddDate(10, 0, 0),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return KeyPair{}, err
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return KeyPair{}, err
	}
	return KeyPair{
		Key:         string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8})),
		Certificate: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
	}, nil
}

// Parse decodes the key pair and checks that the certificate belongs to
// the key.
func (kp KeyPair) Parse() (*rsa.PrivateKey, *x509.Certificate, error) {
	block, _ := pem.Decode([]byte(kp.Key))
	if block == nil {
		return nil, nil, errors.New("saml: the service provider key is not PEM")
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, nil, fmt.Errorf("saml: the service provider key: %w", err)
	}
	key, ok := k.(*rsa.PrivateKey)
	if !ok {
		return nil, nil, fmt.Errorf("saml: the service provider key is a %T, want RSA", k)
	}
	certs, err := ParseCertificates(kp.Certificate)
	if err != nil {
		return nil, nil, fmt.Errorf("saml: the service provider certificate: %w", err)
	}
	pub, ok := certs[0].PublicKey.(interface{ Equal(crypto.PublicKey) bool })
	if !ok || !pub.Equal(key.Public()) {
		return nil, nil, errors.New("saml: the service provider certificate does not belong to its key")
	}
	return key, certs[0], nil
}
