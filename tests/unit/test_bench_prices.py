"""The prices are kept in one place (bench/prices.py): SECURITY.md's attack costs quote the same figures, and the
cost tables pasted into the guides say the date of the prices they were priced at."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bench import prices

ROOT = Path(__file__).resolve().parents[2]
# How SECURITY.md spells each price, and the constant (per unit) it must equal, in dollars per what it names.
QUOTED = {
    r"\$([\d.]+) per million write units": prices.DYNAMODB_PER_WRITE_UNIT * 1e6,
    r"\$([\d.]+) per million read units": prices.DYNAMODB_PER_READ_UNIT * 1e6,
    r"\$([\d.]+) per arm64 GB-second": prices.LAMBDA_ARM64_PER_GB_SECOND,
    r"arm64 \$([\d.]+) per GB-second": prices.LAMBDA_ARM64_PER_GB_SECOND,
    r"API Gateway \$([\d.]+)": prices.HTTP_API_PER_REQUEST * 1e6,
    r"Lambda \$([\d.]+) per million": prices.LAMBDA_PER_REQUEST * 1e6,
    r"\$([\d.]+) per 10,000 (?:requests|calls)": prices.SECRETS_MANAGER_PER_REQUEST * 10_000,
}


@pytest.mark.parametrize("pattern", sorted(QUOTED))
def test_security_md_quotes_each_price_as_bench_prices_holds_it(pattern: str) -> None:
    text = re.sub(r"\s+", " ", (ROOT / "SECURITY.md").read_text())
    quoted = [float(value) for value in re.findall(pattern, text)]
    assert quoted, f"SECURITY.md no longer quotes {pattern}"
    assert quoted == pytest.approx([QUOTED[pattern]] * len(quoted))


# The benchmarks' page of the docs site, and the deploy guide.
GUIDES = ("docs/benchmarks.md", "infra/README.md")


@pytest.mark.parametrize("readme", GUIDES)
def test_each_pasted_cost_table_names_the_date_of_its_prices(readme: str) -> None:
    text = (ROOT / readme).read_text()
    dates = re.findall(r"list prices as of (\d{4}-\d\d-\d\d)", text)
    assert dates, f"{readme} carries no output of make cost"
    assert set(dates) == {prices.PRICES_AS_OF}


def _cost_rows(text: str) -> dict[str, list[str]]:
    """The pasted `make cost` table's rows, by tool (the guide quotes one run: one table)."""
    rows = re.findall(r"^\| `([^`]+)` \|(.*)\|$", text, flags=re.MULTILINE)
    cost_columns = 11  # calls, units, requests, CPU and billed ms, five dollar columns
    split = {tool: [cell.strip().strip("*") for cell in cells.split("|")] for tool, cells in rows}
    return {tool: cells for tool, cells in split.items() if len(cells) == cost_columns}


def test_the_guides_and_security_md_quote_the_same_make_cost_run() -> None:
    readme, infra = ((ROOT / guide).read_text() for guide in GUIDES)
    security = re.sub(r"\s+", " ", (ROOT / "SECURITY.md").read_text())
    rows = _cost_rows(readme)
    assert rows, f"{GUIDES[0]} carries no make cost table"
    assert _cost_rows(infra) == rows
    readme, infra = (re.sub(r"\s+", " ", text) for text in (readme, infra))
    run = re.search(r"The run of (\d{4}-\d\d-\d\d) at ([0-9a-f]{7}) \(`make cost`\)", readme)
    assert run, f"{GUIDES[0]} names the date and commit of its make cost run"
    assert f"The run of {run[1]} at {run[2]} (`make cost`)" in infra
    assert f"`make cost` on {run[1]} at {run[2]}" in security
    assert f"make cost` ({run[1]} at {run[2]}" in infra, "the scale arithmetic quotes the same run"
    friend, engine = rows["chess_move, friend"], rows["chess_move"]
    assert f"a move between two people {float(friend[2]):.1f} write units" in security
    assert f"{friend[5]} billed ms, ${friend[-1]} per million" in security
    assert f"a move against the engine {engine[5]} billed ms, ${engine[-1]} per million" in security
    assert f"a move between two people bills {friend[5]} ms" in infra
    assert f"a move against the engine {engine[5]} ms" in infra
