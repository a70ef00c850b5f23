"""Keep secrets out of logs and error messages: catalog settings are masked by key and by value."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from urllib.parse import quote

from lakeops.catalogs.config import SECRET_KEY

MASK = "***"
_URL_PASSWORD = re.compile(r"(://[^:/?#@\s]*:)[^@/\s]+@")


def is_secret_key(key: str) -> bool:
    """True for property names whose values are secrets: credential, token, jdbc.password, s3.secret-access-key, ..."""
    return bool(SECRET_KEY.search(key))


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """text with every given secret value (plain or URL-quoted) and any password inside a URL replaced by ***."""
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        for form in {secret, quote(secret, safe=""), quote(secret)}:
            text = text.replace(form, MASK)
    return _URL_PASSWORD.sub(rf"\1{MASK}@", text)


def mask_properties(properties: Mapping[str, str], secrets: Iterable[str] = ()) -> dict[str, str]:
    """A copy fit for a log line: secret keys' values masked, secret values masked wherever they appear."""
    held = list(secrets)
    return {key: MASK if is_secret_key(key) else redact(str(value), held) for key, value in properties.items()}
