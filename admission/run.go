package admission

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/engine"
	"github.com/discolab/disco/internal/governance"
	"github.com/discolab/disco/internal/runspec"
)

// Run webhook paths.
const (
	RunPath       = "/validate-discovery-disco-dev-v1alpha1-run"
	RunMutatePath = "/mutate-discovery-disco-dev-v1alpha1-run"
)

// +kubebuilder:webhook:path=/mutate-discovery-disco-dev-v1alpha1-run,mutating=true,failurePolicy=fail,sideEffects=None,groups=discovery.disco.dev,resources=runs,verbs=create,versions=v1alpha1,name=mrun.discovery.disco.dev,admissionReviewVersions=v1

// RunEstimator prices a Run created through the Kubernetes API as the facade prices a
// submission (runspec.Estimate on the dataset's profile), and raises a lower
// spec.computeUnitsEstimated to it: the estimate is what the campaign's budget reserves
// while the run is queued or running, so a user must not be able to reserve nothing. A
// dataset that is not profiled yet leaves the estimate as written.
type RunEstimator struct {
	Decoder    admission.Decoder
	Client     client.Reader
	Identities Identities
}

func (e *RunEstimator) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Create || e.Identities.isComponent(req.UserInfo) {
		return admission.Allowed("")
	}
	run := &discov1.Run{}
	if err := e.Decoder.Decode(req, run); err != nil {
		return undecodable()
	}
	ds := &discov1.Dataset{}
	if err := e.Client.Get(ctx, client.ObjectKey{Namespace: req.Namespace, Name: run.DatasetName()}, ds); err != nil || ds.Status.Rows == 0 {
		return admission.Allowed("")
	}
	estimate := runspec.Estimate(run.Spec, int(ds.Status.Rows), int(ds.Status.Columns))
	if run.Spec.ComputeUnitsEstimated >= estimate {
		return admission.Allowed("")
	}
	run.Spec.ComputeUnitsEstimated = estimate
	return patched(req, run)
}

// +kubebuilder:webhook:path=/validate-discovery-disco-dev-v1alpha1-run,mutating=false,failurePolicy=fail,sideEffects=None,groups=discovery.disco.dev,resources=runs,verbs=create,versions=v1alpha1,name=vrun.discovery.disco.dev,admissionReviewVersions=v1

// RunValidator refuses, at creation, a Run its campaign cannot take: an archived project or
// campaign, an expired campaign, or one whose compute units or run count are spent
// (issue 14: budgets hold for every writer). The refusal names the constraint as the REST
// error's details.constraint does. The facade reserves budget itself (its slot loop) and is
// not checked twice. Runs created at the same instant can both pass this check; the run
// reconciler admits a campaign's runs one at a time and refuses the one over budget
// (controllers.RunReconciler.admit, with the same governance.Admit), so the budget holds under races too.
type RunValidator struct {
	Decoder    admission.Decoder
	Client     client.Reader
	Identities Identities
	// Clock is the clock of budget expiry; nil means the real clock.
	Clock clock.PassiveClock
}

func (v *RunValidator) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Create || v.Identities.isComponent(req.UserInfo) {
		return admission.Allowed("")
	}
	run := &discov1.Run{}
	if err := v.Decoder.Decode(req, run); err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	// The API server stamps creationTimestamp before admission, to the second; the run being
	// created is the newest, so every other run of the campaign counts before it.
	run.CreationTimestamp = metav1.Time{}
	constraint, message, err := governance.AdmitRun(ctx, v.Client, req.Namespace, run, v.now())
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	if constraint != "" {
		return deny(fmt.Sprintf("budget_exhausted (%s): %s", constraint, message))
	}
	return v.checkSpec(ctx, req.Namespace, run)
}

// runSpecFields maps the engine's field names to where they are in a Run.
var runSpecFields = map[string]string{
	"mode":               "spec.mode",
	"constraints":        "spec.parameters.constraints",
	"target_variables":   "spec.parameters.targetVariables",
	"max_complexity":     "spec.parameters.maxComplexity",
	"epochs":             "spec.parameters.epochs",
	"neural_backbone":    "spec.parameters.neuralBackbone",
	"symbolic_prior":     "spec.parameters.symbolicPrior",
	"negative_controls":  "spec.governance.negativeControls",
	"evidence_threshold": "spec.governance.evidenceThreshold",
}

// checkSpec refuses what the engine refuses without reading the data, as the facade does
// at submission (engine.Spec.ValidateParameters): a constraint that does not parse, a
// dynamics: constraint without time:, and, once the dataset is profiled, targets and
// constraint columns it does not have. A rule of the REST path holds on the Kubernetes
// path too (issue 14); a Run written before its Dataset is profiled is checked without the
// columns, and the engine checks it again with the data.
func (v *RunValidator) checkSpec(ctx context.Context, namespace string, run *discov1.Run) admission.Response {
	var variables []string
	ds := &discov1.Dataset{}
	if err := v.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: run.DatasetName()}, ds); err == nil {
		variables = ds.Status.Variables
	}
	err := runspec.Engine(run.Spec, 0).ValidateParameters(variables)
	if err == nil {
		return admission.Allowed("")
	}
	var se *engine.SpecError
	if !errors.As(err, &se) {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	field := runSpecFields[se.Field]
	if field == "" {
		field = se.Field
	}
	msg := fmt.Sprintf("%s: %s: %s", se.Code, field, se.Message)
	if len(variables) > 0 && (se.Field == "target_variables" || se.Code == engine.CodeConstraintInvalid) {
		msg += fmt.Sprintf(" (the dataset's columns: %s)", strings.Join(variables, ", "))
	}
	r := admission.Denied(msg)
	r.Result.Code, r.Result.Reason = http.StatusUnprocessableEntity, metav1.StatusReasonInvalid
	return r
}

func (v *RunValidator) now() time.Time {
	if v.Clock != nil {
		return v.Clock.Now()
	}
	return time.Now()
}
