from .client import Client, Paginator

__all__ = ["Client", "Paginator"]
