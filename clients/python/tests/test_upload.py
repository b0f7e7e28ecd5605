"""datasets.upload: multipart parts, format from extension, DataFrames, retries."""

from __future__ import annotations

import io
import json
from email.parser import BytesParser
from email.policy import HTTP
from pathlib import Path
from typing import Any

import httpx
import pytest

import disco
from helpers import async_client, client, error, sequence

DATASET = {"id": "ds_" + "d" * 26, "name": "pend", "format": "csv", "status": "profiling", "size_bytes": 20, "rows": 0, "variables": [], "profile_ready": False}


def parts(request: httpx.Request) -> dict[str, tuple[dict[str, str], bytes]]:
    ctype = request.headers["Content-Type"]
    msg = BytesParser(policy=HTTP).parsebytes(b"Content-Type: " + ctype.encode() + b"\r\n\r\n" + request.content)
    out: dict[str, tuple[dict[str, str], bytes]] = {}
    for p in msg.iter_parts():
        name = p.get_param("name", header="content-disposition")
        out[str(name)] = ({k.lower(): str(v) for k, v in p.items()}, p.get_payload(decode=True))
    return out


def ok(request: httpx.Request) -> httpx.Response:
    return httpx.Response(201, json=DATASET)


def test_upload_path_streams_file_with_metadata(tmp_path: Path) -> None:
    f = tmp_path / "pendulum.csv"
    f.write_text("t,theta\n0,1\n1,0.5\n")
    c, rec = client(ok)
    ds = c.datasets.upload("proj_x", f, variables=["t", "theta"])
    assert isinstance(ds, disco.Dataset) and ds.status == "profiling"
    req = rec.requests[0]
    assert req.method == "POST" and req.url.path == "/v1/projects/proj_x/datasets"
    assert req.headers["Content-Type"].startswith("multipart/form-data; boundary=")
    ps = parts(req)
    assert list(ps) == ["metadata", "file"]
    meta_headers, meta = ps["metadata"]
    assert json.loads(meta) == {"name": "pendulum", "format": "csv", "variables": ["t", "theta"]}
    assert "filename" not in meta_headers["content-disposition"]
    file_headers, content = ps["file"]
    assert 'filename="pendulum.csv"' in file_headers["content-disposition"]
    assert content == f.read_bytes()


def test_format_from_extension_and_explicit(tmp_path: Path) -> None:
    f = tmp_path / "x.parquet"
    f.write_bytes(b"PAR1....PAR1")
    c, rec = client(ok)
    c.datasets.upload("proj_x", f, name="named")
    meta = json.loads(parts(rec.requests[0])["metadata"][1])
    assert meta == {"name": "named", "format": "parquet"}
    g = tmp_path / "noext"
    g.write_text("a\n1\n")
    with pytest.raises(ValueError):
        c.datasets.upload("proj_x", g)
    c.datasets.upload("proj_x", g, format="csv")
    assert json.loads(parts(rec.requests[1])["metadata"][1])["format"] == "csv"


def test_upload_bytes_and_file_object() -> None:
    c, rec = client(ok)
    c.datasets.upload("proj_x", b"a,b\n1,2\n", name="raw", format="csv")
    assert parts(rec.requests[0])["file"][1] == b"a,b\n1,2\n"
    fo = io.BytesIO(b"a\n1\n")
    fo.name = "obj.csv"  # type: ignore[attr-defined]
    c.datasets.upload("proj_x", fo)
    assert json.loads(parts(rec.requests[1])["metadata"][1])["name"] == "obj"


class FakeFrame:
    """Duck-typed DataFrame: what the client needs (to_csv, columns)."""

    columns = ["x", "y"]

    def to_csv(self, index: bool = True) -> str:
        assert index is False
        return "x,y\n1,2\n3,4\n"


def test_upload_dataframe_like() -> None:
    c, rec = client(ok)
    c.datasets.upload("proj_x", FakeFrame(), name="frame")
    ps = parts(rec.requests[0])
    assert json.loads(ps["metadata"][1]) == {"name": "frame", "format": "csv", "variables": ["x", "y"]}
    assert ps["file"][1] == b"x,y\n1,2\n3,4\n"


