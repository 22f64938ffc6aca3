package server

// A project's own context fields (/api/admin/projects/{projectId}/context),
// Unleash's project context fields: the global context-field handlers
// serve these routes too, and the projectId in the path limits them to
// the fields that belong to the project. A project's Owner manages them
// (UPDATE_PROJECT_CONTEXT, as in Unleash); names stay unique across global
// and project fields, so a constraint's contextName names one field.

func registerProjectContextFields(s *Server, m mux) {
	const base = "/api/admin/projects/{projectId}/context"
	m.admin("GET "+base, PermRead, s.handleListContextFields)
	m.admin("POST "+base, PermUpdateProjectContext, s.handleCreateContextField)
	m.admin("POST "+base+"/validate", PermUpdateProjectContext, s.handleValidateContextField)
	m.admin("GET "+base+"/{contextField}", PermRead, s.handleGetContextField)
	m.admin("PUT "+base+"/{contextField}", PermUpdateProjectContext, s.handleUpdateContextField)
	m.admin("DELETE "+base+"/{contextField}", PermUpdateProjectContext, s.handleDeleteContextField)
	m.admin("GET "+base+"/{contextField}/strategies", PermRead, s.handleContextFieldStrategies)
	m.admin("POST "+base+"/{contextField}/legal-values", PermUpdateProjectContext, s.handlePutLegalValue)
	m.admin("DELETE "+base+"/{contextField}/legal-values/{legalValue}", PermUpdateProjectContext, s.handleDeleteLegalValue)
}
