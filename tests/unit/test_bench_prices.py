"""The prices are kept in one place (bench/prices.py): SECURITY.md's attack costs quote the same figures, and the
cost tables pasted into the READMEs say the date of the prices they were priced at."""

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


@pytest.mark.parametrize("readme", ["README.md", "infra/README.md"])
def test_each_pasted_cost_table_names_the_date_of_its_prices(readme: str) -> None:
    text = (ROOT / readme).read_text()
    dates = re.findall(r"list prices as of (\d{4}-\d\d-\d\d)", text)
    assert dates, f"{readme} carries no output of make cost"
    assert set(dates) == {prices.PRICES_AS_OF}
