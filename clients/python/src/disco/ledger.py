"""Checking the Evidence Ledger from outside, as transparency-log clients do (issue 17).

The service's own verification (``client.ledger.verify``) shows only that the ledger
agrees with itself: someone with database access can rewrite or truncate it, recompute
every hash, and it still verifies. A client that kept an older checkpoint can tell::

    kept = client.ledger.checkpoint(project_id)          # keep kept.note somewhere safe
    ...
    client.ledger.verify_consistency(project_id, kept)   # raises LedgerConsistencyError

A checkpoint is a C2SP tlog-checkpoint, a signed note whose text is the origin
(``disco-ledger/<project_id>``), the number of entries and the base64 root hash of the
RFC 6962 Merkle tree, followed by a blank line and ``— <key name> <base64 signature>`` lines.

This module parses checkpoints and verifies RFC 6962 consistency proofs in pure Python. It
does **not** verify the Ed25519 signatures on checkpoints: the client has no Ed25519
dependency. Check them with ``disco ledger verify --since FILE --key KEY`` (which does all of
this and the signature), or any signed-note implementation, with the key from
``client.ledger.verifier_key()``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from .errors import DiscoError

__all__ = [
    "Checkpoint",
    "ConsistencyCheck",
    "LedgerConsistencyError",
    "NoteSignature",
    "check_consistency",
    "parse_checkpoint",
    "verify_consistency_proof",
]

ORIGIN_PREFIX = "disco-ledger/"
# Checkpoints signed before issue 17 used this origin prefix; they still parse.
_LEGACY_ORIGIN_PREFIX = "disco ledger "
_SIG_PREFIX = "\u2014 "  # em dash and space (C2SP signed-note)
_MAX_NOTE = 64 * 1024
_HASH_SIZE = 32

# RFC 6962 section 2.1: the root of the empty tree is SHA-256 of the empty string.
EMPTY_ROOT = hashlib.sha256(b"").digest()


class LedgerConsistencyError(DiscoError):
    """The ledger no longer extends a checkpoint the client kept: it was rewritten
    (``code`` ``ledger_rewritten``) or lost entries (``ledger_truncated``), or the service
    answered something that does not fit (``ledger_inconsistent``)."""

    def __init__(self, message: str, *, code: str = "ledger_inconsistent") -> None:
        super().__init__(message, code=code)


@dataclass(frozen=True)
class NoteSignature:
    """One signature line of a signed note: key name, 32-bit key hash, signature bytes
    (base64). Not verified by this module."""

    name: str
    key_hash: int
    signature: str


@dataclass(frozen=True)
class Checkpoint:
    """A parsed checkpoint. ``note`` is the full signed text, to keep as it is."""

    origin: str
    project_id: str
    size: int
    root_hash: bytes
    signatures: tuple[NoteSignature, ...]
    note: str

    @property
    def root_hash_b64(self) -> str:
        return base64.b64encode(self.root_hash).decode()


@dataclass(frozen=True)
class ConsistencyCheck:
    """What ``verify_consistency`` checked: the kept checkpoint, the service's current
    one (from its verification of the whole ledger) and the proof hashes linking them."""

    kept: Checkpoint
    current: Checkpoint
    proof: tuple[str, ...]

    @property
    def appended(self) -> int:
        """Entries added since the kept checkpoint."""
        return self.current.size - self.kept.size


def _b64(value: str, what: str) -> bytes:
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"malformed checkpoint: {what} is not base64") from exc


def parse_checkpoint(note: str) -> Checkpoint:
    """Parse a signed checkpoint (C2SP tlog-checkpoint in a C2SP signed note). Raises
    ``ValueError`` when it is not one. Signatures are read, not verified."""
    if len(note) > _MAX_NOTE:
        raise ValueError("malformed checkpoint: too long")
    if not note.endswith("\n"):
        note += "\n"  # tolerate a copy that lost its final newline
    text, sep, sigs = note.rpartition("\n\n")
    if not sep:
        raise ValueError("malformed checkpoint: no blank line before the signatures")
    lines = text.split("\n")
    if len(lines) < 3:
        raise ValueError("malformed checkpoint: want origin, size and root hash lines")
    origin, size_line, root_line = lines[0], lines[1], lines[2]
    if any(not ext for ext in lines[3:]):
        raise ValueError("malformed checkpoint: empty extension line")
    project = ""
    for prefix in (ORIGIN_PREFIX, _LEGACY_ORIGIN_PREFIX):
        if origin.startswith(prefix):
            project = origin[len(prefix) :]
    if not project or " " in project or "+" in project:
        raise ValueError(f"malformed checkpoint: origin {origin!r} is not a disco ledger's")
    if not size_line.isdigit() or not size_line.isascii() or str(int(size_line)) != size_line:
        raise ValueError("malformed checkpoint: size")
    root = _b64(root_line, "the root hash")
    if len(root) != _HASH_SIZE:
        raise ValueError("malformed checkpoint: the root hash is not 32 bytes")
    signatures = []
    for line in sigs.split("\n")[:-1]:
        if not line.startswith(_SIG_PREFIX) or " " not in line[len(_SIG_PREFIX) :]:
            raise ValueError("malformed checkpoint: bad signature line")
        name, b64sig = line[len(_SIG_PREFIX) :].split(" ", 1)
        raw = _b64(b64sig, "a signature")
        if len(raw) < 5:
            raise ValueError("malformed checkpoint: signature too short")
        signatures.append(NoteSignature(name=name, key_hash=int.from_bytes(raw[:4], "big"), signature=b64sig))
    if not signatures:
        raise ValueError("malformed checkpoint: no signature")
    return Checkpoint(
        origin=origin,
        project_id=project,
        size=int(size_line),
        root_hash=root,
        signatures=tuple(signatures),
        note=note,
    )


def _node(left: bytes, right: bytes) -> bytes:
    """RFC 6962 interior node hash: SHA-256(0x01 || left || right)."""
    return hashlib.sha256(b"\x01" + left + right).digest()


def verify_consistency_proof(
    old_size: int, old_root: bytes, new_size: int, new_root: bytes, proof: Sequence[bytes]
) -> bool:
    """True when ``proof`` shows that the tree of ``new_size`` leaves with root ``new_root``
    extends the tree of ``old_size`` leaves with root ``old_root``: the verification
    algorithm of RFC 9162 section 2.1.4.2 for RFC 6962 consistency proofs."""
    if old_size < 0 or new_size < old_size:
        return False
    if old_size == 0:
        return True  # every tree extends the empty tree
    if old_size == new_size:
        return not proof and old_root == new_root
    if not proof or any(len(h) != _HASH_SIZE for h in proof):
        return False
    path = list(proof)
    if old_size & (old_size - 1) == 0:  # a power of two: the old root is a node of the new tree
        path.insert(0, old_root)
    fn, sn = old_size - 1, new_size - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr = _node(c, fr)
            sr = _node(c, sr)
            if not fn & 1:
                while fn != 0 and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            sr = _node(sr, c)
        fn >>= 1
        sn >>= 1
    return sn == 0 and fr == old_root and sr == new_root


def check_consistency(kept: Checkpoint, current: Checkpoint, proof: Sequence[str]) -> None:
    """Raise ``LedgerConsistencyError`` unless ``current`` extends ``kept``: the same
    ledger, no fewer entries, and ``proof`` (base64 hashes from
    ``GET .../ledger/consistency?old_size=kept.size&new_size=current.size``) linking the
    kept root to the current one."""
    if kept.project_id != current.project_id:
        raise LedgerConsistencyError(
            f"the checkpoints are of different ledgers ({kept.project_id!r} and {current.project_id!r})"
        )
    if current.size < kept.size:
        raise LedgerConsistencyError(
            f"the ledger of {kept.project_id} lost entries since the kept checkpoint: it now has "
            f"{current.size} entries, the kept checkpoint has {kept.size} "
            f"(entries {current.size} to {kept.size - 1} are gone)",
            code="ledger_truncated",
        )
    try:
        hashes = [_b64(h, "a proof hash") for h in proof]
    except ValueError as exc:
        raise LedgerConsistencyError(f"the consistency proof is malformed: {exc}") from exc
    if not verify_consistency_proof(kept.size, kept.root_hash, current.size, current.root_hash, hashes):
        raise LedgerConsistencyError(
            f"the ledger of {kept.project_id} was rewritten since the kept checkpoint: the tree of "
            f"{current.size} entries (root {current.root_hash_b64}) does not extend the kept tree of "
            f"{kept.size} entries (root {kept.root_hash_b64}); some of the first {kept.size} entries "
            "were changed or removed",
            code="ledger_rewritten",
        )
