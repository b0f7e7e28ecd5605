"""The public models are the classes generated from the service's OpenAPI document
(disco._generated, see hack/gen-python-models.sh) under the client's names: they declare no
field the document lacks, and evidence carries every claim type's fields, typed."""

from __future__ import annotations

import pydantic

import disco
from disco import _generated as g
from disco import models


def _generated_bases(cls: type) -> list[type[pydantic.BaseModel]]:
    return [b for b in cls.__mro__[1:] if b.__module__ == g.__name__]


def test_every_public_model_is_a_generated_model() -> None:
    # Event (the webhook envelope) and Page (generic lists) are not OpenAPI schemas.
    handwritten = {"Event", "Page", "DiscoModel"}
    for name in models.__all__:
        obj = getattr(models, name)
        if not isinstance(obj, type) or not issubclass(obj, pydantic.BaseModel) or name in handwritten:
            continue
        bases = _generated_bases(obj)
        assert bases, f"disco.models.{name} does not subclass a generated model"


def test_public_models_declare_no_field_the_document_lacks() -> None:
    for name in models.__all__:
        obj = getattr(models, name)
        bases = _generated_bases(obj) if isinstance(obj, type) else []
        if not bases:
            continue
        documented = set().union(*(b.model_fields for b in bases))
        invented = set(obj.model_fields) - documented
        assert not invented, f"disco.models.{name} declares {sorted(invented)}, which the OpenAPI schema lacks"


def test_public_models_restate_no_generated_field_unchanged() -> None:
    # A field a public model declares again must change what the generated one says (its
    # type, default or being required); otherwise the generated model already has it.
    for name in models.__all__:
        obj = getattr(models, name)
        bases = _generated_bases(obj) if isinstance(obj, type) else []
        for field in obj.__dict__.get("__annotations__", {}) if bases else ():
            base = next(b for b in bases if field in b.model_fields)
            mine, generated = obj.model_fields[field], base.model_fields[field]
            same = (mine.annotation, mine.default, mine.default_factory, mine.is_required()) == (
                generated.annotation,
                generated.default,
                generated.default_factory,
                generated.is_required(),
            )
            assert not same, f"disco.models.{name}.{field} restates {base.__name__}.{field} unchanged"


def test_claim_evidence_has_every_claim_types_fields() -> None:
    per_type = set(g.LawEvidence.model_fields) | set(g.CausalEvidence.model_fields) | set(g.ConservationEvidence.model_fields)
    assert set(models.ClaimEvidence.model_fields) == per_type
    assert {"held_out_r_squared", "complexity", "p_value", "oriented_by", "bootstrap_stability", "negative_controls"} <= per_type


def test_engine_evidence_parses_typed() -> None:
    claim = disco.Claim.model_validate(
        {
            "id": "clm_1",
            "type": "causal",
            "evidence": {
                "causal_confidence": 0.8,
                "granger_score": 12.5,
                "intervention_effect_size": 0.4,
                "p_value": 0.001,
                "oriented_by": "lingam",
                "bootstrap_stability": 0.7,
                "negative_controls_passed": True,
                "negative_controls": {"placebo_cause": {"passed": True, "p_value": 0.02}},
            },
        }
    )
    ev = claim.evidence
    assert isinstance(ev, models.ClaimEvidence)
    assert ev.oriented_by == "lingam" and ev.p_value == 0.001 and ev.bootstrap_stability == 0.7
    assert ev.negative_controls is not None and ev.negative_controls["placebo_cause"].p_value == 0.02
    assert ev.r_squared is None
