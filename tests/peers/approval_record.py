"""Verifying Baton's approval records on an agent's server.

When a person approves, edits or rejects one of the agent's own calls, the
page's AG-UI transport resumes the run with an entry whose
`metadata.approval` is

    {"record": "<JSON text>", "alg": "ES256", "kid": "<key thumbprint>",
     "signature": "<base64url of r || s>"}

signed with the page's approval key (ECDSA P-256; the app publishes its
public half, `approvalKey()`, as a JWK). `verify` is the whole check, with
the `cryptography` package; `pkg/README.md` shows it as the snippet to copy.
The framework test servers use it on every resume they receive.
"""

import base64
import json

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def public_key(jwk):
    """The app's published key (a JWK from `approvalKey()`)."""
    numbers = ec.EllipticCurvePublicNumbers(
        int.from_bytes(b64url(jwk["x"]), "big"), int.from_bytes(b64url(jwk["y"]), "big"), ec.SECP256R1()
    )
    return numbers.public_key()


def verify(approval, jwk):
    """The decision record of `approval` (a resume entry's
    `metadata.approval`), parsed, if the published key `jwk` signed exactly
    its text; None otherwise."""
    if approval.get("alg") != "ES256" or approval.get("kid") != jwk["kid"]:
        return None
    raw = b64url(approval["signature"])
    if len(raw) != 64:
        return None
    # WebCrypto signs r || s; `cryptography` takes DER.
    signature = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    try:
        public_key(jwk).verify(signature, approval["record"].encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        return None
    return json.loads(approval["record"])


def asked_calls(messages):
    """The tool calls the agent made in a `RunAgentInput`'s transcript, by
    id, as a decision record names them."""
    calls = {}
    for message in messages:
        for call in message.get("toolCalls") or []:
            function = call.get("function") or {}
            try:
                arguments = json.loads(function.get("arguments") or "null")
            except ValueError:
                arguments = function.get("arguments")
            calls[call.get("id")] = {"call": call.get("id"), "tool": function.get("name"), "arguments": arguments}
    return calls


def check_resume(request, jwk):
    """What a server sees of the approval records in a `RunAgentInput`
    (`request`, as JSON): per resume entry whether its record verifies and
    matches what the agent asked (the call in its transcript, the interrupt,
    the payload), and how many single-byte changes of the record's text
    still verify (it must be none)."""
    calls = asked_calls(request.get("messages") or [])
    seen = []
    for entry in request.get("resume") or []:
        approval = (entry.get("metadata") or {}).get("approval")
        if approval is None:
            continue
        record = verify(approval, jwk)
        text = approval["record"].encode()
        tampered = 0
        for index in range(len(text)):
            changed = bytearray(text)
            changed[index] ^= 0x01
            try:
                forged = dict(approval, record=changed.decode())
            except UnicodeDecodeError:
                continue
            if verify(forged, jwk) is not None:
                tampered += 1
        seen.append(
            {
                "interruptId": entry.get("interruptId"),
                "verified": record is not None,
                "matches": record is not None
                and record["interruptId"] == entry.get("interruptId")
                and record["call"] == calls.get(record["call"]["call"])
                and record["decision"].get("answer") == entry.get("payload"),
                "bytes": len(text),
                "tamperedVerified": tampered,
                "decision": record and record["decision"],
                "unsigned": approval.get("unsigned"),
            }
        )
    return seen


class Witness:
    """A test server's record of what it verified: the key the page
    published (POST /approval-key) and, per request with approval records,
    what `check_resume` found (GET /approval-verdicts)."""

    def __init__(self):
        self.key = None
        self.verdicts = []

    def saw(self, request):
        if self.key is not None and request.get("resume"):
            self.verdicts.extend(check_resume(request, self.key))
