package server

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// BootstrapConfig is what a server creates at start when it is missing.
type BootstrapConfig struct {
	// AdminTokens, ClientTokens and FrontendTokens are full token strings
	// (<project>:<environment>.<secret>) to accept from the first start on.
	AdminTokens, ClientTokens, FrontendTokens []string
	// AdminPassword is the initial password of the user "admin"; empty
	// generates one, returned by Bootstrap to be printed once.
	AdminPassword string
}

// Bootstrap creates the start-up tokens and the initial admin user when
// they do not exist yet. It returns the generated admin password, or ""
// when the user existed or a password was given. Each creation is audited.
func Bootstrap(ctx context.Context, st store.Store, cfg BootstrapConfig) (generated string, err error) {
	system := withPrincipal(ctx, &Principal{Token: &store.APIToken{TokenName: "signalbox-bootstrap"}})
	s := &Server{store: st}
	if err := checkAdminPassword(ctx, st, cfg.AdminPassword); err != nil {
		return "", err
	}
	kinds := []struct {
		kind   string
		tokens []string
	}{{store.TokenAdmin, cfg.AdminTokens}, {store.TokenClient, cfg.ClientTokens}, {store.TokenFrontend, cfg.FrontendTokens}}
	for _, k := range kinds {
		for _, raw := range k.tokens {
			raw = strings.TrimSpace(raw)
			if raw == "" {
				continue
			}
			t, err := tokenFromString(raw, k.kind)
			if err != nil {
				return "", err
			}
			err = s.change(system, func(tx store.Tx) ([]store.Event, error) {
				if _, err := tx.GetAPITokenByHash(ctx, t.SecretHash); err == nil {
					return nil, nil // already there
				}
				created, err := tx.CreateAPIToken(ctx, t)
				if err != nil {
					return nil, err
				}
				return []store.Event{{Type: "api-token-created", Data: eventData(tokenJSON(created, ""))}}, nil
			})
			if err != nil {
				return "", fmt.Errorf("creating start-up %s token %s: %w", k.kind, t.Prefix, err)
			}
		}
	}
	err = s.change(system, func(tx store.Tx) ([]store.Event, error) {
		if _, err := tx.GetUserByLogin(ctx, "admin"); err == nil {
			return nil, nil
		}
		password := cfg.AdminPassword
		if password == "" {
			password = GeneratePassword()
			generated = password
		}
		hash, err := HashPassword(password)
		if err != nil {
			return nil, err
		}
		u, err := tx.CreateUser(ctx, store.User{Name: "Admin", Username: "admin", PasswordHash: hash, RootRole: store.RoleAdmin})
		if err != nil {
			return nil, err
		}
		return []store.Event{{Type: "user-created", Data: eventData(userResponse(u))}}, nil
	})
	return generated, err
}

// checkAdminPassword applies the password rules to the initial admin
// password before anything is created, when it is going to be used (there
// is no admin yet): a weak one stops the start with a message that says
// which rule it breaks. Once the admin exists the setting is not read.
func checkAdminPassword(ctx context.Context, st store.Store, password string) error {
	if password == "" {
		return nil
	}
	err := st.View(ctx, func(rd store.Reader) error {
		_, err := rd.GetUserByLogin(ctx, "admin")
		return err
	})
	if err == nil {
		return nil
	}
	if !apierr.Is(err, apierr.NotFound) {
		return err
	}
	var weak *apierr.Error
	if err := CheckPassword(password); errors.As(err, &weak) {
		return fmt.Errorf("the initial admin password (ADMIN_PASSWORD) is not accepted: %s", weak.Message)
	}
	return nil
}

// tokenFromString turns a configured token string into a stored token.
func tokenFromString(raw, kind string) (store.APIToken, error) {
	project, env, ok := ParseToken(raw)
	if !ok {
		return store.APIToken{}, apierr.New(apierr.Validation, "token %q is not of the form <project>:<environment>.<secret>", redact(raw))
	}
	if kind == store.TokenAdmin && (project != "*" || env != "*") {
		return store.APIToken{}, apierr.New(apierr.Validation, "admin token %q must be of the form *:*.<secret>", redact(raw))
	}
	return store.APIToken{
		SecretHash: store.HashSecret(raw), Prefix: redact(raw), TokenName: "init-" + kind,
		Type: kind, Projects: []string{project}, Environment: env,
	}, nil
}

// redact keeps a token's scope and the first characters of its secret.
// Text without a scope is all secret: only its first characters are kept.
func redact(raw string) string {
	scope, secret, found := strings.Cut(raw, ".")
	if !found {
		scope, secret = "", raw
	}
	if len(secret) > 4 {
		secret = secret[:4]
	}
	if !found {
		return secret + "…"
	}
	return scope + "." + secret + "…"
}

// ResetPassword gives the user whose username or e-mail is login a new
// password and signs them out everywhere, audited like a password an admin
// sets. An empty password generates one, which is returned; a given one
// must satisfy the password rules. It is the way back in for an instance
// whose only admin lost their password, so it works on the store directly.
func ResetPassword(ctx context.Context, st store.Store, login, password string) (generated string, err error) {
	s := &Server{store: st}
	system := withPrincipal(ctx, &Principal{Token: &store.APIToken{TokenName: "signalbox-admin-reset-password"}})
	var u store.User
	err = st.View(ctx, func(r store.Reader) error {
		var err error
		u, err = r.GetUserByLogin(ctx, strings.TrimSpace(login))
		return err
	})
	if apierr.Is(err, apierr.NotFound) {
		return "", fmt.Errorf("there is no user with the username or e-mail %q", login)
	}
	if err != nil {
		return "", err
	}
	if password == "" {
		password = GeneratePassword()
		generated = password
	} else if err := checkNewPassword("password", password); err != nil {
		return "", err
	}
	if err := s.setPassword(system, u, password, ""); err != nil {
		return "", err
	}
	return generated, nil
}
