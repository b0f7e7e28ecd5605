"""Unit tests of disco.ledger: checkpoint parsing, RFC 6962 consistency proofs, and
client.ledger.checkpoint / verify_consistency against a mocked service (issue 17)."""

from __future__ import annotations

import base64
import hashlib
from typing import Any

import httpx
import pytest

import disco
from disco.ledger import (
    EMPTY_ROOT,
    Checkpoint,
    LedgerConsistencyError,
    check_consistency,
    parse_checkpoint,
    verify_consistency_proof,
)
from helpers import client, error

# Reference RFC 6962 Merkle tree (section 2.1), written from the RFC's recursive
# definitions, independent of the iterative verifier under test.


def leaf_hash(data: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def split(n: int) -> int:
    """The largest power of two smaller than n."""
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def mth(leaves: list[bytes]) -> bytes:
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return leaves[0]
    k = split(len(leaves))
    return node_hash(mth(leaves[:k]), mth(leaves[k:]))


def subproof(m: int, leaves: list[bytes], complete: bool) -> list[bytes]:
    n = len(leaves)
    if m == n:
        return [] if complete else [mth(leaves)]
    k = split(n)
    if m <= k:
        return subproof(m, leaves[:k], complete) + [mth(leaves[k:])]
    return subproof(m - k, leaves[k:], False) + [mth(leaves[:k])]


def b64(h: bytes) -> str:
    return base64.b64encode(h).decode()


def entries(n: int, tag: str = "entry") -> list[bytes]:
    return [leaf_hash(f"{tag} {i}".encode()) for i in range(n)]


# Proofs made by golang.org/x/mod/sumdb/tlog (ProveTree) over leaves RecordHash("entry i"),
# as the service makes them: (old size, old root, new size, new root, proof).
GO_VECTORS = [
    (3, "lPvQ3YNvUDAWkubQ6t5yjuGexSv/8WBu2AfIV11aqhk=", 7, "mMl/C6MXXNCLAx3QhLncTmSbZNGijm6mlGRlAxc6tYc=",
     ["V8efTzGuApxdS9MLBzwnyU35NDiytGl+Hh7vW8A5SkE=", "YcoROfaBWEHVuvLQ0tm9nf7pfImN1ve6DAqpQe5sAes=",
      "WkdmL9ijF9lgSaP59HxV3GfKZgUbqjaD27GbL+CaB7A=", "lK+4osoFHAVFjqOdzRmxvWjn4zUp8QtDnSphWlH2NuI="]),
    (4, "l5nzB1F+9RfCIF35tndivzR1ayAJn7ffzOdrzr0nOy4=", 8, "tpcyzlyRQWLKmsz69OldP5h01ogFQ3CIqv8YSk25Z3M=",
     ["GhZ/vGuCwqdE9v+gpidhde2wC9MFkqXnT3ohqdIDqCg="]),
    (6, "y+7JnbPk1n26qmDBa11M9zesLdwVB7eK83V2PrrRwB4=", 13, "wMEonwBgX419h4C59CZMc2zPuEzpFwjCsn5kJr/H2Kg=",
     ["3QN52DrH8WTn7qMM3O+1dQglTEj3Zq/M09l2Nl4yjMw=", "/w4ywg/2W5esELOyZ3uHKqPVoCh9lFesukflfPSkpz8=",
      "l5nzB1F+9RfCIF35tndivzR1ayAJn7ffzOdrzr0nOy4=", "ptHeE8xxqg97JCQwB7g6+9U/EkhyVHQq0jihTdMoi3Y="]),
    (1, "dziFphNIniTOLPdhmdakI/BC5LvxLX7s7pEu8nbGVwE=", 13, "wMEonwBgX419h4C59CZMc2zPuEzpFwjCsn5kJr/H2Kg=",
     ["Lfs2xvZsrDYUKc9G34aKuCQtOmRB8Qmcj7P5jsXRCKQ=", "3b3oD8zesxmO9puOHwk0+84pbGur+3OFdKT2KXImZ5M=",
      "GhZ/vGuCwqdE9v+gpidhde2wC9MFkqXnT3ohqdIDqCg=", "ptHeE8xxqg97JCQwB7g6+9U/EkhyVHQq0jihTdMoi3Y="]),
    (12, "Z1ITGNKsIBtsb/ynvfF/2RfXgAasM93eLJ2J5p4Di5E=", 13, "wMEonwBgX419h4C59CZMc2zPuEzpFwjCsn5kJr/H2Kg=",
     ["wUangc8yvkucIt6sH6xVv48vPP588PCBqV+nTOLZ0/w=", "WRUsZPaQ/m6ZQLOsXIXDfh3b1SX4F7+Z4OTi2CPTzw8=",
      "tpcyzlyRQWLKmsz69OldP5h01ogFQ3CIqv8YSk25Z3M="]),
]


@pytest.mark.parametrize("old_size,old_root,new_size,new_root,proof", GO_VECTORS)
def test_go_tlog_proofs_verify(old_size: int, old_root: str, new_size: int, new_root: str, proof: list[str]) -> None:
    leaves = entries(13)
    # The service's roots are RFC 6962 roots: the reference tree gives the same.
    assert b64(mth(leaves[:old_size])) == old_root and b64(mth(leaves[:new_size])) == new_root
    assert [b64(h) for h in subproof(old_size, leaves[:new_size], True)] == proof
    raw = [base64.b64decode(h) for h in proof]
    assert verify_consistency_proof(old_size, base64.b64decode(old_root), new_size, base64.b64decode(new_root), raw)


def test_every_proof_up_to_24_leaves_verifies_and_every_change_fails() -> None:
    leaves = entries(24)
    for n in range(1, 25):
        new_root = mth(leaves[:n])
        for m in range(1, n + 1):
            old_root = mth(leaves[:m])
            proof = subproof(m, leaves[:n], True)
            assert verify_consistency_proof(m, old_root, n, new_root, proof), (m, n)
            if m == n:
                continue
            flipped = bytes([old_root[0] ^ 1]) + old_root[1:]
            assert not verify_consistency_proof(m, flipped, n, new_root, proof), ("old root", m, n)
            assert not verify_consistency_proof(m, old_root, n, flipped, proof), ("new root", m, n)
            for i in range(len(proof)):
                bad = list(proof)
                bad[i] = bytes([bad[i][0] ^ 1]) + bad[i][1:]
                assert not verify_consistency_proof(m, old_root, n, new_root, bad), ("hash", i, m, n)
            assert not verify_consistency_proof(m, old_root, n, new_root, proof[:-1]), ("short", m, n)
            assert not verify_consistency_proof(m, old_root, n, new_root, proof + [proof[0]]), ("long", m, n)


def test_rewritten_prefix_fails() -> None:
    honest, forged = entries(10), entries(10)
    forged[3] = leaf_hash(b"entry 3, rewritten")
    kept_root = mth(honest[:6])
    # Every hash the forged tree can offer fails against the kept root.
    assert not verify_consistency_proof(6, kept_root, 10, mth(forged), subproof(6, forged, True))
    assert verify_consistency_proof(6, mth(forged[:6]), 10, mth(forged), subproof(6, forged, True))


def test_edges() -> None:
    root = mth(entries(5))
    assert verify_consistency_proof(0, EMPTY_ROOT, 5, root, [])
    assert verify_consistency_proof(5, root, 5, root, [])
    assert not verify_consistency_proof(5, root, 5, EMPTY_ROOT, [])
    assert not verify_consistency_proof(5, root, 4, root, [])
    assert not verify_consistency_proof(2, root, 5, root, [])
    assert not verify_consistency_proof(2, root, 5, root, [b"short"])
    assert EMPTY_ROOT == hashlib.sha256(b"").digest()


def note(project: str, size: int, root: bytes, origin: str = "disco-ledger/") -> str:
    sig = base64.b64encode(bytes.fromhex("1f2e3d4c") + b"\x07" * 64).decode()
    return f"{origin}{project}\n{size}\n{b64(root)}\n\n\u2014 disco-ledger {sig}\n"


def test_parse_checkpoint() -> None:
    root = mth(entries(3))
    cp = parse_checkpoint(note("proj_1", 3, root))
    assert (cp.origin, cp.project_id, cp.size, cp.root_hash, cp.root_hash_b64) == (
        "disco-ledger/proj_1", "proj_1", 3, root, b64(root)
    )
    assert cp.signatures[0].name == "disco-ledger" and cp.signatures[0].key_hash == 0x1F2E3D4C
    assert cp.note == note("proj_1", 3, root)
    assert parse_checkpoint(note("proj_1", 3, root, origin="disco ledger ")).project_id == "proj_1"
    assert parse_checkpoint(note("proj_1", 3, root).rstrip("\n")).size == 3  # lost final newline
    with_ext = note("proj_1", 3, root).replace("\n\n", "\nextension line\n\n")
    assert parse_checkpoint(with_ext).size == 3
    good = note("proj_1", 3, root)
    for bad in [
        "",
        good.replace("\n\n", "\n"),  # no signature block
        good.replace("disco-ledger/proj_1", "example.com/log"),
        good.replace("disco-ledger/proj_1", "disco-ledger/"),
        good.replace("disco-ledger/proj_1", "disco-ledger/proj 1"),
        good.replace("\n3\n", "\n03\n"),
        good.replace("\n3\n", "\n-3\n"),
        good.replace("\n3\n", "\n\u0663\n"),  # a non-ASCII digit
        good.replace(b64(root), "not base64!"),
        good.replace(b64(root), b64(root[:16])),
        good.replace("\u2014 disco-ledger", "- disco-ledger"),
        good.replace("\n\n", "\n\n\n"),  # empty extension line
        good.split("\n\n")[0] + "\n\n",  # no signature
        good + "x" * 70000,
    ]:
        with pytest.raises(ValueError):
            parse_checkpoint(bad)


def test_check_consistency_errors() -> None:
    leaves = entries(8)
    kept = parse_checkpoint(note("proj_1", 5, mth(leaves[:5])))
    grown = parse_checkpoint(note("proj_1", 8, mth(leaves)))
    proof = [b64(h) for h in subproof(5, leaves, True)]
    check_consistency(kept, grown, proof)
    with pytest.raises(LedgerConsistencyError) as e:
        check_consistency(kept, parse_checkpoint(note("proj_1", 4, mth(leaves[:4]))), [])
    assert e.value.code == "ledger_truncated" and "lost entries" in str(e.value)
    with pytest.raises(LedgerConsistencyError) as e:
        check_consistency(kept, grown, proof[1:])
    assert e.value.code == "ledger_rewritten" and "was rewritten" in str(e.value)
    with pytest.raises(LedgerConsistencyError):
        check_consistency(kept, grown, ["not base64!"])
    with pytest.raises(LedgerConsistencyError):
        check_consistency(kept, parse_checkpoint(note("proj_2", 8, mth(leaves))), proof)
    assert isinstance(e.value, disco.DiscoError)


class FakeLedger:
    """The service's four ledger routes over a reference tree the test can change."""

    def __init__(self, leaves: list[bytes]) -> None:
        self.leaves = leaves

    def __call__(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        n = len(self.leaves)
        if path == "/v1/ledger/verifier-key":
            return httpx.Response(200, json={"verifier_key": "disco-ledger+1f2e3d4c+AAAA"})
        if path == "/v1/projects/proj_1/ledger/checkpoint":
            return httpx.Response(200, text=note("proj_1", n, mth(self.leaves)), headers={"content-type": "text/plain"})
        if path == "/v1/projects/proj_1/ledger/verify":
            # The service's verification: always valid, whatever happened to the leaves.
            root = mth(self.leaves)
            body: dict[str, Any] = {"project_id": "proj_1", "valid": True, "size": n, "root_hash": b64(root),
                                    "checkpoint": note("proj_1", n, root)}
            return httpx.Response(200, json=body)
        if path == "/v1/projects/proj_1/ledger/consistency":
            old, new = int(request.url.params["old_size"]), int(request.url.params["new_size"])
            if new > n or old > new:
                return error(400, "validation_error")
            return httpx.Response(200, json={
                "old_size": old, "new_size": new, "old_root_hash": b64(mth(self.leaves[:old])),
                "new_root_hash": b64(mth(self.leaves[:new])),
                "hashes": [b64(h) for h in subproof(old, self.leaves[:new], True)],
                "checkpoint": note("proj_1", new, mth(self.leaves[:new]))})
        return error(404, "not_found")


def test_client_checkpoint_and_verify_consistency() -> None:
    fake = FakeLedger(entries(5))
    c, rec = client(fake)
    assert c.ledger.verifier_key() == "disco-ledger+1f2e3d4c+AAAA"
    kept = c.ledger.checkpoint("proj_1")
    assert isinstance(kept, Checkpoint) and kept.size == 5 and kept.root_hash == mth(fake.leaves)

    same = c.ledger.verify_consistency("proj_1", kept.note)  # nothing appended: no proof needed
    assert same.appended == 0 and same.proof == ()

    fake.leaves = entries(9)  # a legitimate append
    grown = c.ledger.verify_consistency("proj_1", kept)
    assert grown.appended == 4 and grown.current.size == 9 and grown.proof
    assert "old_size=5" in str(rec.requests[-1].url) and "new_size=9" in str(rec.requests[-1].url)

    # Rewritten behind the service: entry 2 changed, chain and tree recomputed. The
    # service's verification still says valid; the kept checkpoint catches it.
    fake.leaves = entries(9)
    fake.leaves[2] = leaf_hash(b"entry 2, rewritten")
    assert c.ledger.verify("proj_1").valid
    with pytest.raises(LedgerConsistencyError) as e:
        c.ledger.verify_consistency("proj_1", kept.note)
    assert e.value.code == "ledger_rewritten"

    fake.leaves = entries(3)  # truncated
    assert c.ledger.verify("proj_1").valid
    with pytest.raises(LedgerConsistencyError) as e:
        c.ledger.verify_consistency("proj_1", kept.note)
    assert e.value.code == "ledger_truncated"

    with pytest.raises(ValueError):
        c.ledger.verify_consistency("proj_2", kept.note)


def test_verify_consistency_surfaces_integrity_errors() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return error(500, "ledger_integrity_error")

    c, _ = client(handler)
    kept = note("proj_1", 2, mth(entries(2)))
    with pytest.raises(disco.LedgerIntegrityError):
        c.ledger.verify_consistency("proj_1", kept)
