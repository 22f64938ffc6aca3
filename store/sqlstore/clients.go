package sqlstore

import (
	"context"
	"fmt"
	"sort"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

const clientAppCols = `app_name, description, url, color, icon, strategies, created_at, seen_at`

func scanClientApp(r scanner) (store.ClientApplication, error) {
	var a store.ClientApplication
	err := r.Scan(&a.AppName, &a.Description, &a.URL, &a.Color, &a.Icon, jsonCol{&a.Strategies},
		timeCol{&a.CreatedAt}, nullTimeCol{&a.SeenAt})
	a.Strategies = nonNil(a.Strategies)
	return a, err
}

func clientAppSubject(name string) string { return fmt.Sprintf("client application %q", name) }

func (t *tx) GetClientApplication(ctx context.Context, appName string) (store.ClientApplication, error) {
	a, err := scanClientApp(t.queryRow(ctx, `SELECT `+clientAppCols+` FROM client_applications WHERE app_name = ?`, appName))
	return a, adapt(err, clientAppSubject(appName), nil)
}

func (t *tx) ListClientApplications(ctx context.Context) ([]store.ClientApplication, error) {
	rows, err := t.query(ctx, `SELECT `+clientAppCols+` FROM client_applications ORDER BY app_name`)
	return collect(rows, err, scanClientApp)
}

func (t *tx) RegisterClientApplication(ctx context.Context, a store.ClientApplication) (bool, error) {
	now := t.now()
	seen := now
	if a.SeenAt != nil {
		seen = *a.SeenAt
	}
	strategies := mustJSON(nonNil(a.Strategies))
	var created bool
	err := t.guard(ctx, func() error {
		// Writers are serialised, so checking first cannot race; it tells
		// the caller whether to record application-created.
		var n int
		if err := t.queryRow(ctx, `SELECT COUNT(*) FROM client_applications WHERE app_name = ?`, a.AppName).Scan(&n); err != nil {
			return adapt(err, clientAppSubject(a.AppName), nil)
		}
		if n == 0 {
			created = true
			if a.CreatedAt.IsZero() {
				a.CreatedAt = now
			}
			_, err := t.exec(ctx, `INSERT INTO client_applications (`+clientAppCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
				a.AppName, a.Description, a.URL, a.Color, a.Icon, strategies, timeArg(a.CreatedAt), timeArg(seen))
			return adapt(err, clientAppSubject(a.AppName), nil)
		}
		// What an administrator typed in wins over what SDKs send.
		_, err := t.exec(ctx, `UPDATE client_applications SET strategies = ?, seen_at = ?,
			description = CASE WHEN description = '' THEN ? ELSE description END,
			url = CASE WHEN url = '' THEN ? ELSE url END,
			color = CASE WHEN color = '' THEN ? ELSE color END,
			icon = CASE WHEN icon = '' THEN ? ELSE icon END
			WHERE app_name = ?`,
			strategies, timeArg(seen), a.Description, a.URL, a.Color, a.Icon, a.AppName)
		return adapt(err, clientAppSubject(a.AppName), nil)
	})
	return created, err
}

func (t *tx) UpdateClientApplication(ctx context.Context, a store.ClientApplication) (store.ClientApplication, error) {
	err := t.write(ctx, func() error {
		// An application an administrator edited is theirs: retention no
		// longer deletes it when its SDKs are gone.
		res, err := t.exec(ctx, `UPDATE client_applications SET description = ?, url = ?, color = ?, icon = ?, created_by_sdk = FALSE
			WHERE app_name = ?`,
			a.Description, a.URL, a.Color, a.Icon, a.AppName)
		return affected(res, err, clientAppSubject(a.AppName), nil)
	})
	if err != nil {
		return store.ClientApplication{}, err
	}
	return t.GetClientApplication(ctx, a.AppName)
}

func (t *tx) DeleteClientApplication(ctx context.Context, appName string) error {
	return t.write(ctx, func() error {
		res, err := t.exec(ctx, `DELETE FROM client_applications WHERE app_name = ?`, appName)
		return affected(res, err, clientAppSubject(appName), nil)
	})
}

const clientInstanceCols = `app_name, instance_id, environment, sdk_version, client_ip, started, interval_ms, created_at, last_seen`

func scanClientInstance(r scanner) (store.ClientInstance, error) {
	var in store.ClientInstance
	err := r.Scan(&in.AppName, &in.InstanceID, &in.Environment, &in.SDKVersion, &in.ClientIP,
		nullTimeCol{&in.Started}, &in.IntervalMillis, timeCol{&in.CreatedAt}, timeCol{&in.LastSeen})
	return in, err
}

func (t *tx) ListClientInstances(ctx context.Context, appName string) ([]store.ClientInstance, error) {
	q, args := `SELECT `+clientInstanceCols+` FROM client_instances`, []any{}
	if appName != "" {
		q, args = q+` WHERE app_name = ?`, append(args, appName)
	}
	rows, err := t.query(ctx, q+` ORDER BY last_seen DESC, app_name, instance_id, environment`, args...)
	return collect(rows, err, scanClientInstance)
}

func (t *tx) UpsertClientInstance(ctx context.Context, in store.ClientInstance) error {
	now := t.now()
	if in.LastSeen.IsZero() {
		in.LastSeen = now
	}
	if in.CreatedAt.IsZero() {
		in.CreatedAt = now
	}
	return t.guard(ctx, func() error {
		_, err := t.exec(ctx, `INSERT INTO client_instances (`+clientInstanceCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (app_name, instance_id, environment) DO UPDATE SET sdk_version = excluded.sdk_version,
				client_ip = excluded.client_ip, started = excluded.started, interval_ms = excluded.interval_ms,
				last_seen = excluded.last_seen`,
			in.AppName, in.InstanceID, in.Environment, in.SDKVersion, in.ClientIP, timePtrArg(in.Started),
			in.IntervalMillis, timeArg(in.CreatedAt), timeArg(in.LastSeen))
		return adapt(err, fmt.Sprintf("instance %q of %s", in.InstanceID, clientAppSubject(in.AppName)),
			apierr.New(apierr.NotFound, "%s is not registered", clientAppSubject(in.AppName)))
	})
}

func (t *tx) RecordClientRegistrations(ctx context.Context, apps []store.ClientApplication, instances []store.ClientInstance) error {
	now := t.now()
	appRows := make(map[string][]any, len(apps))
	for _, a := range apps {
		seen := now
		if a.SeenAt != nil {
			seen = *a.SeenAt
		}
		if a.CreatedAt.IsZero() {
			a.CreatedAt = now
		}
		appRows[a.AppName] = []any{a.AppName, a.Description, a.URL, a.Color, a.Icon, mustJSON(nonNil(a.Strategies)),
			timeArg(a.CreatedAt), timeArg(seen), true}
	}
	type instanceKey struct{ app, id, env string }
	instanceRows := make(map[instanceKey][]any, len(instances))
	for _, in := range instances {
		if in.LastSeen.IsZero() {
			in.LastSeen = now
		}
		if in.CreatedAt.IsZero() {
			in.CreatedAt = now
		}
		instanceRows[instanceKey{in.AppName, in.InstanceID, in.Environment}] = []any{in.AppName, in.InstanceID, in.Environment,
			in.SDKVersion, in.ClientIP, timePtrArg(in.Started), in.IntervalMillis, timeArg(in.CreatedAt), timeArg(in.LastSeen)}
	}
	// Rows in key order, so that concurrent writers lock them in one order.
	names := make([]string, 0, len(appRows))
	for name := range appRows {
		names = append(names, name)
	}
	sort.Strings(names)
	rows := make([][]any, 0, len(names))
	for _, name := range names {
		rows = append(rows, appRows[name])
	}
	keys := make([]instanceKey, 0, len(instanceRows))
	for k := range instanceRows {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.app != b.app {
			return a.app < b.app
		}
		if a.id != b.id {
			return a.id < b.id
		}
		return a.env < b.env
	})
	irows := make([][]any, 0, len(keys))
	for _, k := range keys {
		irows = append(irows, instanceRows[k])
	}
	return t.guard(ctx, func() error {
		// What an administrator typed in wins over what SDKs send.
		err := t.insertRows(ctx, `client_applications (`+clientAppCols+`, created_by_sdk)`,
			`ON CONFLICT (app_name) DO UPDATE SET strategies = excluded.strategies, seen_at = excluded.seen_at,
				description = CASE WHEN client_applications.description = '' THEN excluded.description ELSE client_applications.description END,
				url = CASE WHEN client_applications.url = '' THEN excluded.url ELSE client_applications.url END,
				color = CASE WHEN client_applications.color = '' THEN excluded.color ELSE client_applications.color END,
				icon = CASE WHEN client_applications.icon = '' THEN excluded.icon ELSE client_applications.icon END`, rows)
		if err != nil {
			return adapt(err, "client applications", nil)
		}
		err = t.insertRows(ctx, `client_instances (`+clientInstanceCols+`)`,
			`ON CONFLICT (app_name, instance_id, environment) DO UPDATE SET sdk_version = excluded.sdk_version,
				client_ip = excluded.client_ip, started = excluded.started, interval_ms = excluded.interval_ms,
				last_seen = excluded.last_seen`, irows)
		return adapt(err, "client instances", apierr.New(apierr.NotFound, "a client instance names an application that is not registered"))
	})
}
