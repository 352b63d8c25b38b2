"""The sealed pile's on-disk format: keys, envelopes, MANIFEST.json, and integrity checks.

A pile lives in `<suite>/sealed/`: one envelope per case (`<random name>.json`, the case
encrypted with AES-256-GCM, a clear-text canary), `MANIFEST.json` (hashes of every
envelope and of every case's canonical plaintext, with a digest over all of it) and
`LEDGER.jsonl` (one line per sealed run). Integrity can be checked without the key;
with it, every envelope is decrypted in memory and checked against the manifest.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.errors import InputError, Problem
from evals.seal.ledger import LEDGER, LOCK, ledger_problems
from evals.suite.case import Case, canonical_json, content_sha, whole_case_sha
from evals.suite.folder import LINK_REFUSED, Suite, sealed_link_problems

MANIFEST = "MANIFEST.json"
RETIRED = "retired"
MANIFEST_FORMAT = "evals-seal-manifest/1"
ENVELOPE_FORMAT = "evals-sealed-case/1"
CIPHER = "AES-256-GCM"
KEY_ENV = "EVAL_SEAL_KEY"
# Plaintext is padded to a multiple of this, so ciphertext sizes say little about the case.
PAD = 512
# Entries of sealed/ that belong to no pile; with no pile, sealed/ holds only these.
NEUTRAL = {RETIRED, ".gitkeep", ".gitattributes", LOCK}
# Files in sealed/ that are not envelopes; anything else not in the manifest is an addition.
NOT_ENVELOPES = NEUTRAL | {MANIFEST, LEDGER}


def canary_line(guid: str) -> str:
    """The clear-text marker every envelope carries, so leaked copies can be found by grep."""
    return f"EVALS-SEALED-PILE canary {guid}: held-out eval data; do not read, train or tune on it"


# --- keys -----------------------------------------------------------------------------


def parse_key(text: str, where: str) -> bytes:
    """A 256-bit key from base64 (standard or URL-safe). The message never repeats the key."""
    raw = text.strip()
    padded = raw + "=" * (-len(raw) % 4)
    for decode in (base64.urlsafe_b64decode, base64.b64decode):
        try:
            key = decode(padded)
        except (binascii.Error, ValueError):
            continue
        if len(key) == 32:
            return key
    raise InputError(
        f"{where}: not a seal key (expected 32 bytes in base64; `invoke seal --new-key` makes one)"
    )


def env_key() -> bytes | None:
    """The key from EVAL_SEAL_KEY, or None when it is unset or empty."""
    text = os.environ.get(KEY_ENV, "")
    return parse_key(text, KEY_ENV) if text.strip() else None


def new_key() -> str:
    """A fresh random key, URL-safe base64."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    return base64.urlsafe_b64encode(AESGCM.generate_key(bit_length=256)).decode("ascii")


def _derive(master: bytes, label: str) -> bytes:
    # Imported here, as in every function that encrypts: a run that never opens a pile
    # (the usual one) does not pay for loading cryptography.
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    # Separate subkeys per purpose: a leaked row id key says nothing about the cipher key.
    hkdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=b"evals-seal/v1", info=label.encode())
    return hkdf.derive(master)


@dataclass(frozen=True)
class PileKeys:
    """The subkeys derived from the seal key."""

    cipher: bytes
    mac: bytes
    rows: bytes
    check: bytes

    @classmethod
    def derive(cls, master: bytes) -> PileKeys:
        return cls(
            cipher=_derive(master, "cipher"),
            mac=_derive(master, "manifest-mac"),
            rows=_derive(master, "row-ids"),
            check=_derive(master, "key-check"),
        )

    def key_check(self) -> str:
        """A fingerprint that tells a wrong key from a damaged file; it reveals nothing."""
        return hmac.new(self.check, b"key-check", hashlib.sha256).hexdigest()[:32]

    def opaque(self, pile_id: str, text: str) -> str:
        """A keyed hash: the same case in the same pile always maps to the same value."""
        msg = f"{pile_id}\0{text}".encode()
        return hmac.new(self.rows, msg, hashlib.sha256).hexdigest()


# --- envelopes --------------------------------------------------------------------------


def _aad(pile_id: str, name: str) -> bytes:
    # Binding the file name and the pile makes a renamed or transplanted envelope fail to open.
    return f"{ENVELOPE_FORMAT}\0{pile_id}\0{name}".encode()


def seal_case(data: dict[str, Any], keys: PileKeys, pile_id: str, name: str, guid: str) -> bytes:
    """The envelope file's bytes for one case."""
    plain = canonical_json(data).encode("utf-8")
    plain += b" " * (-len(plain) % PAD)
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    nonce = os.urandom(12)
    ct = AESGCM(keys.cipher).encrypt(nonce, plain, _aad(pile_id, name))
    envelope = {
        "format": ENVELOPE_FORMAT,
        "canary": canary_line(guid),
        "pile_id": pile_id,
        "cipher": CIPHER,
        "nonce": base64.b64encode(nonce).decode("ascii"),
        "ciphertext": base64.b64encode(ct).decode("ascii"),
    }
    return (json.dumps(envelope, indent=2) + "\n").encode("utf-8")


