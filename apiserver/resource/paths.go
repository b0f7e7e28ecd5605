package resource

// Path parameters shared by the rooms whose resources live under a project or campaign.

// ProjectPath names a project.
type ProjectPath struct {
	ProjectID string `path:"project_id" maxLength:"64" doc:"Project id (proj_ prefix)."`
}

// CampaignPath names a campaign of a project.
type CampaignPath struct {
	ProjectPath
	CampaignID string `path:"campaign_id" maxLength:"64" doc:"Campaign id (camp_ prefix)."`
}
