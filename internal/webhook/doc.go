// Package webhook announces disco events to registered HTTP endpoints.
//
// Publishing and sending are separated by a durable outbox in the SQL store:
// Publisher writes one delivery row per matching registration, and the
// leader-elected Dispatcher claims due rows, POSTs them signed, and records each
// attempt. A crash between the two loses nothing, because a claimed row is only
// leased and comes back when the lease runs out.
//
// Every attempt of one delivery sends the same bytes under the same event id, so
// receivers can deduplicate on webhook-id. Retries follow a fixed schedule
// (Schedule) inside a 72-hour window; an endpoint answering 410 Gone has its
// registration disabled.
//
// Endpoints are checked against server-side request forgery twice: CheckURL when
// a registration is made, by the URL's form and literal address only (no DNS), and
// at dial time on every address actually connected to, after resolution, so a
// hostname that resolves to an internal address, then or later (DNS rebinding), is
// refused before a connection is made.
package webhook
