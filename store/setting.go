package store

// SettingReader reads instance settings such as the SAML configuration.
type SettingReader interface{}

// SettingWriter changes instance settings.
type SettingWriter interface{}
