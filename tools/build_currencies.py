"""Build ragwire/answer/data/currencies.tsv, the currencies the offline answerer recognises money by.

Every currency a territory uses today or has used since 2015 (CLDR, through Babel), with its ISO 4217 code, the
symbols its locales write it with and its English names.  A symbol of plain letters
("Ft", "Rs", "R") is not a symbol anywhere: after a number it reads as feet or a grade as
often as money; one with a currency sign ($, ₹, R$), a Latin letter past ASCII (zł, Kč) or the letters of
another script (лв, сом) is.
Plain-letter symbols of two letters or more go in a column of their own: the answerer
reads them before an amount ("Rs. 35", "Ksh 2,150", "RM 25") and after one only exactly as
written ("640 000 Ar"), less those that are also a unit of measure ("KM", "Kg.") or,
written in lower case, an English word ("den").
A code that is also an English word (TRY, ALL, CUP; by ragwire's lexicon) is marked
``word``: the answerer reads it as money only in capitals ("try 3 times" is not).

    pip install babel            # build time only; ragwire does not depend on it
    python tools/build_currencies.py
"""

from __future__ import annotations

import datetime
import re
import unicodedata
from pathlib import Path

from babel import Locale, localedata
from babel.numbers import get_currency_name, get_territory_currencies

from ragwire.answer.lexicon import lexicon

OUT = Path(__file__).resolve().parents[1] / "ragwire" / "answer" / "data" / "currencies.tsv"
_NAME = re.compile(r"^[a-zà-ÿ]+$")
# Names that, after a number, mean something else as often as money: "5 marks" out of ten, "3 gold" medals,
# "a real", "the team won 2".  Their currencies are still known by code and symbol.
_AMBIGUOUS_NAMES = frozenset({"gold", "mark", "marks", "real", "reals", "sol", "won"})
# Plain-letter symbols that are also units of measure: "KM 12" is a road's kilometre post.
_UNITS = frozenset({"kn", "km", "kg", "cg", "mg", "ft", "db", "mm", "cm", "ml", "cl", "dl", "mt", "lb", "oz", "mi", "yd"})
_FOREIGN_UNITS = frozenset({"км", "кг", "см", "мм", "мл", "мг"})
_LETTERS = re.compile(r"^[A-Za-z]{2,}\.?$")
# A symbol whose unit twin is written otherwise: the forint's "Ft" (read exactly as written, so "12 500 Ft" is money
# and "500 ft" feet), unlike "KM" or "Kg.", which signs and labels write for the unit too.
_CAPITALISED_UNLIKE_UNIT = frozenset({"Ft"})
# One-letter symbols are left out (a "K 5" or "P 20" is a grade, a size or a parking bay as often as money), except
# the rand's: South African price lists write every amount "R 380" or "R1 200" (the answerer reads it only with a
# space or three digits and more, since "R14" is a route as often).
_ONE_LETTER = {"ZAR": "R"}
# Signs that price lists of the currency's own country write and CLDR's locales do not (they write the Arabic
# abbreviation, or the code): "JD 3.750" in Amman, "S/ 31.50" in Lima, "Q 420" in Guatemala, "LE 40" in Cairo.
# Read as the plain-letter symbols above; the quetzal's "Q" as the rand's "R", with a space or three digits and more
# ("Q1" is a quarter).
_LOCAL = {"JOD": ("JD",), "KWD": ("KD",), "BHD": ("BD",), "OMR": ("RO",), "QAR": ("QR",), "SAR": ("SR",),
          "AED": ("Dhs",), "MAD": ("DH", "Dhs"), "EGP": ("LE",), "PEN": ("S/",), "TRY": ("TL",), "BDT": ("Tk",),
          "NPR": ("Rs",), "MMK": ("Ks",), "GTQ": ("Q",)}


# Documents outlive their currency: a price list of 2024 gives its fees in Bulgarian leva, a lease of 2022 its rent
# in kuna.  Every currency tendered since this day counts.
_SINCE = datetime.date(2015, 1, 1)


def _distinct(symbol: str) -> bool:
    """A symbol no unit or word is written as: one with a currency sign ($, ₹, R$) or a Latin letter past ASCII (zł, Kč)."""
    if any(c.isspace() or unicodedata.category(c) == "Cf" for c in symbol):
        return False
    if any(unicodedata.category(c) == "Sc" for c in symbol):
        return True
    if symbol.isalpha() and any(ord(c) > 127 and "LATIN" in unicodedata.name(c, "") for c in symbol):
        return True
    # Letters of another script, two or more: no English unit or word is written so ("лв.", "сом"), but the
    # Cyrillic kilometre, kilogram or centimetre is ("КМ" is the Bosnian mark's sign and "км" a distance).
    bare = symbol.rstrip(".")
    return (len(bare) > 1 and bare.isalpha() and all(ord(c) > 127 for c in bare)
            and bare.lower() not in _FOREIGN_UNITS)


def _lettered(symbol: str, code: str) -> bool:
    """A plain-letter symbol to read before an amount: two letters or more, no unit, no lower-case English word."""
    if not _LETTERS.match(symbol) or symbol.upper() == code:
        return False
    bare = symbol.rstrip(".").lower()
    if symbol in _CAPITALISED_UNLIKE_UNIT:
        return True
    return bare not in _UNITS and not (symbol[0].islower() and lexicon().knows(bare))


def main() -> None:
    today = datetime.date.today()
    codes: set[str] = set()
    for territory in Locale("en").territories:
        if territory.isalpha():
            codes.update(get_territory_currencies(territory, start_date=_SINCE, end_date=today, tender=True))
    symbols: dict[str, set[str]] = {code: set() for code in codes}
    letters: dict[str, set[str]] = {code: set() for code in codes}
    for name in localedata.locale_identifiers():
        for code, symbol in Locale.parse(name).currency_symbols.items():
            if code in symbols and _distinct(symbol):
                # A lettered sign's abbreviation dot is no part of it ("лв." is written "лв" as often).
                symbols[code].add(symbol.rstrip(".") if symbol.rstrip(".").isalpha() else symbol)
            elif code in letters and (_lettered(symbol, code) or _ONE_LETTER.get(code) == symbol):
                letters[code].add(symbol)
    for code, signs in _LOCAL.items():
        if code in letters:
            letters[code].update(signs)
    lines = ["# code\tsymbols (space-separated)\tEnglish names (last word, singular and plural)\t'word' when the code is"
             " an English word\tplain-letter symbols, read before an amount. From CLDR via Babel; rebuild with"
             " tools/build_currencies.py"]
    for code in sorted(codes):
        names = {get_currency_name(code, count=n, locale="en").split()[-1].lower() for n in (1, 2)}
        names = {n for n in names if _NAME.match(n) and n != code.lower() and n not in _AMBIGUOUS_NAMES}
        word = "word" if lexicon().knows(code.lower()) else ""
        lines.append(f"{code}\t{' '.join(sorted(symbols[code]))}\t{' '.join(sorted(names))}\t{word}"
                     f"\t{' '.join(sorted(letters[code]))}")
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{OUT}: {len(codes)} currencies")


if __name__ == "__main__":
    main()
