"""Bytes → str for text files whose encoding nobody told us, and a binary sniff.

markitdown guesses 'ascii' on large single-line files and garbles cp1252 HTML,
so every text format is decoded here before anything else sees it.
"""

from __future__ import annotations

import codecs
import re

# Longest first: the UTF-32 LE BOM starts with the UTF-16 LE BOM.
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)

# Encodings whose detection we trust over the Western single-byte default.
_MULTIBYTE_PREFIXES = (
    "utf", "cp932", "shift_jis", "euc", "iso2022", "gb", "big5", "cp949", "cp950", "johab", "hz",
)

# WHATWG: a page labelled latin-1 or ascii is decoded as windows-1252.
_CP1252_ALIASES = {"ascii", "us-ascii", "latin-1", "latin1", "iso-8859-1", "iso8859-1", "l1"}

# Detector names that Python spells differently or that need a superset.
_ENCODING_UPGRADES = {"shift_jis": "cp932", "shift-jis": "cp932", "sjis": "cp932", "euc_kr": "cp949"}

# Control bytes that do not occur in text (tab, newlines, form feed and ESC do).
_CONTROL_BYTES = frozenset([*range(0, 9), 11, *range(14, 27), *range(28, 32), 127])

_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)""", re.IGNORECASE)

# Non-letters that legitimately sit between two letters in Western text.
_INTRA_WORD_PUNCTUATION = frozenset("\u2019\u2018\u00b7\u00ad\u2013\u2014")

_CP1252_UNDEFINED = re.compile(rb"([\x81\x8d\x8f\x90\x9d])")


def decode_bytes(data: bytes, *, declared: str | None = None) -> str:
    """Decode text of unknown encoding.

    Order: byte-order mark; UTF-16/32 recognised by their NUL pattern; strict UTF-8;
    the ``declared`` charset (e.g. from an HTML ``<meta>``); detection with
    charset-normalizer, preferring cp1252 when the text reads as Western European;
    finally cp1252 with replacement characters.  Never raises.

    Args:
        data: The raw bytes.
        declared: A charset the file claims for itself, tried after UTF-8.

    Returns:
        The text, without any byte-order mark.
    """
    if not data:
        return ""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            # A BOM is strong evidence: a damaged byte here or there becomes U+FFFD.
            return data.decode(encoding, errors="replace")
    # Before UTF-8: ASCII text in UTF-16/32 is valid UTF-8, NULs and all.
    wide = _guess_wide_encoding(data)
    if wide is not None:
        try:
            return data.decode(wide)
        except UnicodeDecodeError:
            pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass

    if declared:
        text = _try_declared(data, declared)
        if text is not None:
            return text

    detected = _detect(data)
    if detected is not None and detected.startswith(_MULTIBYTE_PREFIXES):
        try:
            return data.decode(detected)
        except (UnicodeDecodeError, LookupError):
            pass

    western = _try_cp1252(data)
    if _reads_as_western(western):
        return western

    if detected is not None:
        try:
            return data.decode(detected, errors="replace")
        except LookupError:
            pass
    return data.decode("cp1252", errors="replace")


def declared_html_charset(data: bytes) -> str | None:
    """The charset named by an HTML ``<meta charset>`` or ``http-equiv`` tag in the first 4 KB."""
    match = _META_CHARSET.search(data[:4096])
    if match is None:
        return None
    return match.group(1).decode("ascii", errors="ignore") or None


def looks_binary(sample: bytes) -> bool:
    """Whether the first bytes of a file look like binary data rather than text.

    NUL bytes mean binary unless they follow the pattern of UTF-16/32 text;
    otherwise more than 10 % control characters does.
    """
    if not sample:
        return False
    if any(sample.startswith(bom) for bom, _ in _BOMS):
        return False
    if b"\x00" in sample:
        return _guess_wide_encoding(sample) is None
    controls = sum(1 for byte in sample if byte in _CONTROL_BYTES)
    return controls / len(sample) > 0.10


def _guess_wide_encoding(data: bytes) -> str | None:
    """Recognise BOM-less UTF-16/32 from where the NUL bytes fall (mostly-Latin text)."""
    sample = data[:8192]
    n = len(sample)
    if n < 4 or sample.count(0) < n // 8:
        return None

    def nul_share(offset: int, step: int) -> float:
        picked = sample[offset::step]
        return picked.count(0) / max(len(picked), 1)

    if n % 4 == 0 or len(data) % 4 == 0:
        shares = [nul_share(i, 4) for i in range(4)]
        if shares[2] > 0.95 and shares[3] > 0.95 and shares[0] < 0.05:
            return _validated(data, "utf-32-le")
        if shares[0] > 0.95 and shares[1] > 0.95 and shares[3] < 0.05:
            return _validated(data, "utf-32-be")
    even, odd = nul_share(0, 2), nul_share(1, 2)
    if odd > 0.3 and even < 0.05:
        return _validated(data, "utf-16-le")
    if even > 0.3 and odd < 0.05:
        return _validated(data, "utf-16-be")
    return None


def _validated(data: bytes, encoding: str) -> str | None:
    # The sample may cut a code unit in half; only the sample needs to decode.
    unit = 4 if "32" in encoding else 2
    head = data[: (min(len(data), 8192) // unit) * unit]
    try:
        head.decode(encoding)
    except UnicodeDecodeError:
        return None
    return encoding


def _try_declared(data: bytes, declared: str) -> str | None:
    name = declared.strip().lower()
    if name in _CP1252_ALIASES:
        name = "cp1252"
    name = _ENCODING_UPGRADES.get(name, name)
    try:
        codecs.lookup(name)
    except LookupError:
        return None
    if name.replace("-", "").replace("_", "") in ("utf8", "utf16", "utf32"):
        return None  # already tried (or ruled out) above
    if name == "cp1252":
        return _try_cp1252(data)
    try:
        return data.decode(name)
    except UnicodeDecodeError:
        return None


def _detect(data: bytes) -> str | None:
    import charset_normalizer  # imported here: only non-UTF-8 files pay for it

    for match in charset_normalizer.from_bytes(data):
        name = match.encoding.lower()
        # Real UTF-16/32 text has NULs (every newline, space or digit brings one);
        # on short CJK input the detector sometimes claims UTF-16 without any.
        if name.startswith(("utf_16", "utf_32")) and b"\x00" not in data:
            continue
        return _ENCODING_UPGRADES.get(name, name)
    return None


def _try_cp1252(data: bytes) -> str:
    """cp1252, reading the five bytes cp1252 leaves undefined as latin-1 (C1 controls)."""
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        parts = _CP1252_UNDEFINED.split(data)  # odd indices hold the undefined bytes
        return "".join(p.decode("latin-1" if i % 2 else "cp1252") for i, p in enumerate(parts))


def _reads_as_western(text: str) -> bool:
    """Whether cp1252-decoded text looks like a Western European language.

    Western text is mostly ASCII letters with accented ones scattered among them.
    Cyrillic, Greek or Hebrew bytes read as cp1252 become words made only of
    accented letters; Central European ones put symbols such as '¿' or '³'
    inside words.
    """
    letters = non_ascii_letters = non_ascii = odd_symbols = 0
    for index, char in enumerate(text):
        if char.isalpha():
            letters += 1
            if not char.isascii():
                non_ascii_letters += 1
                non_ascii += 1
        elif not char.isascii():
            non_ascii += 1
            if (
                char not in _INTRA_WORD_PUNCTUATION
                and 0 < index < len(text) - 1
                and text[index - 1].isalpha()
                and text[index + 1].isalpha()
            ):
                odd_symbols += 1
    if non_ascii == 0:
        return True
    if letters and non_ascii_letters / letters > 0.5:
        return False
    return odd_symbols <= 0.05 * non_ascii
