"""SSH keys for keypairs: fingerprints of given public keys, and generated pairs."""

from __future__ import annotations

import base64
import hashlib

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from stoker.sandbox.http_errors import BadRequest


def fingerprint(public_key: str) -> str:
    """The MD5 fingerprint Nova shows (``aa:bb:...``); 400 for a key it cannot read."""
    try:
        serialization.load_ssh_public_key(public_key.strip().encode())
        blob = base64.b64decode(public_key.split()[1])
    except (ValueError, IndexError, TypeError):
        raise BadRequest("Keypair data is invalid: failed to generate fingerprint") from None
    digest = hashlib.md5(blob, usedforsecurity=False).hexdigest()
    return ":".join(digest[i : i + 2] for i in range(0, len(digest), 2))


def generate() -> tuple[str, str]:
    """A new (private key in PEM, public key in OpenSSH form), as Nova generates them."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    ).decode()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
        .decode()
    )
    return private, f"{public} Generated-by-Nova"
