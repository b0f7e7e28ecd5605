package conditions

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// SetRunFinished records on run's conditions that it reached the final phase: Finished is
// True with reason and message, Succeeded and Ready are True for a completed run only, and
// Failed is True for every other final phase. Every path that ends a run goes through it, so
// `kubectl wait --for=condition=Succeeded` (or Failed) ends however the run ended. A failed
// run's pipeline also shows the stage it failed in (see failStage).
func SetRunFinished(run *discov1.Run, phase discov1.RunPhase, reason, message string) {
	if phase == discov1.RunFailed {
		failStage(&run.Status.Pipeline)
	}
	succeeded, failed := metav1.ConditionFalse, metav1.ConditionTrue
	if phase == discov1.RunCompleted {
		succeeded, failed = metav1.ConditionTrue, metav1.ConditionFalse
	}
	Set(&run.Status.Conditions, run, discov1.RunConditionFinished, metav1.ConditionTrue, reason, message)
	Set(&run.Status.Conditions, run, discov1.RunConditionSucceeded, succeeded, reason, message)
	Set(&run.Status.Conditions, run, discov1.RunConditionFailed, failed, reason, message)
	Set(&run.Status.Conditions, run, discov1.ConditionReady, succeeded, reason, message)
}

// failStage marks the stage a run failed in as failed: the one still running, or, when none
// is (the run failed before the engine reported a stage, for example on a constraint the
// data refutes), the current stage. Stages that completed or never started keep their
// status, so the pipeline reads as far as the run got.
func failStage(p *discov1.Pipeline) {
	for i := range p.Stages {
		if p.Stages[i].Status == "running" {
			p.Stages[i].Status = "failed"
			return
		}
	}
	for i := range p.Stages {
		if p.Stages[i].Name == p.CurrentStage && p.Stages[i].Status != "completed" {
			p.Stages[i].Status = "failed"
			return
		}
	}
}
