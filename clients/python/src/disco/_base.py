"""What the sync and async clients share: configuration, retry decisions, request
options, upload preparation, OAuth token state and the run progress display.

Nothing here performs I/O on the network; the two clients (``disco._async.client`` and
its generated twin ``disco._sync.client``) do, with these helpers.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import random
import threading
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any, Final, TypeVar
from urllib.parse import quote

from pydantic import BaseModel

from ._version import __version__
from .errors import parse_retry_after
from .models import Page, RunStatus, TokenResponse

M = TypeVar("M", bound=BaseModel)

DEFAULT_BASE_URL: Final = "http://127.0.0.1:8080/v1"
ENV_BASE_URL: Final = "DISCO_BASE_URL"
ENV_API_KEY: Final = "DISCO_API_KEY"
USER_AGENT: Final = f"disco-client-python/{__version__}"

# Locks and sleeps under names the sync generator can map (AsyncLock -> Lock, asleep -> sleep).
AsyncLock = asyncio.Lock
Lock = threading.Lock


async def asleep(seconds: float) -> None:
    await asyncio.sleep(seconds)


def sleep(seconds: float) -> None:
    time.sleep(seconds)


AsyncSleep = Callable[[float], Awaitable[None]]
Sleep = Callable[[float], None]
AsyncTokenCallback = Callable[[TokenResponse], "Awaitable[None] | None"]
TokenCallback = Callable[[TokenResponse], None]


async def acall_hook(cb: AsyncTokenCallback | None, token: TokenResponse) -> None:
    """Call an on_token_refresh hook, awaiting it if it is a coroutine function."""
    if cb is None:
        return
    res = cb(token)
    if res is not None:
        await res


def call_hook(cb: TokenCallback | None, token: TokenResponse) -> None:
    if cb is not None:
        cb(token)


class NotGiven:
    """Sentinel for "argument not passed", distinct from None (which PATCH sends as null)."""

    _instance: NotGiven | None = None

    def __new__(cls) -> NotGiven:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN: Final = NotGiven()


def resolve_base_url(base_url: str | None) -> str:
    url = base_url or os.environ.get(ENV_BASE_URL) or DEFAULT_BASE_URL
    return url.rstrip("/")


def resolve_api_key(api_key: str | None) -> str | None:
    return api_key or os.environ.get(ENV_API_KEY) or None


def seg(value: str) -> str:
    """Quote one path segment (ids never need it, but user input might)."""
    if not isinstance(value, str) or not value:
        raise ValueError(f"an id must be a non-empty string, got {value!r}")
    return quote(value, safe="")


def clean_params(params: Mapping[str, Any]) -> dict[str, str | list[str]]:
    """Query parameters without the unset ones, in wire form."""
    out: dict[str, str | list[str]] = {}
    for k, v in params.items():
        if v is None or isinstance(v, NotGiven):
            continue
        if isinstance(v, bool):
            out[k] = "true" if v else "false"
        elif isinstance(v, (list, tuple)):
            out[k] = [str(x) for x in v]
        else:
            out[k] = str(v)
    return out


def compact(body: Mapping[str, Any]) -> dict[str, Any]:
    """A JSON body without the arguments that were not given (None or NOT_GIVEN)."""
    return {k: v for k, v in body.items() if v is not None and not isinstance(v, NotGiven)}


def patch_body(fields: Mapping[str, Any]) -> dict[str, Any]:
    """A JSON merge patch: NOT_GIVEN is left out, None is sent as null (reset)."""
    return {k: v for k, v in fields.items() if not isinstance(v, NotGiven)}


def new_idempotency_key() -> str:
    return "disco-py-" + uuid.uuid4().hex


# Retries ----------------------------------------------------------------------------

#: 409 codes that describe a transient state: retrying the same request can succeed.
RETRYABLE_CONFLICT_CODES: Final = frozenset({"conflict", "idempotency_key_in_flight"})
#: 409 (and 403) codes that must never be retried: the answer will not change.
NEVER_RETRY_CODES: Final = frozenset(
    {
        "duplicate_run",
        "idempotency_key_reused",
        "governance_policy_violation",
        "truth_dial_threshold_not_met",
        "negative_controls_required",
        "budget_exhausted",
        "ledger_integrity_error",
    }
)
IDEMPOTENT_METHODS: Final = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE", "PATCH"})


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with full jitter: attempt n waits uniform(0, min(cap, base*2^n)).

    On 429 (and 503) a Retry-After header is honoured instead.
    """

    max_retries: int = 5
    base_delay: float = 1.0
    max_delay: float = 60.0
    jitter: bool = True

    def backoff(self, attempt: int, rand: Callable[[], float] = random.random) -> float:
        ceiling = min(self.max_delay, self.base_delay * (2.0**attempt))
        return ceiling * rand() if self.jitter else ceiling

    def delay(self, attempt: int, retry_after: str | None, rand: Callable[[], float] = random.random) -> float:
        ra = parse_retry_after(retry_after)
        if ra is not None:
            return ra
        return self.backoff(attempt, rand)


