package apiserver

import "testing"

// TestRunValidationThroughEngine: submissions are refused by the engine's own
// data-independent checks, against the dataset's profiled variables.
func TestRunValidationThroughEngine(t *testing.T) {
	key := env.adminA
	pid := mustProject(t, key, nil)
	cid := mustCampaign(t, key, pid, nil, nil)
	did := readyDataset(t, key, pid) // variables t, x, y
	base := "/v1/projects/" + pid + "/campaigns/" + cid + "/runs"
	for _, tc := range []struct {
		params, gov map[string]any
		status      int
		code, field string
	}{
		{params: map[string]any{"neural_backbone": "transformer"}, status: 422, code: "parameter_invalid", field: "parameters.neural_backbone"},
		{params: map[string]any{"symbolic_prior": "alchemy"}, status: 422, code: "parameter_invalid", field: "parameters.symbolic_prior"},
		{params: map[string]any{"target_variables": []string{"z"}}, status: 422, code: "parameter_invalid", field: "parameters.target_variables"},
		{params: map[string]any{"constraints": []string{"operators:+,frobnicate"}}, status: 422, code: "constraint_invalid", field: "parameters.constraints"},
		{params: map[string]any{"constraints": []string{"exclude:nope"}}, status: 422, code: "constraint_invalid", field: "parameters.constraints"},
		{params: map[string]any{"constraints": []string{"time:t", "time:x"}}, status: 422, code: "constraint_invalid", field: "parameters.constraints"},
		{gov: map[string]any{"negative_controls": []string{"time_shift"}}, status: 422, code: "parameter_invalid", field: "governance.negative_controls"},
		{gov: map[string]any{"negative_controls": []string{"astrology"}}, status: 400, code: "validation_error"},
	} {
		body := map[string]any{"mode": "symbolic", "dataset_id": did}
		if tc.params != nil {
			body["parameters"] = tc.params
		}
		if tc.gov != nil {
			body["governance"] = tc.gov
		}
		r := call(t, "POST", base, key, body).expect(t, tc.status, tc.code)
		if tc.field != "" && r.errDetails()["field"] != tc.field {
			t.Errorf("%v %v: details %s", tc.params, tc.gov, r.Raw)
		}
	}
	// Accepted: constraints naming the dataset's columns, a time column for time_shift.
	call(t, "POST", base, key, map[string]any{"mode": "neural", "dataset_id": did,
		"parameters": map[string]any{"target_variables": []string{"y"}, "constraints": []string{"time:t", "include:x"}, "neural_backbone": "mlp-2x16"},
		"governance": map[string]any{"negative_controls": []string{"time_shift", "shuffled_target"}}}).expect(t, 201)
}
