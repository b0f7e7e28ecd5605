"""The asynchronous client. This file is the single source of both clients:
``scripts/unasync.py`` generates ``disco/_sync/client.py`` from it (async def -> def,
await dropped, AsyncX -> X, asleep -> sleep, ...). Edit this file, then regenerate.
"""

from __future__ import annotations

import builtins
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from datetime import datetime
from typing import Any, Generic, TypeVar

import httpx
from pydantic import BaseModel

from .. import oauth as _oauth
from .._base import (
    NOT_GIVEN,
    USER_AGENT,
    AsyncLock,
    AsyncSleep,
    AsyncTokenCallback,
    NotGiven,
    RequestOptions,
    RetryPolicy,
    RunProgress,
    TokenState,
    acall_hook,
    asleep,
    clean_params,
    compact,
    decide_retry,
    decode_json,
    new_idempotency_key,
    parse_model,
    parse_page,
    patch_body,
    prepare_upload,
    replay_safe,
    resolve_api_key,
    resolve_base_url,
    seg,
    token_from,
)
from ..errors import (
    APIConnectionError,
    APITimeoutError,
    DiscoError,
    RunCancelledError,
    RunFailedError,
    WaitTimeoutError,
    error_from_response,
)
from ..ledger import Checkpoint, ConsistencyCheck, LedgerConsistencyError, check_consistency, parse_checkpoint
from ..models import (
    APIKey,
    Artifact,
    Campaign,
    Claim,
    Dataset,
    DatasetProfile,
    LedgerConsistency,
    LedgerEntry,
    LedgerProof,
    LedgerVerification,
    Page,
    Project,
    PromotionResult,
    Run,
    RunResults,
    RunStatus,
    TokenResponse,
    User,
    Webhook,
    WebhookDelivery,
)

M = TypeVar("M", bound=BaseModel)

__all__ = ["AsyncClient", "AsyncPaginator"]


class AsyncPaginator(Generic[M]):
    """A lazy, auto-paginating list. Iterating fetches pages as they are needed::

        async for claim in client.claims.list(project_id, tier="explore"):
            ...

    ``pages()`` iterates whole pages, ``first_page()`` fetches only one, ``to_list()``
    collects everything (or ``max_items``).
    """

    def __init__(self, client: AsyncClient, path: str, model: type[M], params: Mapping[str, Any]) -> None:
        self._client = client
        self._path = path
        self._model = model
        self._params = dict(params)

    async def _fetch(self, cursor: str | None) -> Page[M]:
        params = dict(self._params)
        if cursor:
            params["cursor"] = cursor
        data = await self._client._request_json(RequestOptions("GET", self._path, params=params))
        return parse_page(self._model, data)

    async def first_page(self) -> Page[M]:
        return await self._fetch(None)

    async def pages(self) -> AsyncIterator[Page[M]]:
        cursor: str | None = None
        while True:
            page = await self._fetch(cursor)
            yield page
            if not page.has_more or not page.next_cursor:
                return
            cursor = page.next_cursor

    async def _items(self) -> AsyncIterator[M]:
        async for page in self.pages():
            for item in page.data:
                yield item

    def __aiter__(self) -> AsyncIterator[M]:
        return self._items()

    async def to_list(self, max_items: int | None = None) -> builtins.list[M]:
        out: builtins.list[M] = []
        async for item in self:
            if max_items is not None and len(out) >= max_items:
                break
            out.append(item)
        return out


class _AsyncResource:
    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    async def _get(self, path: str, model: type[M], params: Mapping[str, Any] | None = None) -> M:
        data = await self._client._request_json(RequestOptions("GET", path, params=params))
        return parse_model(model, data)

    async def _post(
        self,
        path: str,
        model: type[M],
        body: Any = None,
        idempotency_key: str | None = None,
    ) -> M:
        data = await self._client._request_json(
            RequestOptions("POST", path, json=body, idempotency_key=idempotency_key or new_idempotency_key())
        )
        return parse_model(model, data)

    async def _patch(self, path: str, model: type[M], body: Any) -> M:
        data = await self._client._request_json(RequestOptions("PATCH", path, json=body))
        return parse_model(model, data)

    async def _delete(self, path: str) -> Any:
        return await self._client._request_json(RequestOptions("DELETE", path))

    def _list(self, path: str, model: type[M], **params: Any) -> AsyncPaginator[M]:
        return AsyncPaginator(self._client, path, model, clean_params(params))


