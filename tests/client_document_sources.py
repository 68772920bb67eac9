"""The client documents' port two ways, for the same contract tests: a fake serving pages from memory, and the real
https source against a local TLS server (a self-signed certificate for `docs.test`, resolved to 127.0.0.1)."""

from __future__ import annotations

import datetime
import ssl
import tempfile
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from widget_mcp.auth.client_documents import (
    MAX_DOCUMENT_BYTES,
    DocumentUnavailable,
    check_answer,
    is_public_address,
)
from widget_mcp.auth.client_documents_https import HttpsDocumentSource


@dataclass(frozen=True)
class Page:
    status: int = 200
    content_type: str = "application/json"
    body: bytes = b""
    location: str = ""


@dataclass
class FakeDocumentSource:
    """Pages by URL and addresses by host; the same bounds as the real source, and a count of fetches."""

    pages: dict[str, Page] = field(default_factory=dict)
    addresses: dict[str, Sequence[str]] = field(default_factory=dict)
    fetched: list[str] = field(default_factory=list)

    async def fetch(self, url: str) -> bytes:
        self.fetched.append(url)
        parts = urlsplit(url)
        if parts.scheme != "https" or not parts.hostname:
            raise DocumentUnavailable("only https URLs are fetched")
        found = self.addresses.get(parts.hostname, ())
        if not found:
            raise DocumentUnavailable(f"the client's host {parts.hostname} does not resolve")
        if not all(is_public_address(a) for a in found):
            raise DocumentUnavailable(f"the client's host {parts.hostname} resolves to an address that is not public")
        page = self.pages.get(url, Page(status=404))
        check_answer(page.status, page.content_type, len(page.body))
        if len(page.body) > MAX_DOCUMENT_BYTES:
            raise DocumentUnavailable(f"the document is over the limit of {MAX_DOCUMENT_BYTES} bytes")
        return page.body


def _certificate(directory: Path, host: str) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(host)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "cert.pem", directory / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_path, key_path


@contextmanager
def tls_server(pages: dict[str, Page], host: str = "docs.test") -> Iterator[tuple[int, ssl.SSLContext]]:
    """Serves `pages` (by path) over TLS on 127.0.0.1; yields the port and a client context trusting the server."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            page = pages.get(self.path, Page(status=404))
            self.send_response(page.status)
            self.send_header("content-type", page.content_type)
            if page.location:
                self.send_header("location", page.location)
            self.send_header("content-length", str(len(page.body)))
            self.end_headers()
            self.wfile.write(page.body)

        def log_message(self, *args: object) -> None:
            return None

    with tempfile.TemporaryDirectory() as scratch:
        cert, key = _certificate(Path(scratch), host)
        server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        server_context.load_cert_chain(cert, key)
        client_context = ssl.create_default_context(cafile=str(cert))
        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.socket = server_context.wrap_socket(server.socket, server_side=True)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield server.server_address[1], client_context
        finally:
            server.shutdown()
            server.server_close()
            thread.join()


def real_source(addresses: dict[str, Sequence[str]], context: ssl.SSLContext) -> HttpsDocumentSource:
    """The real source, resolving from `addresses` and treating the test server's 127.0.0.1 as public."""

    async def resolve(host: str, port: int) -> Sequence[str]:
        if host not in addresses:
            raise OSError("no such host")
        return addresses[host]

    return HttpsDocumentSource(
        resolve=resolve, allowed=lambda a: a == "127.0.0.1" or is_public_address(a), verify=context
    )
