// Package apierr is the one error type the server and proxy show to callers.
// Its kinds are named after Unleash's error names so that the JSON body
// matches what existing tooling expects, and each kind maps to exactly one
// HTTP status, here and nowhere else.
package apierr

import (
	"errors"
	"fmt"
	"net/http"
)

// Kind names a class of error. The string is the "name" field of the body.
type Kind string

// The kinds callers can see.
const (
	Validation             Kind = "ValidationError"
	BadData                Kind = "BadDataError"
	BadRequest             Kind = "BadRequestError"
	PasswordMismatch       Kind = "PasswordMismatch"
	AuthenticationRequired Kind = "AuthenticationRequired"
	InvalidToken           Kind = "InvalidTokenError"
	NoAccess               Kind = "NoAccessError"
	OperationDenied        Kind = "OperationDeniedError"
	NotFound               Kind = "NotFoundError"
	MethodNotAllowed       Kind = "NotImplementedError"
	NameExists             Kind = "NameExistsError"
	Conflict               Kind = "ConflictError"
	ContentType            Kind = "ContentTypeError"
	PayloadTooLarge        Kind = "PayloadTooLargeError"
	TooManyRequests        Kind = "TooManyRequestsError"
	Disabled               Kind = "DisabledError"
	NotReady               Kind = "NotReadyError"
	// DatabaseUnavailable: the database does not answer; the answer
	// carries Retry-After.
	DatabaseUnavailable Kind = "DatabaseUnavailableError"
	// InsufficientStorage: the database refused a write for lack of disk
	// space.
	InsufficientStorage Kind = "InsufficientStorageError"
	Internal            Kind = "InternalError"
)

var statuses = map[Kind]int{
	Validation:             http.StatusBadRequest,
	BadData:                http.StatusBadRequest,
	BadRequest:             http.StatusBadRequest,
	PasswordMismatch:       http.StatusUnauthorized,
	AuthenticationRequired: http.StatusUnauthorized,
	InvalidToken:           http.StatusUnauthorized,
	NoAccess:               http.StatusForbidden,
	OperationDenied:        http.StatusForbidden,
	NotFound:               http.StatusNotFound,
	MethodNotAllowed:       http.StatusMethodNotAllowed,
	NameExists:             http.StatusConflict,
	Conflict:               http.StatusConflict,
	ContentType:            http.StatusUnsupportedMediaType,
	PayloadTooLarge:        http.StatusRequestEntityTooLarge,
	TooManyRequests:        http.StatusTooManyRequests,
	Disabled:               http.StatusUnprocessableEntity,
	NotReady:               http.StatusServiceUnavailable,
	DatabaseUnavailable:    http.StatusServiceUnavailable,
	InsufficientStorage:    http.StatusInsufficientStorage,
	Internal:               http.StatusInternalServerError,
}

// Status is the HTTP status of a kind; unknown kinds are 500.
func (k Kind) Status() int {
	if s, ok := statuses[k]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// Detail is one field-level problem of a ValidationError.
type Detail struct {
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
	// Keyword names the JSON-schema rule broken ("type", "required"), for
	// the evaluation proxy, whose answers spell validation problems as the
	// reference proxy does; the admin API's body leaves it out.
	Keyword string `json:"-"`
}

// Error is an application error that is safe to show to API callers.
type Error struct {
	Kind    Kind
	Message string
	Details []Detail
	// Err is the cause; it is logged, never sent.
	Err error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return string(e.Kind) + ": " + e.Message + ": " + e.Err.Error()
	}
	return string(e.Kind) + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// New returns an error of kind k with a formatted message.
func New(k Kind, format string, args ...any) *Error {
	return &Error{Kind: k, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an error of kind k that keeps cause for the logs.
func Wrap(k Kind, cause error, format string, args ...any) *Error {
	return &Error{Kind: k, Message: fmt.Sprintf(format, args...), Err: cause}
}

// Invalid returns a ValidationError about one property.
func Invalid(path, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	return &Error{Kind: Validation, Message: msg, Details: []Detail{{Path: path, Message: msg}}}
}

// KindOf returns the kind of err, Internal for anything that is not an *Error.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return Internal
}

// Is reports whether err is an *Error of kind k.
func Is(err error, k Kind) bool { return err != nil && KindOf(err) == k }
