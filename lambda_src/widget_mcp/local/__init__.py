"""Local mode: the same app on uvicorn, with DynamoDB and S3 served by an embedded moto server."""
