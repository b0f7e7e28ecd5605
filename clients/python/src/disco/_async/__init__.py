from .client import AsyncClient, AsyncPaginator

__all__ = ["AsyncClient", "AsyncPaginator"]