def test_upload_pandas_dataframe() -> None:
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"t": [0.0, 1.0], "v": [1.5, 2.5]})
    c, rec = client(ok)
    c.datasets.upload("proj_x", df, name="pd")
    ps = parts(rec.requests[0])
    assert ps["file"][1].decode().splitlines() == ["t,v", "0.0,1.5", "1.0,2.5"]


def test_retried_upload_is_byte_identical_with_same_key(tmp_path: Path) -> None:
    f = tmp_path / "d.csv"
    f.write_text("a,b\n" + "1,2\n" * 1000)
    c, rec = client(sequence(error(503, "service_unavailable"), ok))
    c.datasets.upload("proj_x", f)
    assert len(rec.requests) == 2
    assert rec.bodies[0] == rec.bodies[1] and len(rec.bodies[0]) > 4000
    assert rec.requests[0].headers["Idempotency-Key"] == rec.requests[1].headers["Idempotency-Key"]
    assert rec.requests[0].headers["Content-Type"] == rec.requests[1].headers["Content-Type"]


def test_unsupported_format_error() -> None:
    c, _ = client(lambda r: error(422, "dataset_format_unsupported", format="xlsx"))
    with pytest.raises(disco.UnprocessableEntityError) as ei:
        c.datasets.upload("proj_x", b"x", name="n", format="xlsx")
    assert ei.value.details["format"] == "xlsx"


def test_wrong_source_type() -> None:
    c, _ = client(ok)
    with pytest.raises(TypeError):
        c.datasets.upload("proj_x", 42)  # type: ignore[arg-type]


def test_dataset_wait(tmp_path: Path) -> None:
    states: list[dict[str, Any]] = [dict(DATASET), dict(DATASET, status="ready", profile_ready=True)]
    c, rec = client(sequence(*[httpx.Response(200, json=s) for s in states]))
    ds = c.datasets.wait("proj_x", DATASET["id"], poll_interval=0.5)
    assert ds.status == "ready" and rec.sleeps == [0.5]
    c2, _ = client(lambda r: httpx.Response(200, json=dict(DATASET, status="failed", message="bad csv")))
    with pytest.raises(disco.DiscoError, match="bad csv"):
        c2.datasets.wait("proj_x", DATASET["id"])


UNITS = {"F": "kg*m/s^2", "m": "kg", "a": "m/s^2"}


def test_upload_sends_units_in_the_metadata() -> None:
    c, rec = client(lambda r: httpx.Response(201, json={**DATASET, "units": UNITS}))
    ds = c.datasets.upload("proj_x", b"F,m,a\n2,1,2\n", name="newton", format="csv", units=UNITS)
    assert json.loads(parts(rec.requests[0])["metadata"][1]) == {"name": "newton", "format": "csv", "units": UNITS}
    assert ds.units == UNITS
    c.datasets.upload("proj_x", b"F\n1\n", name="plain", format="csv")
    assert "units" not in json.loads(parts(rec.requests[1])["metadata"][1])
    with pytest.raises(TypeError):
        c.datasets.upload("proj_x", b"F\n1\n", name="x", format="csv", units=[("F", "N")])  # type: ignore[arg-type]


def test_bad_unit_raises_the_validation_error() -> None:
    message = 'the metadata part is invalid: the unit "kg*m/s^" of column "F" does not parse'
    c, _ = client(lambda r: error(400, "validation_error", message=message))
    with pytest.raises(disco.BadRequestError) as ei:
        c.datasets.upload("proj_x", b"F\n1\n", name="x", format="csv", units={"F": "kg*m/s^"})
    assert ei.value.code == "validation_error"


@pytest.mark.anyio
async def test_async_upload_sends_units() -> None:
    c, rec = async_client(lambda r: httpx.Response(201, json={**DATASET, "units": UNITS}))
    ds = await c.datasets.upload("proj_x", b"F,m,a\n2,1,2\n", name="newton", format="csv", units=UNITS)
    await c.aclose()
    assert json.loads(parts(rec.requests[0])["metadata"][1])["units"] == UNITS
    assert ds.units == UNITS