def open_envelope(raw: bytes, keys: PileKeys, pile_id: str, name: str) -> dict[str, Any]:
    """Decrypt one envelope in memory; raises ValueError with a reason that quotes nothing."""
    try:
        env = json.loads(raw.decode("utf-8"))
        nonce = base64.b64decode(env["nonce"], validate=True)
        ct = base64.b64decode(env["ciphertext"], validate=True)
    except (ValueError, KeyError, TypeError, binascii.Error):
        raise ValueError("not a readable envelope") from None
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    try:
        plain = AESGCM(keys.cipher).decrypt(nonce, ct, _aad(pile_id, name))
    except InvalidTag:
        raise ValueError(
            "authentication failed: the file was altered, renamed or moved from another pile"
        ) from None
    data = json.loads(plain.decode("utf-8"))
    if not isinstance(data, dict):
        raise ValueError("decrypted content is not a case object")
    return data


# --- the manifest -----------------------------------------------------------------------


def _body_bytes(manifest: dict[str, Any]) -> bytes:
    body = {k: v for k, v in manifest.items() if k not in ("digest", "mac")}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def manifest_digest(manifest: dict[str, Any]) -> str:
    """SHA-256 over every field but `digest` and `mac`: any edit to the entries changes it."""
    return hashlib.sha256(_body_bytes(manifest)).hexdigest()


def manifest_mac(manifest: dict[str, Any], keys: PileKeys) -> str:
    """HMAC over the same bytes: an edit that also recomputes the digest still fails this."""
    return hmac.new(keys.mac, _body_bytes(manifest), hashlib.sha256).hexdigest()


def finish_manifest(manifest: dict[str, Any], keys: PileKeys) -> dict[str, Any]:
    """Add the digest and the MAC."""
    out = dict(manifest)
    out["digest"] = manifest_digest(out)
    out["mac"] = manifest_mac(out, keys)
    return out


def file_sha(raw: bytes) -> str:
    """SHA-256 of a file's bytes, as the manifest records it."""
    return hashlib.sha256(raw).hexdigest()


# --- integrity --------------------------------------------------------------------------


def _rel(suite: Suite, name: str) -> str:
    return str(suite.sealed_dir / name)


def pile_exists(suite: Suite) -> bool:
    """True when sealed/ holds a manifest or anything that is not a retired record."""
    d = suite.sealed_dir
    return d.is_dir() and any(p.name not in NEUTRAL for p in d.iterdir())


def read_manifest(suite: Suite) -> tuple[dict[str, Any] | None, list[Problem]]:
    """The parsed manifest if it is present and self-consistent, with every problem found."""
    from evals.suite.schemas import schema_problems

    path = suite.sealed_dir / MANIFEST
    where = str(path)
    if not path.is_file():
        return None, [Problem(where, "", "missing: the sealed pile has no manifest")]
    try:
        manifest = json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return None, [Problem(where, "", f"manifest altered: not valid JSON ({exc})")]
    problems = schema_problems(manifest, "manifest.schema.json", where)
    if problems:
        return None, [
            Problem(p.path, p.pointer, f"manifest altered: {p.message}") for p in problems
        ]
    if manifest_digest(manifest) != manifest["digest"]:
        problems.append(
            Problem(where, "/digest", "manifest altered: its digest does not match its content")
        )
    files = manifest["files"]
    if manifest["n"] != len(files) or sum(manifest["categories"].values()) != len(files):
        problems.append(Problem(where, "/n", "manifest altered: counts do not match the entries"))
    if len({f["file"] for f in files}) != len(files):
        problems.append(Problem(where, "/files", "manifest altered: a file is listed twice"))
    return (None if problems else manifest), problems


