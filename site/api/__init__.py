"""The open door for programs: personal API tokens, bot accounts, and the HTTP API under
/api/v1/ (django-ninja, which also writes its OpenAPI description). See docs/api.md."""
