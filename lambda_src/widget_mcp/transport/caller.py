"""Who sends a request to the endpoint, as far as it is verified; the streams and kept calls are keyed by it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Caller:
    """Who sends a request, as far as it is verified: the signed-in subject, or the user a host token names."""

    subject: str | None = None
    host_subject: str | None = None

    @property
    def owner(self) -> str | None:
        """Whose a kept call is (resumption.py): only this caller may answer it, resume it or read its response;
        None for a caller no one vouched for (then the session and the stream's ids are the capability)."""
        if self.subject is not None:
            return f"user/{self.subject}"
        return f"host/{self.host_subject}" if self.host_subject is not None else None
