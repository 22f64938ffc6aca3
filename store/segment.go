package store

import (
	"context"
	"time"

	"github.com/signalbox/signalbox/clientapi"
)

// Segment is a named, reusable list of constraints.
type Segment struct {
	// ID is assigned by CreateSegment unless given: a copied segment keeps
	// the id SDK payloads know it by.
	ID          int
	Name        string
	Description string
	// Project limits the segment to one project; empty means every project.
	Project     string
	Constraints []clientapi.Constraint
	CreatedAt   time.Time
	CreatedBy   string
}

// SegmentFilter selects segments. Zero fields do not filter.
type SegmentFilter struct {
	// Project selects segments usable in this project: its own and the
	// global ones.
	Project string
}

// SegmentReader reads segments.
type SegmentReader interface {
	// GetSegment returns NotFound if there is no segment id.
	GetSegment(ctx context.Context, id int) (Segment, error)
	// ListSegments returns matching segments ordered by id.
	ListSegments(ctx context.Context, f SegmentFilter) ([]Segment, error)
}

// SegmentWriter changes segments.
type SegmentWriter interface {
	// CreateSegment stores s and returns it with its new ID (s.ID when not
	// zero); a zero CreatedAt is set to now. NameExists if the name or the
	// given id is taken; NotFound if the project does not exist.
	CreateSegment(ctx context.Context, s Segment) (Segment, error)
	// UpdateSegment replaces name, description, project and constraints.
	// NotFound if absent; NameExists if the new name is taken.
	UpdateSegment(ctx context.Context, s Segment) (Segment, error)
	// DeleteSegment returns NotFound if absent and BadData while strategies
	// still use it.
	DeleteSegment(ctx context.Context, id int) error
}

// LegalValue is one allowed value of a context field. The JSON names are
// Unleash's.
type LegalValue struct {
	Value       string `json:"value"`
	Description string `json:"description,omitempty"`
}

// ContextField is a field of the evaluation context that constraints and
// stickiness can refer to.
type ContextField struct {
	Name        string
	Description string
	LegalValues []LegalValue
	// Stickiness allows the field as a stickiness choice.
	Stickiness bool
	SortOrder  int
	// Project is the project the field belongs to; "" for a global field.
	// Names are unique across global and project fields alike.
	Project   string
	CreatedAt time.Time
}

// ContextFieldReader reads context fields.
type ContextFieldReader interface {
	// GetContextField returns NotFound if there is no such field.
	GetContextField(ctx context.Context, name string) (ContextField, error)
	// ListContextFields returns all fields by sort order, then name.
	ListContextFields(ctx context.Context) ([]ContextField, error)
}

// ContextFieldWriter changes context fields.
type ContextFieldWriter interface {
	// CreateContextField stores c; a zero CreatedAt is set to now.
	// NameExists if the name is taken (by a global or a project field);
	// NotFound if c.Project names no project.
	CreateContextField(ctx context.Context, c ContextField) (ContextField, error)
	// UpdateContextField replaces description, legal values, stickiness and
	// sort order; the project a field belongs to never changes. NotFound if
	// absent.
	UpdateContextField(ctx context.Context, c ContextField) (ContextField, error)
	// DeleteContextField returns NotFound if absent.
	DeleteContextField(ctx context.Context, name string) error
}
