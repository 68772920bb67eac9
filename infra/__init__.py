"""The CDK app for widget-mcp (see infra/README.md)."""

import os
import sys
from pathlib import Path

# jsii prints a Node end-of-life banner on every start under Node 20; it is noise for synth and tests.
for _flag in ("END_OF_LIFE", "DEPRECATED", "UNTESTED"):
    os.environ.setdefault(f"JSII_SILENCE_WARNING_{_flag}_NODE_VERSION", "20" if _flag == "END_OF_LIFE" else "1")

# The construct (widget_mcp.cdk) is the toolkit's, in this checkout's lambda_src/ (not an installed package).
_LAMBDA_SRC = str(Path(__file__).resolve().parents[1] / "lambda_src")
if _LAMBDA_SRC not in sys.path:
    sys.path.append(_LAMBDA_SRC)
