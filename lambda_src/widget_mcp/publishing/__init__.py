"""Publishing to the app directories: ownership proofs served by the endpoint, the listing and review cases apps
declare, and the submission files built from them (`make submission`)."""
