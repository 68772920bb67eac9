"""State persistence: DynamoDB adapters and in-memory fakes behind the apps' repository ports."""
