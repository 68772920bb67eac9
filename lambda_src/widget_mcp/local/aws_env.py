"""Local commands (`make dev`, the tests, `make asset-smoke`) never read the user's AWS configuration.

boto3 reads `AWS_PROFILE`, `~/.aws/config` and `~/.aws/credentials` whenever a client is made, even one with an
endpoint on loopback and keys of its own: a profile this machine lacks (or an empty `AWS_PROFILE`) is
`ProfileNotFound` before any request, and real credentials or a real endpoint would reach code that must only ever
talk to moto. So these commands drop every `AWS_*` variable they inherit and run as on a machine without any AWS
configuration: no configuration files, no instance metadata lookups, and (for `make dev` and `make asset-smoke`)
moto's fixed keys and one region; the tests set their own where they make a client.
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping

REGION = "us-east-1"

NO_USER_AWS = {
    "AWS_CONFIG_FILE": os.devnull,
    "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
    "AWS_EC2_METADATA_DISABLED": "true",
}
MOTO_AWS = {
    "AWS_ACCESS_KEY_ID": "local",  # moto accepts any keys
    "AWS_SECRET_ACCESS_KEY": "local",
    "AWS_DEFAULT_REGION": REGION,
}


def isolate_from_user_aws(environ: MutableMapping[str, str] | None = None, *, moto_keys: bool = True) -> None:
    """Drop every `AWS_*` variable of `environ` (this process's by default) and read no AWS configuration file;
    with `moto_keys`, also give boto3 moto's keys and region."""
    env = os.environ if environ is None else environ
    for name in [name for name in env if name.startswith("AWS_")]:
        del env[name]
    env.update(NO_USER_AWS | (MOTO_AWS if moto_keys else {}))
