package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/signalbox/signalbox/store"
)

var _ store.Op = (*tx)(nil)

// operateAttempts bounds how often Operate runs its function when the
// database reports a deadlock between concurrent writers.
const operateAttempts = 3

// Operate implements store.Operator. It takes neither the process's writer
// slot nor the dialect's write lock: operational writes append no event, so
// they need no place in the order of events, and admin writes must not wait
// for a metrics flush. On SQLite the single write connection still
// serialises it with Updates; its functions keep their transactions short.
func (s *Store) Operate(ctx context.Context, fn func(store.Op) error) error {
	for attempt := 1; ; attempt++ {
		err := s.operateOnce(ctx, fn)
		if err == nil || attempt == operateAttempts || !writeConflict(err) || ctx.Err() != nil {
			return s.classified(err)
		}
	}
}

func (s *Store) operateOnce(ctx context.Context, fn func(store.Op) error) error {
	sqlTx, err := s.wdb.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlstore: begin operational write: %w", err)
	}
	done := false
	defer func() {
		if !done {
			sqlTx.Rollback()
		}
	}()
	t := &tx{d: s.d, tx: sqlTx}
	if err := fn(t); err != nil {
		return err
	}
	if t.dirty {
		return store.ErrUnaudited
	}
	done = true
	if err := sqlTx.Commit(); err != nil {
		return fmt.Errorf("sqlstore: commit: %w", err)
	}
	return nil
}

// bulkRows is how many rows one multi-row statement carries: with at most
// nine columns, well under both databases' limits on bound parameters.
const bulkRows = 500

// insertRows runs `INSERT INTO into VALUES (…), (…) tail` over rows,
// bulkRows at a time. The statement of a full chunk is prepared once and
// reused. Every row has the same number of values.
func (t *tx) insertRows(ctx context.Context, into, tail string, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	width := len(rows[0])
	one := "(" + strings.TrimSuffix(strings.Repeat("?, ", width), ", ") + ")"
	statement := func(n int) string {
		var b strings.Builder
		b.Grow(len(into) + len(tail) + n*(len(one)+2) + 32)
		b.WriteString("INSERT INTO ")
		b.WriteString(into)
		b.WriteString(" VALUES ")
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(one)
		}
		b.WriteString(" ")
		b.WriteString(tail)
		return t.d.rebind(b.String())
	}
	var full *sql.Stmt
	defer func() {
		if full != nil {
			full.Close()
		}
	}()
	args := make([]any, 0, width*min(len(rows), bulkRows))
	for len(rows) > 0 {
		n := min(len(rows), bulkRows)
		args = args[:0]
		for _, r := range rows[:n] {
			args = append(args, r...)
		}
		rows = rows[n:]
		var err error
		switch {
		case n < bulkRows:
			_, err = t.tx.ExecContext(ctx, statement(n), args...)
		case full == nil:
			if full, err = t.tx.PrepareContext(ctx, statement(n)); err == nil {
				_, err = full.ExecContext(ctx, args...)
			}
		default:
			_, err = full.ExecContext(ctx, args...)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
