"""An app's own settings: read from the environment under the app's name and validated once, when its book is
built (`context.app_settings(...)` in `tool_book`), so a bad value stops the server at start, naming the variable,
rather than failing a call. A field `quota_live_items` is read from `TEAM_POLL_QUOTA_LIVE_ITEMS` for the app
`team_poll`."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from widget_mcp.settings import SettingsError

QUOTA_LIVE_ITEMS_DEFAULT = 100


class AppSettings(BaseModel):
    """Every app has these; subclass it to add the app's own (each field capped, like the server's settings)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    # Live documents each owner keeps in this app (callers without identity: per source address): past it, a
    # create is refused with quota_exceeded (`StateOwner.create`). Each costs at most one item budget of storage.
    quota_live_items: int = Field(default=QUOTA_LIVE_ITEMS_DEFAULT, ge=1, le=1000)


S = TypeVar("S", bound=AppSettings)


def variable_of(app: str, field: str) -> str:
    """The environment variable of an app's setting: TEAM_POLL_QUOTA_LIVE_ITEMS."""
    return f"{app}_{field}".upper()


def read_app_settings(app: str, model: type[S], environ: Mapping[str, str] | None = None) -> S:
    """`model` from the variables `<APP>_<FIELD>` (any letter case); SettingsError naming the variable when a value
    is refused."""
    found = {key.upper(): value for key, value in (os.environ if environ is None else environ).items()}
    given = {name: found[variable_of(app, name)] for name in model.model_fields if variable_of(app, name) in found}
    try:
        return model.model_validate(given)
    except ValidationError as exc:
        problems = "; ".join(f"{variable_of(app, str(e['loc'][0]))}: {e['msg']}" for e in exc.errors())
        raise SettingsError(problems) from None
