package admission

import (
	"encoding/json"
	"net/http"

	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// patched answers a mutating request with the JSON patch that turns the request's object
// into obj.
func patched(req admission.Request, obj any) admission.Response {
	raw, err := json.Marshal(obj)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	return admission.PatchResponseFromRaw(req.Object.Raw, raw)
}

// undecodable answers a mutating webhook whose object does not decode into its Go type, such
// as a YAML `targetVariables: [y]` that YAML 1.1 reads as a boolean. Kubernetes runs schema
// validation after mutating admission, and it names the field and the expected type, so the
// mutating webhook lets the object through unchanged rather than answer with a decoder's
// message; the validating webhooks decode the same object and refuse whatever the schema
// lets pass ("Admission control phases", kubernetes.io/docs/reference/access-authn-authz/
// extensible-admission-controllers).
func undecodable() admission.Response {
	return admission.Allowed("schema validation reports the object")
}
