"""AWS list prices in us-east-1, in one place: `make cost` (bench/cost.py) prices a tool call with them, and
SECURITY.md's attack costs quote them. Dated: re-read the pricing pages when this date grows old, and change the
figures here, in the README's and infra/README's cost tables (`make cost`) and in SECURITY.md together."""

from __future__ import annotations

# The date the newest of these took effect (DynamoDB's on-demand prices were halved on 2024-11-01), as read from
# aws.amazon.com/{lambda,api-gateway,dynamodb,secrets-manager,cloudwatch}/pricing/.
PRICES_AS_OF = "2024-11-01"
REGION = "us-east-1"

LAMBDA_ARM64_PER_GB_SECOND = 0.0000133334  # first 6 billion GB-seconds a month
LAMBDA_PER_REQUEST = 0.20 / 1e6
HTTP_API_PER_REQUEST = 1.00 / 1e6  # HTTP API, first 300 million a month; each 512 KB of a request counts as one
DYNAMODB_PER_WRITE_UNIT = 0.625 / 1e6  # on demand
DYNAMODB_PER_READ_UNIT = 0.125 / 1e6  # on demand; a strongly consistent read of 4 KB is one unit
DYNAMODB_PER_GB_MONTH = 0.25  # standard table class storage
SECRETS_MANAGER_PER_REQUEST = 0.05 / 10_000
SECRETS_MANAGER_PER_SECRET_MONTH = 0.40
LOGS_INGESTED_PER_GB = 0.50  # CloudWatch Logs, standard class
