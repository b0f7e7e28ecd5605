package e2e

import "time"

// readyDataset uploads csv to the project and waits until the dataset is profiled.
func (a *api) readyDataset(projectID, name string, csv []byte) string {
	a.t.Helper()
	did := a.upload(projectID, name, csv)["id"].(string)
	eventually(a.t, time.Minute, "dataset ready", func() bool {
		_, out := a.do("GET", "/projects/"+projectID+"/datasets/"+did, nil)
		return out["status"] == "ready"
	})
	return did
}

// runEnded waits until the run at runPath has completed or failed and returns its status.
func (a *api) runEnded(runPath string, timeout time.Duration) map[string]any {
	a.t.Helper()
	var status map[string]any
	eventually(a.t, timeout, "run finished", func() bool {
		_, status = a.do("GET", runPath+"/status", nil)
		return status["status"] == "completed" || status["status"] == "failed"
	})
	return status
}
