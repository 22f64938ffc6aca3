package store

import "context"

// Tag is a typed label; on features and in audit events.
type Tag struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

// TagType is a kind of tag, such as simple.
type TagType struct {
	Name        string
	Description string
	Icon        string
}

// FeatureTag is a tag on a feature.
type FeatureTag struct {
	Feature string
	Tag
}

// TagReader reads tag types and feature tags.
type TagReader interface {
	// GetTagType returns NotFound if there is no such type.
	GetTagType(ctx context.Context, name string) (TagType, error)
	// ListTagTypes returns all tag types by name.
	ListTagTypes(ctx context.Context) ([]TagType, error)
	// ListFeatureTags returns the tags of feature ordered by type and value;
	// feature empty lists the tags of all features. NotFound if a named
	// feature does not exist.
	ListFeatureTags(ctx context.Context, feature string) ([]FeatureTag, error)
	// ListTags returns the distinct tags in use, optionally of one type,
	// ordered by type and value.
	ListTags(ctx context.Context, tagType string) ([]Tag, error)
}

// TagWriter changes tag types and feature tags.
type TagWriter interface {
	// CreateTagType returns NameExists if the name is taken.
	CreateTagType(ctx context.Context, t TagType) (TagType, error)
	// UpdateTagType replaces description and icon. NotFound if absent.
	UpdateTagType(ctx context.Context, t TagType) (TagType, error)
	// DeleteTagType deletes a type and every feature tag of that type.
	// NotFound if absent.
	DeleteTagType(ctx context.Context, name string) error
	// CreateFeatureTag tags a feature. It is idempotent: created is false
	// when the tag was already there. NotFound if the feature or tag type
	// does not exist.
	CreateFeatureTag(ctx context.Context, ft FeatureTag) (created bool, err error)
	// DeleteFeatureTag returns NotFound if the feature does not carry it.
	DeleteFeatureTag(ctx context.Context, ft FeatureTag) error
}

// Dependency makes Child depend on Parent: Child is on only when Parent is
// on (Enabled) or off (!Enabled) and, if Variants is not empty, Parent's
// variant is one of them.
type Dependency struct {
	Child    string
	Parent   string
	Enabled  bool
	Variants []string
}

// DependencyReader reads feature dependencies.
type DependencyReader interface {
	// ListDependencies returns the parents of child ordered by parent name;
	// child empty lists every dependency ordered by child, then parent.
	ListDependencies(ctx context.Context, child string) ([]Dependency, error)
	// ListChildren returns the names of features that depend on parent,
	// sorted.
	ListChildren(ctx context.Context, parent string) ([]string, error)
}

// DependencyWriter changes feature dependencies.
type DependencyWriter interface {
	// CreateDependency returns NotFound if either feature does not exist,
	// NameExists if child already depends on parent and BadData if they are
	// the same feature.
	CreateDependency(ctx context.Context, d Dependency) error
	// UpdateDependency replaces Enabled and Variants. NotFound if absent.
	UpdateDependency(ctx context.Context, d Dependency) error
	// DeleteDependency returns NotFound if child does not depend on parent.
	DeleteDependency(ctx context.Context, child, parent string) error
	// DeleteDependencies removes every parent of child; none is no error.
	DeleteDependencies(ctx context.Context, child string) error
}