def retryable_status(status: int, code: str) -> bool:
    """Whether a response status (with its error code) is worth retrying at all."""
    if code in NEVER_RETRY_CODES:
        return False
    if status == 429:
        return True
    if status == 409:
        return code in RETRYABLE_CONFLICT_CODES
    return status >= 500 and status != 501


def replay_safe(method: str, idempotency_key: str | None) -> bool:
    """Whether resending a request that may have reached the server is harmless."""
    return method.upper() in IDEMPOTENT_METHODS or idempotency_key is not None


@dataclass
class RequestOptions:
    method: str
    path: str
    params: Mapping[str, Any] | None = None
    json: Any = None
    files: Any = None
    headers: Mapping[str, str] | None = None
    idempotency_key: str | None = None
    #: "all": retry per policy; "unsent": only failures the server cannot have acted on
    #: (connect errors, 429) - for one-shot requests such as the OAuth code exchange.
    retry: str = "all"
    authenticated: bool = True
    timeout: float | None = None


def decide_retry(
    opts: RequestOptions,
    policy: RetryPolicy,
    attempt: int,
    status: int,
    code: str,
    retry_after: str | None,
) -> float | None:
    """Seconds to wait before the next attempt, or None to give up."""
    if attempt >= policy.max_retries or not retryable_status(status, code):
        return None
    if opts.retry != "all" and status != 429:
        return None
    if status != 429 and not replay_safe(opts.method, opts.idempotency_key):
        return None
    ra = retry_after if status in (429, 503) else None
    return policy.delay(attempt, ra)


# Responses --------------------------------------------------------------------------


def parse_model(model: type[M], data: Any) -> M:
    return model.model_validate(data)


def parse_page(model: type[M], data: Any) -> Page[M]:
    if not isinstance(data, dict):
        raise ValueError(f"expected a list object, got {type(data).__name__}")
    items = [model.model_validate(x) for x in data.get("data") or []]
    extra = {k: v for k, v in data.items() if k not in ("object", "data", "has_more", "next_cursor", "total_count")}
    return Page[M](
        object=str(data.get("object", "list")),
        data=items,
        has_more=bool(data.get("has_more", False)),
        next_cursor=data.get("next_cursor") or None,
        total_count=data.get("total_count"),
        **extra,
    )


def decode_json(content: bytes) -> Any:
    if not content:
        return None
    return json.loads(content)


# Uploads ----------------------------------------------------------------------------

_EXT_FORMATS: Final = {
    ".csv": "csv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".parq": "parquet",
}


def format_from_name(name: str) -> str | None:
    lower = name.lower()
    for ext, fmt in _EXT_FORMATS.items():
        if lower.endswith(ext):
            return fmt
    return None


def is_dataframe(obj: Any) -> bool:
    """A pandas (or pandas-like) DataFrame, detected without importing pandas."""
    return hasattr(obj, "to_csv") and hasattr(obj, "columns") and not isinstance(obj, (str, bytes))


@dataclass
class PreparedUpload:
    files: list[tuple[str, tuple[str | None, Any, str]]]
    headers: dict[str, str]
    metadata: dict[str, Any]
    _closers: list[Callable[[], None]] = field(default_factory=list)

    def close(self) -> None:
        for c in self._closers:
            try:
                c()
            except Exception:  # pragma: no cover - best effort
                pass


def prepare_upload(
    source: Any,
    *,
    name: str | None,
    format: str | None,
    variables: Sequence[str] | None,
    units: Mapping[str, str] | None = None,
) -> PreparedUpload:
    """Turn a path, file object, bytes or DataFrame into the multipart parts.

    A path is opened and streamed; a DataFrame is written to CSV (or Parquet when
    ``format="parquet"``) in memory. The boundary is fixed per upload so that a retry
    sends byte-identical content (the Idempotency-Key replay compares bodies).
    """
    closers: list[Callable[[], None]] = []
    fileobj: IO[bytes]
    filename: str
    if is_dataframe(source):
        fmt = (format or "csv").lower()
        buf = io.BytesIO()
        if fmt == "csv":
            text = source.to_csv(index=False)
            buf.write(text.encode("utf-8"))
        elif fmt == "parquet":
            source.to_parquet(buf, index=False)
        else:
            raise ValueError(f"cannot write a DataFrame as {fmt!r}; use csv or parquet")
        buf.seek(0)
        fileobj, filename = buf, f"{name or 'dataframe'}.{fmt}"
        if variables is None:
            variables = [str(c) for c in source.columns]
        name = name or "dataframe"
        format = fmt
    elif isinstance(source, (bytes, bytearray, memoryview)):
        if not format:
            raise ValueError("format= is required when uploading bytes")
        fileobj, filename = io.BytesIO(bytes(source)), f"{name or 'data'}.{format}"
        name = name or "data"
    elif isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        base = os.path.basename(path)
        format = format or format_from_name(base)
        if not format:
            raise ValueError(f"cannot tell the format of {base!r} from its extension; pass format='csv' or 'parquet'")
        fh = open(path, "rb")  # noqa: SIM115 - closed by PreparedUpload.close
        closers.append(fh.close)
        fileobj, filename = fh, base
        if name is None:
            stem, _ = os.path.splitext(base)
            name = stem or base
    elif hasattr(source, "read"):
        fname = os.path.basename(str(getattr(source, "name", "") or "")) or "data"
        format = format or format_from_name(fname)
        if not format:
            raise ValueError("format= is required for a file object whose name has no known extension")
        fileobj, filename = source, fname
        name = name or os.path.splitext(fname)[0] or "data"
    else:
        raise TypeError(f"cannot upload a {type(source).__name__}; pass a path, a binary file, bytes or a DataFrame")

    meta: dict[str, Any] = {"name": name, "format": format.lower()}
    if variables is not None:
        meta["variables"] = [str(v) for v in variables]
    if units:
        if not isinstance(units, Mapping):
            raise TypeError(f"units= takes a mapping of column name to unit string, not a {type(units).__name__}")
        meta["units"] = {str(k): str(v) for k, v in units.items()}
    media = "text/csv" if meta["format"] == "csv" else "application/octet-stream"
    boundary = "disco-" + uuid.uuid4().hex
    return PreparedUpload(
        files=[
            ("metadata", (None, json.dumps(meta), "application/json")),
            ("file", (filename, fileobj, media)),
        ],
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
        metadata=meta,
        _closers=closers,
    )