def _project(project_id: str) -> str:
    return f"/projects/{seg(project_id)}"


def _campaign(project_id: str, campaign_id: str) -> str:
    return f"{_project(project_id)}/campaigns/{seg(campaign_id)}"


def _run(project_id: str, campaign_id: str, run_id: str) -> str:
    return f"{_campaign(project_id, campaign_id)}/runs/{seg(run_id)}"


def _iso(value: datetime | str | None) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return value.isoformat()


class AsyncProjects(_AsyncResource):
    """``/projects``."""

    async def create(
        self,
        name: str,
        *,
        description: str | None = None,
        settings: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> Project:
        body = compact({"name": name, "description": description, "settings": settings})
        return await self._post("/projects", Project, body, idempotency_key)

    def list(
        self,
        *,
        status: str | None = None,
        sort: str | None = None,
        order: str | None = None,
        limit: int | None = None,
    ) -> AsyncPaginator[Project]:
        return self._list("/projects", Project, status=status, sort=sort, order=order, limit=limit)

    async def get(self, project_id: str) -> Project:
        return await self._get(_project(project_id), Project)

    async def update(
        self,
        project_id: str,
        *,
        name: str | NotGiven = NOT_GIVEN,
        description: str | None | NotGiven = NOT_GIVEN,
        status: str | None | NotGiven = NOT_GIVEN,
        settings: Mapping[str, Any] | None | NotGiven = NOT_GIVEN,
    ) -> Project:
        """JSON merge patch: only the arguments given are sent; None resets to the default."""
        body = patch_body({"name": name, "description": description, "status": status, "settings": settings})
        return await self._patch(_project(project_id), Project, body)

    async def archive(self, project_id: str) -> Project:
        return await self.update(project_id, status="archived")


class AsyncCampaigns(_AsyncResource):
    """``/projects/:project_id/campaigns``."""

    async def create(
        self,
        project_id: str,
        name: str,
        *,
        compute_units: int,
        max_runs: int,
        expires_at: datetime | str | None = None,
        description: str | None = None,
        governance: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> Campaign:
        budget = compact({"compute_units": compute_units, "max_runs": max_runs, "expires_at": _iso(expires_at)})
        body = compact({"name": name, "description": description, "budget": budget, "governance": governance})
        return await self._post(f"{_project(project_id)}/campaigns", Campaign, body, idempotency_key)

    def list(
        self,
        project_id: str,
        *,
        status: str | None = None,
        sort: str | None = None,
        order: str | None = None,
        limit: int | None = None,
    ) -> AsyncPaginator[Campaign]:
        return self._list(
            f"{_project(project_id)}/campaigns", Campaign, status=status, sort=sort, order=order, limit=limit
        )

    async def get(self, project_id: str, campaign_id: str) -> Campaign:
        return await self._get(_campaign(project_id, campaign_id), Campaign)

    async def update(self, project_id: str, campaign_id: str, **patch: Any) -> Campaign:
        """JSON merge patch over the campaign (name, description, status, budget, governance)."""
        return await self._patch(_campaign(project_id, campaign_id), Campaign, patch_body(patch))

    async def archive(self, project_id: str, campaign_id: str) -> Campaign:
        return await self.update(project_id, campaign_id, status="archived")


class AsyncDatasets(_AsyncResource):
    """``/projects/:project_id/datasets``."""

    async def upload(
        self,
        project_id: str,
        source: Any,
        *,
        name: str | None = None,
        format: str | None = None,
        variables: Sequence[str] | None = None,
        units: Mapping[str, str] | None = None,
        idempotency_key: str | None = None,
    ) -> Dataset:
        """Upload a dataset: a path (streamed), a binary file object, bytes, or a pandas
        DataFrame (written to CSV in memory). ``format`` defaults to the file extension
        (csv, parquet); ``name`` to the file name without extension. ``units`` maps column
        names to SI unit strings such as ``{"F": "kg*m/s^2", "t": "s"}``; runs on the
        dataset use them as a ``units:`` constraint unless they give their own. A unit that
        does not parse, or one for a column the file lacks, raises a validation error."""
        up = prepare_upload(source, name=name, format=format, variables=variables, units=units)
        try:
            data = await self._client._request_json(
                RequestOptions(
                    "POST",
                    f"{_project(project_id)}/datasets",
                    files=up.files,
                    headers=up.headers,
                    idempotency_key=idempotency_key or new_idempotency_key(),
                    timeout=max(self._client.timeout_seconds, 300.0),
                )
            )
        finally:
            up.close()
        return parse_model(Dataset, data)

    def list(
        self,
        project_id: str,
        *,
        status: str | None = None,
        format: str | None = None,
        sort: str | None = None,
        order: str | None = None,
        limit: int | None = None,
    ) -> AsyncPaginator[Dataset]:
        return self._list(
            f"{_project(project_id)}/datasets",
            Dataset,
            status=status,
            format=format,
            sort=sort,
            order=order,
            limit=limit,
        )

    async def get(self, project_id: str, dataset_id: str) -> Dataset:
        return await self._get(f"{_project(project_id)}/datasets/{seg(dataset_id)}", Dataset)

    async def profile(self, project_id: str, dataset_id: str) -> DatasetProfile:
        return await self._get(f"{_project(project_id)}/datasets/{seg(dataset_id)}/profile", DatasetProfile)

    async def wait(
        self,
        project_id: str,
        dataset_id: str,
        *,
        timeout: float | None = 300.0,
        poll_interval: float = 1.0,
    ) -> Dataset:
        """Poll until profiling ends; return the ready dataset or raise if it failed."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            ds = await self.get(project_id, dataset_id)
            if ds.status == "ready":
                return ds
            if ds.status == "failed":
                raise DiscoError(
                    f"dataset {dataset_id} failed profiling: {ds.message or 'no reason given'}",
                    code="dataset_failed",
                    details={"dataset_id": dataset_id, "reason": ds.message},
                )
            if deadline is not None and time.monotonic() >= deadline:
                raise WaitTimeoutError(
                    f"dataset {dataset_id} still {ds.status} after {timeout} s",
                    code="wait_timeout",
                    details={"dataset_id": dataset_id, "status": ds.status},
                )
            await self._client._sleep(poll_interval)


class AsyncRuns(_AsyncResource):
    """``/projects/:project_id/campaigns/:campaign_id/runs``."""

    async def create(
        self,
        project_id: str,
        campaign_id: str,
        *,
        dataset_id: str,
        mode: str | None = None,
        target_variables: Sequence[str] | None = None,
        constraints: Sequence[str] | None = None,
        max_complexity: int | None = None,
        epochs: int | None = None,
        cross_validate: bool | None = None,
        symbolic_prior: str | None = None,
        neural_backbone: str | None = None,
        parameters: Mapping[str, Any] | None = None,
        negative_controls: Sequence[str] | None = None,
        evidence_threshold: float | None = None,
        governance: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> Run:
        """Submit a run (status queued). ``mode`` defaults to the project's default_mode.
        Named parameters are merged over ``parameters``/``governance``. A second identical
        submission while the first is queued or running raises ConflictError
        (code duplicate_run); an exhausted budget raises BudgetExhausted."""
        params = dict(parameters or {})
        params.update(
            compact(
                {
                    "target_variables": list(target_variables) if target_variables is not None else None,
                    "constraints": list(constraints) if constraints is not None else None,
                    "max_complexity": max_complexity,
                    "epochs": epochs,
                    "cross_validate": cross_validate,
                    "symbolic_prior": symbolic_prior,
                    "neural_backbone": neural_backbone,
                }
            )
        )
        gov = dict(governance or {})
        gov.update(
            compact(
                {
                    "negative_controls": list(negative_controls) if negative_controls is not None else None,
                    "evidence_threshold": evidence_threshold,
                }
            )
        )
        body: dict[str, Any] = compact({"mode": mode, "dataset_id": dataset_id})
        if params:
            body["parameters"] = params
        if gov:
            body["governance"] = gov
        return await self._post(f"{_campaign(project_id, campaign_id)}/runs", Run, body, idempotency_key)

    def list(
        self,
        project_id: str,
        campaign_id: str,
        *,
        status: str | None = None,
        mode: str | None = None,
        dataset_id: str | None = None,
        sort: str | None = None,
        order: str | None = None,
        limit: int | None = None,
    ) -> AsyncPaginator[Run]:
        return self._list(
            f"{_campaign(project_id, campaign_id)}/runs",
            Run,
            status=status,
            mode=mode,
            dataset_id=dataset_id,
            sort=sort,
            order=order,
            limit=limit,
        )

    async def get(self, project_id: str, campaign_id: str, run_id: str) -> Run:
        return await self._get(_run(project_id, campaign_id, run_id), Run)

    async def status(self, project_id: str, campaign_id: str, run_id: str) -> RunStatus:
        return await self._get(f"{_run(project_id, campaign_id, run_id)}/status", RunStatus)

    async def results(self, project_id: str, campaign_id: str, run_id: str) -> RunResults:
        return await self._get(f"{_run(project_id, campaign_id, run_id)}/results", RunResults)

    async def cancel(self, project_id: str, campaign_id: str, run_id: str) -> Run:
        return await self._post(f"{_run(project_id, campaign_id, run_id)}/cancel", Run)

    def artifacts(
        self,
        project_id: str,
        campaign_id: str,
        run_id: str,
        *,
        kind: str | None = None,
        sort: str | None = None,
        order: str | None = None,
        limit: int | None = None,
    ) -> AsyncPaginator[Artifact]:
        return self._list(
            f"{_run(project_id, campaign_id, run_id)}/artifacts", Artifact, kind=kind, sort=sort, order=order, limit=limit
        )

    async def artifact(self, project_id: str, campaign_id: str, run_id: str, artifact_id: str) -> Artifact:
        return await self._get(f"{_run(project_id, campaign_id, run_id)}/artifacts/{seg(artifact_id)}", Artifact)

    async def download_artifact(self, project_id: str, campaign_id: str, run_id: str, artifact_id: str) -> bytes:
        """The artifact's content (read into memory)."""
        resp = await self._client._request(
            RequestOptions("GET", f"{_run(project_id, campaign_id, run_id)}/artifacts/{seg(artifact_id)}/content")
        )
        return resp.content

    async def wait(
        self,
        project_id: str,
        campaign_id: str,
        run_id: str,
        *,
        progress: bool = True,
        timeout: float | None = 3600.0,
        poll_interval: float = 1.0,
        progress_file: Any = None,
    ) -> RunResults:
        """Poll the run's status until it finishes; show its pipeline stages on a tqdm bar
        when ``progress`` is true; return the results. Raises RunFailedError or
        RunCancelledError when the run did not complete, WaitTimeoutError on timeout."""
        bar = RunProgress(run_id, progress, file=progress_file)
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            while True:
                st = await self.status(project_id, campaign_id, run_id)
                bar.update(st)
                if st.status == "completed":
                    return await self.results(project_id, campaign_id, run_id)
                if st.status in ("failed", "cancelled"):
                    cls = RunFailedError if st.status == "failed" else RunCancelledError
                    raise cls(
                        f"run {run_id} {st.status}" + (f": {st.message}" if st.message else ""),
                        code=f"run_{st.status}",
                        details={"run_id": run_id, "status": st.status, "message": st.message},
                    )
                if deadline is not None and time.monotonic() >= deadline:
                    raise WaitTimeoutError(
                        f"run {run_id} still {st.status} after {timeout} s",
                        code="wait_timeout",
                        details={"run_id": run_id, "status": st.status},
                    )
                await self._client._sleep(poll_interval)
        finally:
            bar.close()


class AsyncClaims(_AsyncResource):
    """``/projects/:project_id/claims``: claims of every campaign and run of a project."""

    def list(
        self,
        project_id: str,
        *,
        run_id: str | None = None,
        campaign_id: str | None = None,
        type: str | None = None,
        tier: str | None = None,
        sort: str | None = None,
        order: str | None = None,
        limit: int | None = None,
    ) -> AsyncPaginator[Claim]:
        return self._list(
            f"{_project(project_id)}/claims",
            Claim,
            run_id=run_id,
            campaign_id=campaign_id,
            type=type,
            tier=tier,
            sort=sort,
            order=order,
            limit=limit,
        )

    async def get(self, project_id: str, claim_id: str) -> Claim:
        return await self._get(f"{_project(project_id)}/claims/{seg(claim_id)}", Claim)

    async def promote(
        self,
        project_id: str,
        claim_id: str,
        target_tier: str,
        *,
        rationale: str | None = None,
        idempotency_key: str | None = None,
    ) -> PromotionResult:
        """Promote a claim. Refusals raise GovernancePolicyViolation,
        TruthDialThresholdNotMet or NegativeControlsRequired (``err.constraint``)."""
        body = compact({"target_tier": target_tier, "rationale": rationale})
        return await self._post(
            f"{_project(project_id)}/claims/{seg(claim_id)}/promote", PromotionResult, body, idempotency_key
        )

    async def demote(
        self,
        project_id: str,
        claim_id: str,
        target_tier: str,
        *,
        rationale: str | None = None,
        idempotency_key: str | None = None,
    ) -> PromotionResult:
        body = compact({"target_tier": target_tier, "rationale": rationale})
        return await self._post(
            f"{_project(project_id)}/claims/{seg(claim_id)}/demote", PromotionResult, body, idempotency_key
        )


class AsyncLedger(_AsyncResource):
    """``/projects/:project_id/ledger``: the Evidence Ledger."""

    def list(
        self,
        project_id: str,
        *,
        claim_id: str | None = None,
        sort: str | None = None,
        order: str | None = None,
        limit: int | None = None,
    ) -> AsyncPaginator[LedgerEntry]:
        return self._list(
            f"{_project(project_id)}/ledger",
            LedgerEntry,
            claim_id=claim_id,
            sort=sort,
            order=order,
            limit=limit,
        )

    async def get(self, project_id: str, entry_id: str) -> LedgerEntry:
        return await self._get(f"{_project(project_id)}/ledger/{seg(entry_id)}", LedgerEntry)

    async def verify(self, project_id: str) -> LedgerVerification:
        """The signed checkpoint and the service's verification of the whole chain."""
        return await self._get(f"{_project(project_id)}/ledger/verify", LedgerVerification)

    async def proof(self, project_id: str, entry_id: str) -> LedgerProof:
        """The Merkle inclusion proof of one entry."""
        return await self._get(f"{_project(project_id)}/ledger/{seg(entry_id)}/proof", LedgerProof)

    async def consistency(self, project_id: str, old_size: int, new_size: int | None = None) -> LedgerConsistency:
        """The Merkle consistency proof from the tree of ``old_size`` entries to the tree
        of ``new_size`` entries (default: now)."""
        params = compact({"old_size": old_size, "new_size": new_size})
        return await self._get(f"{_project(project_id)}/ledger/consistency", LedgerConsistency, params)

    async def verifier_key(self) -> str:
        """The note verifier key (``<name>+<hash>+<base64 Ed25519 key>``) that signs every
        project's checkpoints. Pin a copy obtained out of band rather than trusting the
        service you check."""
        data = await self._client._request_json(RequestOptions("GET", "/ledger/verifier-key"))
        return str(data["verifier_key"])

    async def checkpoint(self, project_id: str) -> Checkpoint:
        """The ledger's current signed checkpoint (C2SP tlog-checkpoint). Keep ``.note``:
        ``verify_consistency`` later shows whether the ledger still extends it. Its
        signature is not checked here (see :mod:`disco.ledger`)."""
        resp = await self._client._request(RequestOptions("GET", f"{_project(project_id)}/ledger/checkpoint"))
        return parse_checkpoint(resp.text)

    async def verify_consistency(self, project_id: str, old_checkpoint: str | Checkpoint) -> ConsistencyCheck:
        """Check that the ledger still extends ``old_checkpoint`` (a checkpoint's note text,
        or a parsed one): the service verifies the whole ledger, then the RFC 6962
        consistency proof from the kept tree head to the verified one is checked here
        against the kept root. Raises :class:`disco.ledger.LedgerConsistencyError` when the
        ledger was rewritten or truncated, even though ``verify`` calls it valid, and
        ``LedgerIntegrityError`` when the service's own verification fails. Signatures are
        not checked (see :mod:`disco.ledger`)."""
        kept = old_checkpoint if isinstance(old_checkpoint, Checkpoint) else parse_checkpoint(old_checkpoint)
        if kept.project_id != project_id:
            raise ValueError(f"the checkpoint is of project {kept.project_id}, not {project_id}")
        verification = await self.verify(project_id)
        current = parse_checkpoint(verification.checkpoint or "")
        if (
            not verification.valid
            or current.project_id != project_id
            or current.size != verification.size
            or current.root_hash_b64 != verification.root_hash
        ):
            raise LedgerConsistencyError("the service's verification does not match its checkpoint")
        hashes: builtins.list[str] = []
        if 0 < kept.size < current.size:
            proof = await self.consistency(project_id, kept.size, current.size)
            if proof.old_size != kept.size or proof.new_size != current.size:
                raise LedgerConsistencyError(
                    f"the service answered a proof from {proof.old_size} to {proof.new_size} entries, "
                    f"asked from {kept.size} to {current.size}"
                )
            hashes = proof.hashes
        check_consistency(kept, current, hashes)
        return ConsistencyCheck(kept=kept, current=current, proof=tuple(hashes))


class AsyncWebhooks(_AsyncResource):
    """``/webhooks``: registrations and their deliveries."""

    async def create(
        self,
        url: str,
        events: Sequence[str],
        *,
        project_id: str | None = None,
        secret: str,
        idempotency_key: str | None = None,
    ) -> Webhook:
        body = compact({"url": url, "events": builtins.list(events), "project_id": project_id, "secret": secret})
        return await self._post("/webhooks", Webhook, body, idempotency_key)

    def list(
        self,
        *,
        project_id: str | None = None,
        status: str | None = None,
        sort: str | None = None,
        order: str | None = None,
        limit: int | None = None,
    ) -> AsyncPaginator[Webhook]:
        return self._list(
            "/webhooks", Webhook, project_id=project_id, status=status, sort=sort, order=order, limit=limit
        )

    async def get(self, webhook_id: str) -> Webhook:
        return await self._get(f"/webhooks/{seg(webhook_id)}", Webhook)

    async def delete(self, webhook_id: str) -> None:
        await self._delete(f"/webhooks/{seg(webhook_id)}")

    def deliveries(self, webhook_id: str, *, limit: int | None = None) -> AsyncPaginator[WebhookDelivery]:
        return self._list(f"/webhooks/{seg(webhook_id)}/deliveries", WebhookDelivery, limit=limit)

    async def delivery(self, webhook_id: str, delivery_id: str) -> WebhookDelivery:
        """One delivery, with ``attempt_log``: its last attempts and the signature headers
        each was sent with."""
        return await self._get(f"/webhooks/{seg(webhook_id)}/deliveries/{seg(delivery_id)}", WebhookDelivery)

    async def redeliver(self, webhook_id: str, delivery_id: str) -> WebhookDelivery:
        return await self._post(
            f"/webhooks/{seg(webhook_id)}/deliveries/{seg(delivery_id)}/redeliver", WebhookDelivery
        )


class AsyncAPIKeys(_AsyncResource):
    """``/api-keys``: the tenant's API keys. The plaintext ``key`` is only returned by
    ``create`` and ``roll``."""

    async def create(
        self,
        name: str,
        *,
        scopes: Sequence[str] | None = None,
        project_ids: Sequence[str] | None = None,
        expires_at: datetime | str | None = None,
        idempotency_key: str | None = None,
    ) -> APIKey:
        body = compact(
            {
                "name": name,
                "scopes": builtins.list(scopes) if scopes is not None else None,
                "project_ids": builtins.list(project_ids) if project_ids is not None else None,
                "expires_at": _iso(expires_at),
            }
        )
        return await self._post("/api-keys", APIKey, body, idempotency_key)

    def list(
        self,
        *,
        status: str | None = None,
        sort: str | None = None,
        order: str | None = None,
        limit: int | None = None,
    ) -> AsyncPaginator[APIKey]:
        return self._list("/api-keys", APIKey, status=status, sort=sort, order=order, limit=limit)

    async def get(self, key_id: str) -> APIKey:
        return await self._get(f"/api-keys/{seg(key_id)}", APIKey)

    async def roll(self, key_id: str, *, grace_period_seconds: int | None = None) -> APIKey:
        """Issue a new key; the old one stays valid for a grace period."""
        body = compact({"grace_period_seconds": grace_period_seconds}) or None
        return await self._post(f"/api-keys/{seg(key_id)}/roll", APIKey, body)

    async def revoke(self, key_id: str) -> None:
        await self._delete(f"/api-keys/{seg(key_id)}")


class AsyncUsers(_AsyncResource):
    """``/users``: the tenant's users (scope ``api_keys:write``, a key not restricted to
    projects). A user cannot disable or delete themselves."""

    def list(
        self,
        *,
        status: str | None = None,
        sort: str | None = None,
        order: str | None = None,
        limit: int | None = None,
    ) -> AsyncPaginator[User]:
        """``status``: active or disabled; ``sort``: created_at (default, newest first) or username."""
        return self._list("/users", User, status=status, sort=sort, order=order, limit=limit)

    async def get(self, user_id: str) -> User:
        return await self._get(f"/users/{seg(user_id)}", User)

    async def disable(self, user_id: str) -> User:
        """The user can no longer sign in, and every session they hold stops working."""
        return await self._post(f"/users/{seg(user_id)}/disable", User)

    async def enable(self, user_id: str) -> User:
        """The user can sign in again; sessions ended by disabling stay ended."""
        return await self._post(f"/users/{seg(user_id)}/enable", User)

    async def delete(self, user_id: str) -> None:
        await self._delete(f"/users/{seg(user_id)}")


class AsyncOAuth(_AsyncResource):
    """OAuth 2.0 authorization code flow with PKCE against ``/auth/authorize`` and
    ``/auth/token``. After ``exchange_code`` the client uses the session token and
    refreshes it automatically (keeping the rotated refresh token)."""

    def authorization_url(
        self,
        *,
        client_id: str | None = None,
        redirect_uri: str,
        scopes: Sequence[str] | str = (),
        state: str | None = None,
    ) -> _oauth.AuthorizationRequest:
        cid = client_id or self._client.client_id
        if not cid:
            raise ValueError("client_id is required")
        return _oauth.authorization_url(
            self._client.base_url, client_id=cid, redirect_uri=redirect_uri, scopes=scopes, state=state
        )

    async def exchange_code(
        self,
        code: str,
        *,
        redirect_uri: str,
        code_verifier: str,
        client_id: str | None = None,
    ) -> TokenResponse:
        cid = client_id or self._client.client_id
        if not cid:
            raise ValueError("client_id is required")
        body = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": redirect_uri,
            "client_id": cid,
            "code_verifier": code_verifier,
        }
        data = await self._client._request_json(
            RequestOptions("POST", "/auth/token", json=body, retry="unsent", authenticated=False)
        )
        token = parse_model(TokenResponse, data)
        self._client.client_id = cid
        await self._client._set_token(token)
        return token

    async def refresh(self) -> TokenResponse:
        """Exchange the refresh token for a new session token (and refresh token)."""
        return await self._client._refresh_token(force=True)


class AsyncClient:
    """Asynchronous client of the disco REST API.

    ``base_url`` (including ``/v1``) and ``api_key`` default to ``DISCO_BASE_URL`` and
    ``DISCO_API_KEY``. Instead of an API key, pass ``token`` (a session token string or
    a :class:`~disco.models.TokenResponse`) with ``client_id`` to use an OAuth session;
    it is refreshed automatically and ``on_token_refresh`` is called with each new
    token (to persist the rotated refresh token).
    """

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        token: str | TokenResponse | Mapping[str, Any] | TokenState | None = None,
        client_id: str | None = None,
        on_token_refresh: AsyncTokenCallback | None = None,
        timeout: float = 60.0,
        max_retries: int = 5,
        retry_policy: RetryPolicy | None = None,
        headers: Mapping[str, str] | None = None,
        http_client: httpx.AsyncClient | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = resolve_base_url(base_url)
        self._token = token_from(token)
        self.api_key = None if self._token is not None else resolve_api_key(api_key)
        self.client_id = client_id
        self.on_token_refresh = on_token_refresh
        self.timeout_seconds = timeout
        self.retry_policy = retry_policy or RetryPolicy(max_retries=max_retries)
        self._headers = {"User-Agent": USER_AGENT, "Accept": "application/json", **dict(headers or {})}
        self._owns_http = http_client is None
        self._http = http_client or httpx.AsyncClient(
            transport=transport, timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)), follow_redirects=False
        )
        self._refresh_lock = AsyncLock()
        #: The sleep used between retries and polls; tests replace it.
        self._sleep: AsyncSleep = asleep

        self.projects = AsyncProjects(self)
        self.campaigns = AsyncCampaigns(self)
        self.datasets = AsyncDatasets(self)
        self.runs = AsyncRuns(self)
        self.claims = AsyncClaims(self)
        self.ledger = AsyncLedger(self)
        self.webhooks = AsyncWebhooks(self)
        self.api_keys = AsyncAPIKeys(self)
        self.users = AsyncUsers(self)
        self.oauth = AsyncOAuth(self)

    # lifecycle

    async def aclose(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self.base_url!r})"

    # credentials

    @property
    def token(self) -> TokenState | None:
        return self._token

    async def _set_token(self, token: TokenResponse) -> None:
        self._token = TokenState.from_response(token)
        self.api_key = None
        await acall_hook(self.on_token_refresh, token)

    async def _refresh_token(self, force: bool = False, seen: str | None = None) -> TokenResponse:
        async with self._refresh_lock:
            tok = self._token
            if tok is None or not tok.refresh_token:
                raise DiscoError("no refresh token: the client does not hold an OAuth session", code="no_refresh_token")
            if not force and seen is not None and tok.access_token != seen:
                # Another task refreshed while we waited for the lock: use its token.
                return TokenResponse(access_token=tok.access_token, refresh_token=tok.refresh_token)
            if not force and seen is None and not tok.needs_refresh():
                return TokenResponse(access_token=tok.access_token, refresh_token=tok.refresh_token)
            body = compact(
                {"grant_type": "refresh_token", "refresh_token": tok.refresh_token, "client_id": self.client_id}
            )
            data = await self._request_json(
                RequestOptions("POST", "/auth/token", json=body, retry="unsent", authenticated=False)
            )
            new = parse_model(TokenResponse, data)
            if not new.refresh_token:
                # No rotation by the server: the old refresh token stays valid.
                new = new.model_copy(update={"refresh_token": tok.refresh_token})
            await self._set_token(new)
            return new

    def _auth_header(self) -> dict[str, str]:
        if self._token is not None:
            return {"Authorization": f"Bearer {self._token.access_token}"}
        if self.api_key:
            return {"Authorization": f"Bearer {self.api_key}"}
        return {}

    # transport

    def _build(self, opts: RequestOptions) -> httpx.Request:
        headers = dict(self._headers)
        if opts.authenticated:
            headers.update(self._auth_header())
        if opts.idempotency_key:
            headers["Idempotency-Key"] = opts.idempotency_key
        if opts.headers:
            headers.update(opts.headers)
        url = self.base_url + opts.path
        timeout = httpx.Timeout(opts.timeout, connect=min(opts.timeout, 10.0)) if opts.timeout else None
        kwargs: dict[str, Any] = {}
        if timeout is not None:
            kwargs["timeout"] = timeout
        return self._http.build_request(
            opts.method,
            url,
            params=clean_params(opts.params or {}),
            json=opts.json if opts.files is None else None,
            files=opts.files,
            headers=headers,
            **kwargs,
        )

    async def _request(self, opts: RequestOptions) -> httpx.Response:
        """Send with retries; return a successful response or raise the typed error."""
        policy = self.retry_policy
        attempt = 0
        refreshed = False
        while True:
            if opts.authenticated and self._token is not None and self._token.needs_refresh():
                await self._refresh_token()
            sent_token = self._token.access_token if self._token is not None else None
            request = self._build(opts)
            try:
                response = await self._http.send(request)
            except httpx.TransportError as exc:
                unsent = isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout))
                can_replay = unsent or (opts.retry == "all" and replay_safe(opts.method, opts.idempotency_key))
                if can_replay and attempt < policy.max_retries:
                    await self._sleep(policy.backoff(attempt))
                    attempt += 1
                    continue
                cls = APITimeoutError if isinstance(exc, httpx.TimeoutException) else APIConnectionError
                raise cls(
                    f"{opts.method} {request.url}: {type(exc).__name__}: {exc}",
                    code="timeout" if cls is APITimeoutError else "connection_error",
                ) from exc
            if response.is_success:
                await response.aread()
                return response
            content = await response.aread()
            err = error_from_response(response.status_code, content, response.headers)
            if (
                response.status_code == 401
                and opts.authenticated
                and not refreshed
                and self._token is not None
                and self._token.refresh_token
            ):
                refreshed = True
                await self._refresh_token(seen=sent_token)
                continue
            delay = decide_retry(
                opts, policy, attempt, response.status_code, err.code, response.headers.get("retry-after")
            )
            if delay is None:
                raise err
            await self._sleep(delay)
            attempt += 1

    async def _request_json(self, opts: RequestOptions) -> Any:
        response = await self._request(opts)
        return decode_json(response.content)

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        idempotency_key: str | None = None,
    ) -> Any:
        """Call any operation (path relative to base_url) with the client's credentials,
        retries and error mapping; returns the decoded JSON body."""
        if method.upper() == "POST" and idempotency_key is None:
            idempotency_key = new_idempotency_key()
        return await self._request_json(
            RequestOptions(method.upper(), path, params=params, json=json, idempotency_key=idempotency_key)
        )
