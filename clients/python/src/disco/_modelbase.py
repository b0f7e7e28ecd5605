"""Base class of every model, generated (``_generated``) or public (``disco.models``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class DiscoModel(BaseModel):
    """Base of every resource model: unknown fields are kept, not rejected."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, protected_namespaces=())
