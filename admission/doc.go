// Package admission holds disco's admission webhooks, served by the manager. They are the
// guard every writer passes, whatever door it came through: the REST facade, kubectl, a
// GitOps controller (DESIGN.md, "Every front door keeps the same rules"; issue 14).
//
// One file per resource, after kueue's pkg/webhooks:
//   - claim.go: only disco's own components create and change Claims; a claim's content is
//     immutable; its tier moves only through the governed path (internal/promotion), and a
//     claim above explore is demoted before it is deleted.
//   - claimpromotion.go: a ClaimPromotion records who asked; its spec is immutable.
//   - run.go: a Run created through the Kubernetes API meets its campaign's budget, expiry
//     and archived state, with the REST errors' constraint names.
//   - governance.go: governance settings of projects and campaigns change only for users
//     granted update on the projects/governance or campaigns/governance subresource.
//
// Identities (identity.go) tell disco's components from users: webhooks are not bypassed by
// system:masters, so an admin kubeconfig passes the same rules.
package admission
