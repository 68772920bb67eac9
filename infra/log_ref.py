"""`make log-ref ID=…` (`python -m infra.log_ref ID…`): the `ref` a game's or form's tool calls carry in the function's
logs, for the saved query `one-game` (widget_mcp/cdk/log_queries.py).

The key is the function's requestState key: REQUEST_STATE_SECRET (its value, as `make dev` or a test sets it), else
REQUEST_STATE_SECRET_ARN (read with your AWS credentials; the stack's is in the function's environment). A reference
holds for the key's value: after a rotation, calls carry new references (a history across it needs the old value).
"""

from __future__ import annotations

import argparse
import os
import sys

from widget_mcp.log_refs import reference
from widget_mcp.secrets import SecretUnavailable, read_secret


def key_from_environment(environ: dict[str, str]) -> bytes:
    value = environ.get("REQUEST_STATE_SECRET")
    if value:
        return value.encode()
    arn = environ.get("REQUEST_STATE_SECRET_ARN")
    if arn:
        return read_secret(arn).encode()
    raise SystemExit(
        "Set REQUEST_STATE_SECRET (the key's value) or REQUEST_STATE_SECRET_ARN (the stack's: aws lambda "
        "get-function-configuration --function-name <function> --query Environment.Variables.REQUEST_STATE_SECRET_ARN)."
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m infra.log_ref", description=__doc__.split("\n\n")[0])
    parser.add_argument("ids", nargs="+", metavar="ID", help="a gameId or formId")
    args = parser.parse_args(argv)
    try:
        key = key_from_environment(dict(os.environ))
    except SecretUnavailable as exc:
        raise SystemExit(str(exc)) from None
    for session_id in args.ids:
        print(f"{session_id}  ref {reference(key, session_id)}")
    print('Logs Insights, saved query one-game: replace "REPLACE-with-make-log-ref" with the ref.')
    return 0


if __name__ == "__main__":
    sys.exit(main())
