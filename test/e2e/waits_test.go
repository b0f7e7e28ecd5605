package e2e

import "time"

// readyDataset uploads csv to the project and waits until the dataset is profiled.
func (a *api) readyDataset(projectID, name string, csv []byte) string {
	a.t.Helper()
	return a.client().ReadyDataset(projectID, name, csv, time.Minute)
}

// runEnded waits until the run at runPath has ended and returns its status.
func (a *api) runEnded(runPath string, timeout time.Duration) map[string]any {
	a.t.Helper()
	return a.client().RunEnded(runPath, timeout)
}