# OAuth token state ------------------------------------------------------------------


@dataclass
class TokenState:
    """The session token a client holds, with what it needs to refresh it."""

    access_token: str
    refresh_token: str | None = None
    expires_at: float | None = None  # time.time() seconds
    scope: str | None = None

    @classmethod
    def from_response(cls, t: TokenResponse, now: float | None = None) -> TokenState:
        now = time.time() if now is None else now
        exp = now + t.expires_in if t.expires_in else None
        return cls(access_token=t.access_token, refresh_token=t.refresh_token, expires_at=exp, scope=t.scope)

    def needs_refresh(self, skew: float = 60.0, now: float | None = None) -> bool:
        if self.expires_at is None or not self.refresh_token:
            return False
        now = time.time() if now is None else now
        return now >= self.expires_at - skew


def token_from(value: str | TokenResponse | Mapping[str, Any] | TokenState | None) -> TokenState | None:
    if value is None:
        return None
    if isinstance(value, TokenState):
        return value
    if isinstance(value, str):
        return TokenState(access_token=value)
    if isinstance(value, TokenResponse):
        return TokenState.from_response(value)
    return TokenState.from_response(TokenResponse.model_validate(dict(value)))


# Run progress -----------------------------------------------------------------------

FINAL_RUN_STATES: Final = frozenset({"completed", "failed", "cancelled"})


class RunProgress:
    """A tqdm bar that follows a run's pipeline stages (or its bare progress number)."""

    def __init__(self, run_id: str, enabled: bool, file: Any = None) -> None:
        self.run_id = run_id
        self.enabled = enabled
        self._bar: Any = None
        self._file = file
        self._reported: set[str] = set()

    def _ensure(self) -> Any:
        if self._bar is None and self.enabled:
            from tqdm.auto import tqdm

            self._bar = tqdm(
                total=100,
                desc=self.run_id,
                unit="%",
                file=self._file,
                bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed} {postfix}",
                leave=True,
            )
        return self._bar

    @staticmethod
    def percent(status: RunStatus) -> float:
        if status.status == "completed":
            return 100.0
        p = status.pipeline
        if p is not None and p.stages:
            done = 0.0
            for s in p.stages:
                if s.status in ("completed", "skipped"):
                    done += 1.0
                elif s.status == "running":
                    done += min(max(s.progress or 0.0, 0.0), 1.0)
            return 100.0 * done / len(p.stages)
        if status.progress is not None:
            return 100.0 * min(max(status.progress, 0.0), 1.0)
        return 0.0

    @staticmethod
    def describe(status: RunStatus) -> str:
        p = status.pipeline
        if p is not None and p.stages:
            marks = {"completed": "\u2713", "running": "\u25b6", "pending": "\u00b7", "failed": "\u2717", "skipped": "-"}
            return " ".join(f"{marks.get(s.status, '?')}{s.name}" for s in p.stages)
        return status.status

    def update(self, status: RunStatus) -> None:
        bar = self._ensure()
        if bar is None:
            return
        pct = self.percent(status)
        bar.n = pct
        stage = status.pipeline.current_stage if status.pipeline else None
        bar.set_description_str(f"{self.run_id} {stage or status.status}", refresh=False)
        bar.set_postfix_str(self.describe(status), refresh=False)
        if status.pipeline is not None:
            for s in status.pipeline.stages:
                if s.status in ("completed", "skipped", "failed") and s.name not in self._reported:
                    self._reported.add(s.name)
                    took = f" in {s.duration_ms} ms" if s.duration_ms is not None else ""
                    bar.write(f"  stage {s.name} {s.status}{took}", file=self._file)
        bar.refresh()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def monotonic() -> float:
    return time.monotonic()


def iter_nonempty(values: Iterable[str] | None) -> list[str] | None:
    return None if values is None else [str(v) for v in values]
