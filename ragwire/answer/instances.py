"""How each answer type shows in text: the units, currencies and number words of money, durations, masses… as data.

:mod:`.expectations` reads a question's answer type; these tables say what a passage
holding such an answer looks like ("145 EUR", "two working days", "68 kg", a column
named ``weight_kg``).
"""

from __future__ import annotations

import re
from importlib import resources

from .text import STOPWORDS

# Numbers written as words, with their values: "six hours", "forty minutes", "half a day".
SPELLED_VALUES: dict[str, float] = (
    {w: float(i) for i, w in enumerate("one two three four five six seven eight nine ten eleven twelve thirteen "
                                       "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split(), 1)}
    | {w: 10.0 * i for i, w in enumerate("thirty forty fifty sixty seventy eighty ninety".split(), 3)}
    | {"hundred": 100.0, "thousand": 1000.0, "half": 0.5}
)
SPELLED_NUMBERS = "|".join(SPELLED_VALUES)
# Number words count as numbers: "about four minutes", "within two working days", "an hour".
NUMBER_WORDS = SPELLED_NUMBERS + "|a|an|a few|several"
# A vulgar fraction is part of the number ("2½ hours", "1¼ litres").
NUMBER = r"(?:\d[\d,.]*[½¼¾]?|[½¼¾])"
NUM = rf"(?:{NUMBER}|(?:{NUMBER_WORDS}))"


def _re(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def _currency_rows() -> tuple[tuple[str, str, str, str, str], ...]:
    """The rows of ``data/currencies.tsv`` (from CLDR): code, symbols, names, 'word', plain-letter symbols."""
    text = resources.files("ragwire.answer").joinpath("data", "currencies.tsv").read_text(encoding="utf-8")
    return tuple((row[0], row[1], row[2], row[3], row[4]) for line in text.splitlines()
                 if not line.startswith("#") and line.strip() for row in [(line.split("\t") + ["", "", "", ""])[:5]])


# Read once: the amounts of every answer and the currency a question asks in both come from it.
_CURRENCY_ROWS = _currency_rows()


def _currencies() -> tuple[list[str], list[str], list[str], list[str], list[str]]:
    """Every currency in use (``data/currencies.tsv``, from CLDR): codes, codes that are English words, symbols,
    names, and plain-letter symbols ("Rs", "Ksh")."""
    codes: list[str] = []
    word_codes: list[str] = []
    symbols: list[str] = []
    names: list[str] = []
    letters: list[str] = []
    for code, signs, called, word, lettered in _CURRENCY_ROWS:
        # TRY, ALL, CUP: a code that is also a word is money only in capitals ("try 3 times" is not).
        (word_codes if word else codes).append(code.lower())
        symbols += signs.split()
        names += called.split()
        letters += (sign.rstrip(".") for sign in lettered.split())
    # The short "kr" of the Scandinavian kroner is written as often as their names.
    return (codes, word_codes, sorted(set(symbols), key=len, reverse=True), sorted(set(names) | {"kr"}),
            sorted(set(letters) | {"kr"}, key=len, reverse=True))


def _lettered(symbols: list[str]) -> str:
    """A pattern for plain-letter symbols as they are written: "Rs", "RS" or "Ksh", "KSh", but not "rs", which
    may be anything; a symbol CLDR writes in lower case ("kr") may also open a sentence."""
    return "|".join(f"(?-i:{re.escape(s[0])}{'' if s[0].isupper() else '|' + re.escape(s[0].upper())})"
                    f"{re.escape(s[1:])}" for s in symbols)


# Instances of each answer type, as text shows them.  A table row carries its column
# names ("Unit price (EUR): 2950"), so a currency in a header counts for the row.
# Money is stated by a currency: its symbol, its ISO code before or after the amount
# ("NOK 14 500", "4318.50 NOK", "CAD 65"), or its name ("250 kroner", "12 000 forints").  Every
# currency in use counts, not those of the documents we tried: the table is CLDR's.
_codes, _word_codes, _symbols, _names, _letters = _currencies()
_SYMBOLS = "|".join(re.escape(sign) for sign in _symbols)
# A symbol of plain letters is money before an amount ("Rs. 35", "KSh 2,150", "RM 25"); after one only as
# written ("640 000 Ar"), since "500 ft" and "12 km" are no money and CLDR's lists leave such units out.
_LETTERS = _lettered([s for s in _letters if len(s.rstrip(".")) > 1])
_LETTERS_AFTER = "|".join(re.escape(sign) for sign in _letters if len(sign.rstrip(".")) > 1)
# A one-letter symbol (the rand's "R") only as price lists write it: a space before the amount or three digits
# and more ("R 380", "R720", "R1 200"), since a route, a size or a grade is "R14" or "R2".
_ONE_LETTER = "|".join(re.escape(sign) for sign in _letters if len(sign.rstrip(".")) == 1)
_ONE_LETTER_AMOUNT = (rf"|\b(?-i:{_ONE_LETTER})(?:\s{NUMBER}|\d{{1,3}}(?:[,. ]\d{{3}})+|\d{{3,}}(?:[.,]\d\d)?)(?![\w,.]?\d)"
                      if _ONE_LETTER else "")
_CODES = "|".join(_codes) + (f"|(?-i:{'|'.join(c.upper() for c in _word_codes)})" if _word_codes else "")
_CURRENCIES = rf"{_CODES}|{'|'.join(_names)}"
_TIME_UNIT = r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|h|days?|weeks?|months?|years?|s)"
# A currency's hundredth is money too ("45 cents per kWh", "a stamp at 85 pence"); CLDR names only the main units.
_MINOR = (r"cents?|eurocents?|pence|penny|pennies|centimes?|c[ée]ntimos?|centavos?|centesimos?|kopecks?|kopeks?|"
          r"paise|paisa|[öø]re|fils|halalas?|satang|piastres?|groszy|grosze|stotinki|bani|tiyin|qapik")
# An amount in figures with its currency, and a share: also the two ways a change is given.
_AMOUNT = (rf"(?:{_SYMBOLS})\s?{NUMBER}|{NUMBER}\s?(?:{_SYMBOLS}|{_CURRENCIES})(?!\w)|\b(?:{_CODES})\s?{NUMBER}"
           rf"|\b{NUMBER}\s?(?:{_MINOR})(?!\w)|\b(?:{_LETTERS})\.?\s?{NUMBER}|{NUMBER}\s?(?-i:{_LETTERS_AFTER})(?!\w)"
           # A dollar or peso sign with its country's letters after it, as written locally ("$U 1.250").
           + rf"|\$(?-i:[A-Z][A-Za-z]?)\.?\s?{NUMBER}" + _ONE_LETTER_AMOUNT)
_SHARE = rf"\b{NUMBER}\s?(?:%|per ?cent)"
# A telephone number as most countries write one: with its international prefix, its area code in brackets, or a
# word introducing it.  Contact details (:mod:`.contact`) are made of these and addresses.
PHONE = (r"\+\d{1,3}[\s.-]?\(?\d{1,4}\)?(?:[\s.-]?\d{2,4}){2,4}"  # +47 22 33 44 55, +1 (503) 555-0142
         r"|\(\d{2,5}\)\s?\d{3,4}[\s-]?\d{3,4}"  # (503) 555-0142
         r"|\b(?i:tel|phone|telephone|call|ring|fax|mobile)\b\.?:?\s*\d[\d\s-]{5,}\d")  # tel. 01632 960 455
INSTANCES: dict[str, re.Pattern[str]] = {
    "amount of money": _re(rf"{_AMOUNT}|\b(?:{SPELLED_NUMBERS})\s(?:{_CURRENCIES})(?!\w)"
                           rf"|\((?:{_CODES})\)|\bfree of charge\b|\bno charge\b|\bat no cost\b"),
    "duration": _re(rf"\b{NUM}(?:\s|-)?(?:(?:working|business|calendar|full) )?{_TIME_UNIT}\b|\bsame[- ]day\b|\bovernight\b|\bnext (?:business |working )?day\b"
                    r"|\bimmediately\b|\bat once\b"),
    "number": _re(rf"\b{NUM}\b"),
    # "How much luggage / storage / water": a number of some unit, but a number ("a" is none).
    "quantity": _re(rf"\b(?:{NUMBER}|(?:{SPELLED_NUMBERS}))(?!\w)"),
    "length": _re(rf"\b{NUMBER}\s?(?:mm|cm|m|km|metres?|meters?|kilomet(?:re|er)s?|millimet(?:re|er)s?|"
                  r"centimet(?:re|er)s?|in|inch(?:es)?|ft|feet|foot|yards?|yds?|miles?|mi)\b"
                  r"(?!\s*(?:/|per\b|an? (?:hour|second)))"),
    "mass": _re(rf"\b{NUMBER}\s?(?:kg|g|t|tonnes?|tons?|kilos?|kilograms?|grams?|lbs?|pounds?|ounces?|oz)\b"),
    # "How many litres does the tank hold": a volume in any of its units ("350 ml", "1.5 l", "2 gallons").
    "volume": _re(rf"\b{NUMBER}\s?(?:ml|cl|dl|l|litres?|liters?|millilit(?:re|er)s?|centilit(?:re|er)s?|"
                  r"decilit(?:re|er)s?|gallons?|gal|fl\.? ?oz|pints?|m3|m³|cubic met(?:re|er)s?)(?![\w/])"),
    "sound level": _re(rf"\b{NUMBER}\s?(?:db|dba|db\(a\)|decibels?)\b"),
    "gradient": _re(rf"\b{NUMBER}\s?(?:°(?!\s?[cf]\b)|degrees?(?!\s+(?:celsius|fahrenheit|[cf]\b))|%|per ?cent)"),
    # "19 degrees C" as well as "19 °C" and "19 degrees Celsius"; bare degrees may be an angle.
    "temperature": _re(rf"{NUMBER}\s?°\s?[cf]\b|\b{NUMBER}\s?degrees? (?:celsius|fahrenheit|[cf])\b"),
    # Wind and boats are timed in knots ("above 22 knots", "15 kn"), and wind in Beaufort's forces ("force 6"); a
    # connection in bits or bytes a second ("1 Gbit/s", "500 Mbps").
    "speed": _re(rf"\b{NUMBER}\s?(?:[kmgt]?(?:bit|b)(?:/s|ps)\b|[kmgt]bits?\b|m/s|km/h|kph|mph|knots?|kts?|kn|(?:metres?|meters?|kilomet(?:re|er)s?|miles?) "
                 rf"(?:per|an|a) (?:second|hour))\b|\b(?:beaufort\s+)?force\s+{NUMBER}\b"),
    "percentage": _re(_SHARE),
    # "By how much does the rent go up": a change is given as an amount or as a share ("rises by 4.5 %").
    "change in amount or share": _re(rf"{_SHARE}|{_AMOUNT}"),
    "voltage": _re(rf"\b{NUMBER}\s?(?:v|mv|kv|volts?|millivolts?)\b"),
    "power": _re(rf"\b{NUMBER}\s?(?:w|kw|mw|watts?|kilowatts?)\b"),
    "version": _re(r"\b\d+\.\d+(?:\.\d+|\.x)*\b"),
    "telephone number": _re(PHONE),
    "date": _re(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{1,2}|\b\d{1,2}\.? "
                r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*|\b(?:19|20)\d\d\b"
                r"|\b\d{1,2}[./-]\d{1,2}[./-]\d{2,4}\b|\b(?:19|20)\d\d-\d{1,2}-\d{1,2}\b"),
    "time of day": _re(r"\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s?(?:am|pm)\b|\bnoon\b|\bmidnight\b"),
    "frequency": _re(r"\bevery\b|\bper (?:day|week|month|year|shift)\b|\b(?:daily|weekly|monthly|yearly|annually|"
                     r"nightly|hourly)\b|\b(?:once|twice|\w+ times) (?:a|an|per|each)\b|\beach (?:day|night|week|"
                     r"month|year|shift)\b"),
    # A rating or class is a code: IP54, IK08, EN 1525, class 2.
    "rating": _re(r"\b[A-Z]{1,4}[- ]?\d{1,5}\b|\bclass [A-Z0-9]\b"),
}

# "When is the lunch break": a date, a clock time, a day, a season, a length of time or how often; a time told by
# another event ("after the operation", "before the first class"), or the condition a thing happens on ("when the
# yield is low", "if it rains").
# A year alone is left out: a title's "Student information 2027" says when nothing happens.
_DAY_OF_YEAR = INSTANCES["date"].pattern.replace(r"|\b(?:19|20)\d\d\b", "")
# "By what date", "the closing date": a day of the year or of the month ("14 May", "the 10th"); a year alone is the
# answer to "in what year", not to these.
INSTANCES["calendar date"] = _re(rf"{_DAY_OF_YEAR}|\b\d{{1,2}}(?:st|nd|rd|th)\b")
# A weekday asked for is given by its name, or as a list writes it ("Mon–Fri", "Sat").
_WEEKDAY = r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b"
INSTANCES["day of the week"] = _re(rf"{_WEEKDAY}|\b(?-i:Mon|Tue|Wed|Thu|Fri|Sat|Sun)\b")
INSTANCES["date or time"] = _re("|".join([_DAY_OF_YEAR, *(INSTANCES[k].pattern for k in ("time of day", "duration",
                                                                                          "frequency"))])
                                + rf"|{_WEEKDAY}|\b(?:weekends?|weekdays?|holidays?)\b"
                                r"|\b(?:january|february|march|april|june|july|august|september|october|november|"
                                r"december|spring|summer|autumn|fall|winter|season|morning|afternoon|evening|night|"
                                r"today|tomorrow|tonight)\b|\b(?:before|after|until|till|during|within|once|when|whenever|if|unless)\b")
# An age as price lists and rules give one: "aged 4 to 8", "minimum age 12", "12 years", "12 weeks old", "12+",
# "under 16s", "U15", "18 and over".
INSTANCES["age"] = _re(r"\bage[ds]?\b|\b(?:years?|months?|weeks?) old\b|\b(?:year|month|week)-olds?\b|\b\d{1,2}\s?\+|\b(?:under|over)[- ]?\d{1,2}s?\b"
                       r"|\bU\d{1,2}\b|\b\d{1,2}\s?(?:years?|yrs?)\b|\b\d{1,2}\s?(?:and|or)\s(?:over|older|above|under|"
                       r"younger)\b|\b(?:adults?|children|kids|juniors?|seniors?|infants?|toddlers?)\b[^.·|;]{0,12}?\d")
# A sum often stated as a share of a price (a deposit, a surcharge, a commission): an amount or a share.
INSTANCES["amount or percentage"] = _re(f"{INSTANCES['amount of money'].pattern}|{_SHARE}")
# "How long is the tunnel / the film": long measures space or time.
INSTANCES["duration or length"] = _re(f"{INSTANCES['duration'].pattern}|{INSTANCES['length'].pattern}")

# The value may carry a sign of capital letters the currency table leaves out, since alone it may be anything (the
# kina's "K 120", the pula's "P 45"): under a price's label it is that currency.
LABELLED_VALUE = re.compile(r"(?:^|·)\s*([^·:|]{1,40}?)\s*:\s*(?-i:[A-Z][A-Za-z]{0,2}\.?\s?)?[-+]?\d[\d,.]*\s*(?=·|\||$)")

PLAIN = frozenset({"number", "quantity", "date", "calendar date", "time of day", "date or time", "age", "version", "rating",
                   "frequency", "day of the week"})  # no unit of their own


# Units a question may name the value it wants in ("… in watts?", "how many amperes …"): each
# unit's names and the way documents write it.  A question that names its unit is answered
# only by a passage giving a number in that very unit: the near-topic passages give another
# quantity of the same thing (a battery's voltage when its energy is asked in kWh), or the same
# quantity in another unit the documents use instead (a height in metres asked in feet, a
# temperature in °C asked in Fahrenheit), which is not what was asked and often not a
# conversion the documents make.
UNITS: dict[str, str] = {
    "kilowatt-hours": r"kwh|kilowatt[- ]hours?", "watt-hours": r"wh|watt[- ]hours?", "megawatt-hours": r"mwh",
    "watts": r"w|watts?", "kilowatts": r"kw|kilowatts?", "megawatts": r"mw|megawatts?",
    "amperes": r"a|amps?|amperes?", "milliamperes": r"ma|milliamperes?",
    "volts": r"v|volts?", "millivolts": r"mv|millivolts?", "kilovolts": r"kv|kilovolts?",
    "decibels": r"db|dba|db\(a\)|decibels?",
    "hours": r"h|hrs?|hours?", "minutes": r"min|mins|minutes?", "seconds": r"s|secs?|seconds?",
    "days": r"days?", "weeks": r"weeks?", "months": r"months?", "years": r"years?",
    "kilograms": r"kg|kilograms?|kilos?", "grams": r"g|grams?", "tonnes": r"t|tonnes?|tons?",
    "pounds": r"lbs?|pounds?",
    "millimetres": r"mm|millimet(?:re|er)s?", "centimetres": r"cm|centimet(?:re|er)s?", "metres": r"m|met(?:re|er)s?",
    "kilometres": r"km|kilomet(?:re|er)s?", "inches": r"in|inch(?:es)?", "feet": r"ft|feet|foot", "miles": r"mi|miles?",
    "litres": r"l|litres?|liters?", "millilitres": r"ml|millilit(?:re|er)s?", "centilitres": r"cl|centilit(?:re|er)s?",
    "gallons": r"gal|gallons?",
    "percent": r"%|per ?cent|percent",
    "celsius": r"°\s?c|degrees? celsius|celsius", "fahrenheit": r"°\s?f|degrees? fahrenheit|fahrenheit",
    "bar": r"bar", "psi": r"psi", "pascals": r"pa|kpa|pascals?",
    "knots": r"kn|kts?|knots?", "mph": r"mph|miles per hour",
    "megabits per second": r"mbit/s|mbps|mb/s", "gigabits per second": r"gbit/s|gbps|gb/s",
}
# Every spelling of every unit above, as one pattern: a word that fully matches it names a unit.
_UNIT_WORD = re.compile("|".join(f"(?:{pattern})" for pattern in UNITS.values()))


def unit_word(word: str) -> bool:
    """Whether ``word`` (lower case) is a spelling of a unit in :data:`UNITS` ("km", "litres", "%")."""
    return _UNIT_WORD.fullmatch(word) is not None


def column_unit(word: str) -> bool:
    """Whether ``word``, in brackets after a column's name ("Price (CHF)", "Weight (kg)"), is the unit of its values:
    a currency (code, name or sign) or a unit of some measure."""
    lowered = word.lower().rstrip(".")
    return lowered in _CURRENCY_WORDS or word in _symbols or word in _letters or measure_unit(lowered)


def measure_unit(word: str) -> bool:
    """Whether ``word`` is a unit of some measure ("cl", "kg", "km", "minutes"), not a thing counted ("people");
    a function word or a lone letter is read as a word ("room for 4 in the car"), except m, g and l."""
    word = word.lower()
    if word in STOPWORDS or len(word) == 1 and word not in "mgl" or word.startswith("degree"):
        return False  # a degree is of two measures, and written as a sign ("-25 °C")
    return unit_word(word) or any(p.fullmatch(f"1 {word}") for kind, p in INSTANCES.items() if kind not in PLAIN)


# A table row's column name may carry the unit of its value ("price_eur: 59", "Weight (kg): 16.5",
# "warranty_years: 5"): the value is then an instance of that unit's type, as a header currency is.
# A currency's own letters head a column as its code does ("Per day (zł)", "Price (Kč)"), save those that are also a
# unit ("Ft" is feet as well as forints).
_CURRENCY_WORDS = frozenset(_codes + _word_codes + _names)
_SIGN_WORDS = frozenset(sign.lower() for sign in (*_symbols, *_letters)
                        if re.fullmatch(r"\w{2,}", sign) and not unit_word(sign.lower()))
# The plain-letter signs a currency writes before its amount ("kr. 85", "Rs. 60"), lower-cased.
_SIGNS_BEFORE = frozenset(sign.lower() for sign in _letters if len(sign) > 1)


def sign_before_amount(word: str) -> bool:
    """Whether ``word`` is a currency's plain-letter sign written before an amount ("kr", "Rs", "Ksh")."""
    return word.lower().rstrip(".") in _SIGNS_BEFORE


LABEL_UNITS: dict[str, frozenset[str]] = {
    "amount of money": _CURRENCY_WORDS | _SIGN_WORDS | {"price", "cost", "fee", "fare", "amount", "total"},
    "mass": frozenset({"kg", "g", "t", "lb", "lbs", "weight", "mass", "kilograms", "grams", "tonnes"}),
    "duration": frozenset({"years", "months", "weeks", "days", "hours", "minutes", "seconds", "duration", "h", "hrs",
                           "min", "mins", "sec", "secs"}),
    "length": frozenset({"mm", "cm", "m", "km", "length", "width", "height", "depth", "metres", "meters"}),
    "percentage": frozenset({"pct", "percent", "percentage"}),
}
LABEL_UNITS["duration or length"] = LABEL_UNITS["duration"] | LABEL_UNITS["length"]
LABEL_UNITS["amount or percentage"] = LABEL_UNITS["amount of money"] | LABEL_UNITS["percentage"]


def labelled(kind: str, text: str) -> bool:
    """Whether a table row in ``text`` gives a number under a column whose name carries a unit of ``kind``."""
    units = LABEL_UNITS.get(kind, frozenset())
    return bool(units) and any(units & set(re.split(r"[\W_]+", m.group(1).lower()))
                               for m in LABELLED_VALUE.finditer(text))


def instance(kind: str, text: str) -> bool:
    """Whether ``text`` holds an answer of type ``kind`` (a duration, an amount of money…): as the type is written,
    or as a number under a column whose name carries its unit."""
    pattern = INSTANCES.get(kind)
    return bool(pattern and pattern.search(text)) or labelled(kind, text)


# A currency's name qualified by its country, where one name is many currencies' ("US dollars", "Swiss francs").
_QUALIFIED = {"us": "USD", "u.s.": "USD", "american": "USD", "australian": "AUD", "canadian": "CAD",
              "new zealand": "NZD", "hong kong": "HKD", "singapore": "SGD", "swiss": "CHF", "indian": "INR",
              "south african": "ZAR"}
_ASKED_CURRENCY = re.compile(rf"\bin\s+(?:({'|'.join(map(re.escape, _QUALIFIED))})\s+)?([a-z]{{3,}})\b", re.IGNORECASE)


def asked_currency(question: str) -> tuple[str, re.Pattern[str]] | None:
    """The currency ``question`` asks an amount in ("… in euros?", "in US dollars", "in CHF"), as ``(its words, a
    pattern of an amount in it)``; None when it names none.

    A price list gives its amounts in its own currency; asked in another, the near-topic passages
    give the amount in theirs, which is not what was asked (nor a conversion the documents make).
    A bare "$" counts for every dollar: a price list in one country writes its own dollar so.
    """
    for m in _ASKED_CURRENCY.finditer(question):
        qualifier, word = (m.group(1) or "").lower(), m.group(2).lower()
        rows = [row for row in _CURRENCY_ROWS if word in row[2].split() or word == row[0].lower() and not row[3]]
        if qualifier:
            rows = [row for row in rows if row[0] == _QUALIFIED[qualifier]]
        if not rows:
            continue
        # A symbol of letters ("A$", "CHF") stands alone; a sign ("$", "€") not after a letter ("A$" is no US "$").
        written = {sign for row in rows for sign in (*row[1].split(), *row[4].split())}
        written |= {"kr"} if word.startswith("kron") else set()  # as _currencies() reads the kroner's short sign
        signs = sorted(written, key=len, reverse=True)
        marks = "|".join(rf"(?<![A-Za-z]){re.escape(sign)}" if not sign[0].isalpha() else rf"\b{re.escape(sign)}"
                         for sign in signs)
        named = "|".join([*(row[0] for row in rows), *sorted({n for row in rows for n in row[2].split()})])
        # The currency may head a column instead ("Price (EUR): 25").
        ways = [rf"\b(?:{named})\s?{NUMBER}", rf"{NUMBER}\s?(?:{named})\b", rf"\((?:{named})\)"]
        ways += [rf"(?:{marks})\s?{NUMBER}", rf"{NUMBER}\s?(?:{marks})"] if marks else []
        return m.group(0)[3:].strip(), re.compile("|".join(ways), re.IGNORECASE)
    return None