def integrity_problems(suite: Suite) -> tuple[dict[str, Any] | None, list[Problem]]:
    """Check the pile without the key: manifest, then every file edited, added, removed, renamed."""
    linked = sealed_link_problems(suite)
    if linked:  # nothing is read through a link
        return None, linked
    manifest, problems = read_manifest(suite)
    if manifest is None:
        return None, problems
    d = suite.sealed_dir
    listed = {f["file"]: f for f in manifest["files"]}
    present = {p.name: p for p in d.iterdir() if p.name not in NOT_ENVELOPES}
    missing = [n for n in listed if n not in present]
    added = [n for n in present if n not in listed]
    hashes = {n: file_sha(present[n].read_bytes()) for n in added if present[n].is_file()}
    for name in sorted(added):
        moved = [m for m in missing if listed[m]["sha256"] == hashes.get(name)]
        if moved:
            problems.append(Problem(_rel(suite, name), "", f"renamed: this is {moved[0]}"))
        else:
            problems.append(Problem(_rel(suite, name), "", "added: not in the manifest"))
    renamed_from = {m for m in missing if any(listed[m]["sha256"] == h for h in hashes.values())}
    for name in sorted(missing):
        if name not in renamed_from:
            problems.append(Problem(_rel(suite, name), "", "removed: listed in the manifest"))
    for name, entry in sorted(listed.items()):
        if name not in present:
            continue
        raw = present[name].read_bytes()
        if file_sha(raw) != entry["sha256"]:
            problems.append(
                Problem(_rel(suite, name), "", "edited: its hash differs from the manifest")
            )
            continue
        try:
            env = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            env = {}
        if env.get("pile_id") != manifest["pile_id"] or env.get("canary") != canary_line(
            manifest["canary"]
        ):
            problems.append(Problem(_rel(suite, name), "", "not an envelope of this pile"))
    return (None if problems else manifest), problems


@dataclass(frozen=True)
class Pile:
    """An opened pile: the manifest, the keys and the decrypted cases (in memory only)."""

    manifest: dict[str, Any]
    keys: PileKeys
    cases: list[Case]

    @property
    def pile_id(self) -> str:
        return self.manifest["pile_id"]

    @property
    def digest(self) -> str:
        return self.manifest["digest"]


def _sealed_case_problems(data: dict[str, Any], where: str) -> list[Problem]:
    """Schema problems of a decrypted case, named by pointer and rule only (no quoted text)."""
    from evals.checks import REGISTRY
    from evals.checks.loading import case_problems
    from evals.suite.schemas import validator

    out = [
        Problem(
            where, "/" + "/".join(map(str, e.absolute_path)), f"fails schema rule {e.validator!r}"
        )
        for e in validator("case.schema.json").iter_errors(data)
    ]
    if not out and isinstance(data.get("id"), str):
        fake = Path(data["id"] + ".json")
        for p in case_problems(data, fake, set(REGISTRY)):
            out.append(Problem(where, p.pointer, "fails a case check (unseal to see the details)"))
    return out


def open_pile(suite: Suite, key: bytes) -> Pile:
    """Verify the pile and decrypt every case in memory; any problem raises InputError (exit 2)."""
    manifest, problems = integrity_problems(suite)
    if manifest is None:
        raise InputError(problems)
    keys = PileKeys.derive(key)
    where = str(suite.sealed_dir / MANIFEST)
    if not hmac.compare_digest(keys.key_check(), manifest["key_check"]):
        raise InputError(
            [Problem(where, "/key_check", "wrong key: this seal key does not open this pile")]
        )
    if not hmac.compare_digest(manifest_mac(manifest, keys), manifest["mac"]):
        raise InputError([Problem(where, "/mac", "manifest altered: its MAC does not verify")])
    from evals.suite.folder import load_suite_checks

    # The suite's own checks must be registered before the cases naming them are validated.
    load_suite_checks(suite)
    cases: list[Case] = []
    ids: set[str] = set()
    for entry in manifest["files"]:
        name = entry["file"]
        path = suite.sealed_dir / name
        try:
            data = open_envelope(path.read_bytes(), keys, manifest["pile_id"], name)
        except ValueError as exc:
            problems.append(Problem(str(path), "", str(exc)))
            continue
        # A pile sealed before the content sha covered only what grading reads holds the
        # sha of the whole case: either one matches an untouched case.
        if entry["content_sha"] not in (content_sha(data), whole_case_sha(data)):
            problems.append(Problem(str(path), "", "content differs from the manifest's hash"))
            continue
        found = _sealed_case_problems(data, str(path))
        if data.get("id") in ids:
            found.append(Problem(str(path), "/id", "duplicate id in the pile"))
        problems += found
        if not found:
            ids.add(data["id"])
            cases.append(Case(data, None))
    if problems:
        raise InputError(problems)
    return Pile(manifest, keys, sorted(cases, key=lambda c: c.id))


def pile_problems(suite: Suite, key: bytes | None = None, *, use_env: bool = True) -> list[Problem]:
    """Every problem with the suite's sealed pile, for `invoke validate`.

    Without a key only integrity is checked; with one (or EVAL_SEAL_KEY set, when `use_env`)
    every case is also decrypted in memory and validated. No pile means no problems.
    """
    if not pile_exists(suite):
        return []
    manifest, problems = integrity_problems(suite)
    if any(p.message == LINK_REFUSED for p in problems):
        return problems  # the ledger may be one of the links: it is not read either
    problems += ledger_problems(suite)
    if manifest is None:
        return problems
    if key is None and use_env:
        try:
            key = env_key()
        except InputError as exc:
            return problems + exc.problems
    if key is not None:
        try:
            open_pile(suite, key)
        except InputError as exc:
            problems += exc.problems
    return problems
