package apiserver

// registerRoutes adds every operation. Each resource registers its own in its file.
func (s *Server) registerRoutes() {
	s.registerDocs()
	s.registerProjects()
	s.registerCampaigns()
	s.registerDatasets()
	s.registerRuns()
	s.registerClaims()
	s.registerLedger()
	s.registerWebhooks()
	s.registerAPIKeys()
	s.registerOAuth()
}
