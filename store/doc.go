// Package store declares the server's domain records and the persistence
// interface the admin and client APIs are written against. It holds no
// database code: store/sqlstore implements it for SQLite and PostgreSQL, and
// store/storetest is the contract suite every implementation must pass.
//
// # Transactions
//
// Every read runs inside Store.View and every write inside Store.Update. An
// admin change and the audit event that records it are written in the same
// Update, so the event log and the data never disagree. Update refuses to
// commit a transaction that changed admin data without appending an event
// (ErrUnaudited); this is also what makes Revision, the id of the newest
// event, change after every change that can affect what SDKs are served.
//
// # Errors
//
// Methods return *apierr.Error values for conditions a caller can act on:
// NotFound, NameExists and BadData, as each method's comment says. Any other
// error is internal (a broken connection, a cancelled context).
//
// # Values
//
// Lists in returned records are never nil, so that JSON encodes them as []
// and not null. Times are UTC with microsecond precision, the finest both
// databases keep. An empty string stands for SQL NULL in optional text
// fields such as Event.Project.
package store
