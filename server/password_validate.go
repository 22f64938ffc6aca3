package server

// Password rules check without signing in (POST
// /auth/reset/validate-password): the password reset and invite pages
// ask whether a new password would be accepted before sending it. Same
// check as the signed-in POST /api/admin/user-admin/validate-password.

func registerPasswordValidate(s *Server, m mux) {
	m.public("POST /auth/reset/validate-password", s.handleValidatePassword)
}
