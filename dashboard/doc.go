// Package dashboard is disco's web dashboard (issue 15): a backend-for-frontend served at
// the root of the facade's origin, beside the REST API at /v1, from the same binary.
//
// # Design decisions, and why
//
//   - The REST API is its only door. Every page is built from /v1 calls made with the
//     signed-in user's session token, through an in-process http.RoundTripper over the
//     facade's own handler (api.HandlerTransport): authentication, scopes, tenancy (404
//     across tenants), governance, rate limits and the ledger apply exactly as to any
//     client, and the ledger names the user. The dashboard holds no privileged credential
//     and imports nothing of the facade. What the API does not offer, the dashboard does
//     not show (no store or cluster access reaching around it).
//   - Server-rendered html/template pages, embedded with go:embed, enhanced with htmx for
//     partial updates and polling (the live pipeline, the dataset profile, the upload's
//     progress). Templates escape every value by context, pages work without JavaScript,
//     and there is no client-side state or build step to keep in step with the API. htmx
//     comes from the npm registry at the version pinned in web/package-lock.json:
//     `make build` runs web/vendor.sh (npm ci, which checks the lockfile's sha512) and
//     copies dist/htmx.min.js into static/vendor, which is not committed (a placeholder
//     keeps go:embed compiling on a fresh clone); TestVendoredHTMXMatchesLockfile checks
//     the vendored file against the lockfile. Node never runs at run time.
//   - Plots are SVG drawn on the server with gonum/plot: the fit (observed against
//     predicted) and the causal graph are the run's own plot artifacts, drawn by
//     engine/artifacts and streamed from the REST artifacts endpoint; the Pareto front of
//     a law claim is drawn from the run's law claims (error 1 − R² against complexity,
//     both from the claims' evidence) with engine/artifacts.ParetoFront; a dataset
//     column's histogram is drawn from the bins of the API's profile with gonum/plot's
//     histogram plotter, the column named by position so its name stays out of URLs
//     and drawings. SVGs are shown in
//     <img>, where they cannot run scripts, and are served with a sandboxing CSP.
//   - Sign-in is OAuth 2.0 authorization code with PKCE S256 (RFC 7636) against the
//     facade's own authorization server (/v1/auth/authorize, /v1/auth/token,
//     /v1/auth/revoke). The dashboard is a first-party public client: the code exchange
//     happens in the same process as the authorization server, PKCE binds the code to
//     the browser's sign-in, and the redirect URI is registered exactly, so a client
//     secret would add nothing but a secret to distribute to every replica. The
//     composition root registers the client per tenant on first use (idempotent: it is
//     found again by name and redirect URI after a restart).
//   - Tokens stay on the server side of the browser: the access and refresh tokens live
//     in a cookie sealed with AES-256-GCM (key derived with HKDF per cookie name),
//     HttpOnly, SameSite=Lax and Secure under TLS, so no script can read them and every
//     replica can open them without shared session storage. An expired access token is
//     refreshed (the refresh token rotates); requests that arrive together with the same
//     cookie share one refresh, so the API's reuse detection does not end the session.
//     Signing out revokes the refresh token (which ends the whole grant) and the access
//     token at /v1/auth/revoke (RFC 7009) before clearing the cookie: a copied cookie is
//     useless afterwards.
//   - State-changing requests are refused across origins by net/http's
//     CrossOriginProtection (Fetch metadata and Origin), on top of SameSite=Lax. Every
//     page carries a CSP without inline scripts or styles, frame-ancestors 'none',
//     nosniff and no-store.
//   - Ids taken from the address bar must look like API ids before they enter an API
//     path, so a crafted address cannot reach another endpoint.
//
// Pages: sign-in and sign-out; projects (list, create, governance settings, campaigns);
// campaigns (budget gauges for compute units, runs and expiry; their runs); runs (submit
// with the API's validation messages at the field; the live pipeline; results, artifacts
// and plots); claims (filtered by type, tier, run and a minimum score, sorted by score; the
// claim page with the expression or causal link, scope, Truth Dial score and its parts
// (with a dynamics law's simulation horizons, NRMSE and term inclusion), every negative
// control with its p-value, the fit plot, the Pareto front, the causal graph, tier history
// and promote/demote with the API's refusal); datasets (streamed upload with a progress
// bar, 413/422 as messages; the profile, with a histogram per numeric column, the most
// frequent values of a categorical text column, and the reason when a column has
// neither); the ledger (entries, chain verification, the
// signed checkpoint, and each entry's inclusion proof recomputed in the browser); API keys
// (create with scopes and project restriction, the secret shown once, roll, revoke);
// webhooks (deliveries with attempts and last answer, each delivery's attempt log with
// the signature headers every attempt was sent with, how to check them, redeliver);
// OAuth clients.
//
// The list API has no score filter (discovery-api.md, "List filters seen"), so the claims
// page's minimum score asks the API for claims sorted by score, high to low, and stops at
// the first below the minimum; under another sort it filters each page it gets.
//
// Each law's claim page shows that law's own fit: the engine plots every law of a target,
// the alternatives too, under artifacts.LawPlotName (its target and expression), and
// pickPlots finds it. A run made before per-law plots has only its chosen law's plot; the
// page shows it for that target's laws only when the run has no per-law plot at all.
package dashboard
