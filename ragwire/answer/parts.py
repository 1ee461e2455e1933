"""The parts of a question: where one question ends and the next begins, each part asked on its own.

"What does error E-17 mean, and what does a spare battery cost?" is two questions;
"What are the length and the width of the mat?" and "Compare the fee for A with
B" are two questions about two things.  Refinement searches and answers each part
on its own (:mod:`.refine_offline`), and the single-shot answer quotes for each part
(:func:`.refine_offline.single_shot`), so a part is written out as a question that
can be searched without the others ("a used one" names its noun).  The router
(:func:`route`) sends a question to refinement by its parts, without a model call.
"""

from __future__ import annotations

import itertools
import os
import re

from .expectations import type_word
from .lexicon import lexicon
from .people import WHO_DOES

# "…mean, and what does…", "…? How much…": a second question starts at a question word.
_QUESTION_WORD = (r"(?:what|what's|how|which|who|when|where|why|is|are|does|do|can|could|should|will|would"
                  r"|was|were|has|have)")
# "…, and at what time…", "…, and from which platform…", "…, and up to which deck…": a preposition may open the
# second question.
_PREPOSITION = r"(?:up to|out of|in|at|on|from|to|for|by|with|of|under|after|before|during|until|till|since)"
# A request for a noun phrase or a clause: "tell me X", "please show me X", "I need to know X", "I'd like X".
_ASKING = (r"(?:(?:please\s+)?(?:tell|give|show)\s+me|(?:i\s+(?:need|want|would\s+like)|i[’']d\s+like)"
           r"(?:\s+to\s+know)?)")
# "Also" joins only after a comma or "and": "does the hall also have showers" is one question.  An adverb of
# degree may stand between the joiner and the question word ("…, and roughly how many…").
_JOINED = re.compile(rf"(?:[,;]\s*(?:and|also|plus|as well as)|\s+(?:and|plus|as well as))"
                     r"(?:\s+(?:also|roughly|approximately|about|exactly|then))?,?\s+"
                     rf"(?=(?:{_PREPOSITION}\s+)?{_QUESTION_WORD}\b)|;\s+(?={_QUESTION_WORD}\b)", re.IGNORECASE)
# The words that open a noun phrase of its own: an article or a possessive.
_DETERMINERS = r"(?:the|a|an|its|their|his|her)"
# "…, as well as the X", "… and whether Y": after a question of any shape, "as well as" before a noun phrase, or
# "whether", opens a second question ("How far ahead must I book, as well as the cost of a cake?").
_NOUN_JOINED = re.compile(rf",?\s+(?:as well as|and also)\s+(?=(?:{_DETERMINERS}|whether)\s)|,?\s+and\s+(?=whether\s)",
                          re.IGNORECASE)
_DETERMINER = re.compile(rf"^{_DETERMINERS}\s", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=\?)\s+(?=\S)")
# "What is the price, what does E-17 mean": a comma before a question word, split only
# when every piece is a question of its own ("If it fails, what…" is one question).
_LISTED = re.compile(rf",\s+(?={_QUESTION_WORD}\b)", re.IGNORECASE)
_STARTS_AS_QUESTION = re.compile(rf"^(?:{_PREPOSITION}\s+)?{_QUESTION_WORD}\b", re.IGNORECASE)
# Comparatives, by the measure they compare: "which costs more, A or B" asks each one's price.
_COMPARATIVES = (
    (r"costs? more|costs? less|(?:is|are) (?:more expensive|cheaper|dearer)", "How much does {} cost?"),
    (r"weighs? more|weighs? less|(?:is|are) (?:heavier|lighter)", "How much does {} weigh?"),
    (r"takes? longer|takes? less time|(?:is|are) (?:quicker|faster|slower)", "How long does {} take?"),
    # Any other measure by its comparative adjective: "which is higher" asks how high each one is.
    (r"(?:is|are) (?!(?:better|worse|other|over|under)\b)[a-z]+er", ""),
)
# "Which weighs more when full, A or B": a phrase between the comparative and the comma ("when full", "on the
# label") qualifies both sides, and goes with each part.
_WHICH_MORE = re.compile(rf"^which(?: one)? (?P<cmp>{'|'.join(p for p, _ in _COMPARATIVES)})(?:\s+(?P<mod>[^,?]+),|,)?\s+"
                         r"(?P<a>.+?)\s+or\s+(?P<b>.+?)(?:,?\s+and by how (?:much|many|long)[^?]*)?\s*\??$", re.IGNORECASE)
# A side that says "one for …" ("a locker for a small bag or one for a suitcase") takes the other side's noun.
_ONE_FOR = re.compile(r"^one\s+(?=(?:for|of|with|in|at|on|from)\s)", re.IGNORECASE)
_WH_CLAUSE = re.compile(r"^(?:what|how|when|where|which|who)\s", re.IGNORECASE)
_PP = re.compile(r"\s+(?:for|of|with|in|at|on|from)\s+", re.IGNORECASE)
_BY_HOW = re.compile(r"^by how (?:much|many|long)\b", re.IGNORECASE)  # a comparison's tail: "…, by how many grams"
# "What are the height and the width of the cabinet?", "Tell me the colour and size of X": two attributes
# of one thing, coordinated; each becomes a question of its own about that thing.
_ATTRIBUTES = re.compile(rf"^(?P<ask>what (?:is|are|were|was)|{_ASKING}|list)\s+(?:the\s+)?(?P<a>[\w-]+(?: [\w-]+)?)"
                         r"\s+(?:and|as well as)\s+(?:the\s+)?(?P<b>[\w-]+(?: [\w-]+)?)\s+(?P<rel>of|for|in|at|on)\s+"
                         r"(?P<thing>[^?]+?)\s*[?.!]?$", re.IGNORECASE)
# "the deposit and the count of lockers in hall C3": when a bare noun follows the first "of" and a name or a code
# the next preposition, the name is the shared thing and "of lockers" belongs to the second attribute ("the
# length and the width of boats for juniors" keeps "boats for juniors" shared).
_OWN_COMPLEMENT = re.compile(r"^(?P<own>(?!(?:the|a|an|this|that|its|their|our|your|my)\b)[a-z][\w-]*)\s+"
                             r"(?P<rel>of|for|in|at|on)\s+(?P<thing>(?=[^?]*(?:\b[A-Z]|\d))[^?]*)$")
# "Compare X with Y": each side is asked on its own; "the price of A with B" gives B A's attribute.
_COMPARE = re.compile(r"^compare\s+(?P<a>.+?)\s+(?:with|to|against|and)\s+(?P<b>.+?)\s*[?.!]?$", re.IGNORECASE)
# "with" or "against" joins the sides before "to" or "and" do: "what they charge to castrate A with B".
_COMPARE_WITH = re.compile(r"^compare\s+(?P<a>.+?)\s+(?:with|against)\s+(?P<b>.+?)\s*[?.!]?$", re.IGNORECASE)
_OF = re.compile(r"^(?P<attr>(?:the\s+)?[\w-]+(?:\s+[\w-]+)?)\s+(?:of|for)\s+", re.IGNORECASE)
# "Tell me X and Y", "What are X as well as Y": two noun phrases coordinated, the second opening with
# a determiner or a possessive ("…the lamp's price and its colour"); each is asked as "What is …?".
_PHRASES = re.compile(rf"^(?:{_ASKING}|what(?:'s|s| is| are| were| was))\s+(?P<a>.+?),?\s+(?:and(?: also)?|as well as)\s+"
                      rf"(?P<b>{_DETERMINERS}\s+[^?]+?)\s*[?.!]?$", re.IGNORECASE)
_POSSESSOR = re.compile(r"^(.+?'s)\s", re.IGNORECASE)
# "the wash and dry price for a duvet and the discount for students": a later noun phrase with its own
# determiner is the request's second item, so the first "and" joins words of one phrase, not two attributes.
_NEXT_PHRASE = re.compile(rf",?\s(?:and(?: also)?|as well as)\s+{_DETERMINERS}\s", re.IGNORECASE)
# "What does A cost, as well as B?": the second side shares the question's verb.
_SHARED_VERB = re.compile(r"^(?P<q>what|how much) (?P<aux>does|do|did|will|would) (?P<a>.+?) (?P<verb>cost|weigh|take|"
                          rf"mean)\s*,?\s+(?:and|as well as)\s+(?!(?:{_PREPOSITION}\s+)?{_QUESTION_WORD}\b)(?P<b>[^?]+?)\s*[?.!]?$", re.IGNORECASE)
# "What do A and B cost?", "What surcharge do A and B each add?": two subjects of one plural verb, each asked alone.
_SHARED_SUBJECT_VERB = re.compile(r"^(?P<q>what(?: [\w-]+){0,2}|how much|how many(?: [\w-]+){0,2}|when|where)\s+do\s+"
                                  rf"(?P<a>[^,?]+?)\s+and\s+(?!(?:{_PREPOSITION}\s+)?{_QUESTION_WORD}\b)(?P<b>[^,?]+?)\s+"
                                  r"(?:each\s+|both\s+)?"
                                  r"(?P<verb>(?!(?:to|per|on|at|in|for|a|an|the)\b)[a-z]+"
                                  r"(?:\s+(?:(?:to|per|on|at|in|for)(?:\s+(?:a|an|the))?|a|an|the)\s+[\w-]+)*)\s*[?.!]?$",
                                  re.IGNORECASE)
# A place closing a phrase ("… at Holmvik", "… in Tromsø"): a capitalised name after at/in/on/from.
_PLACE = re.compile(r"\s(?:at|in|on|from)\s+(?:the\s+)?[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*\s*$")
_PRONOUNS = frozenset("i we you they".split())  # "what do I pack and wear": one subject, two verbs
# "What does a member owe for A and for B?": the preposition repeated, each phrase is asked on its own.
_SHARED_HEAD = re.compile(rf"^(?P<head>(?:{_QUESTION_WORD}|{_ASKING})\b.+?\s(?P<prep>for|of|at|in|on|from|to|with))"
                          r"\s+(?P<a>.+?),?\s+"
                          r"(?:and|as well as)\s+(?P=prep)\s+(?P<b>[^?]+?)\s*[?.!]?$", re.IGNORECASE)
_COMPARISON = re.compile(r"\b(?:compare[sd]?|comparison|difference|differ|versus|vs\.?|better|worse)\b", re.IGNORECASE)
_SUMMARY = re.compile(r"\b(?:summari[sz]e|summary|overview|outline)\b", re.IGNORECASE)
_REQUEST = re.compile(rf"^{_ASKING}\s+(?P<rest>\S.*)$", re.IGNORECASE)
# "One" standing for a noun named before ("a mapped one", "the one at B"), after a determiner and at most one
# modifier; "one-day" and "one of" are no such thing.
_ONE = re.compile(r"\b(?P<det>(?:a|an|the|this|that|each|every)\s+)(?:(?P<mod>[\w-]+)\s+)?one\b(?!-)(?!\s+of\b)"
                  r"(?P<pp>(?=\s+(?:for|of|with|in|at|on|from|to)\s))?", re.IGNORECASE)
# The noun phrase a "one" before a preposition stands for: the one before the first preposition of the part before.
_HEAD_PHRASE = re.compile(r"\b(?:the|a|an)\s+(?P<np>(?:[\w'-]+\s+){0,3}?[\w'-]+)\s+(?:for|of|with|in|at|on|from|to)\s",
                          re.IGNORECASE)
# Where a noun phrase taken over ends: the verb or the auxiliary after it ("the 10-litre bucket costs …").
_PHRASE_END = frozenset("is are was were does do did cost costs weigh weighs take takes mean means".split())
# Negating prefixes: "used" and "unused" are modifiers of one kind.
_NEGATIONS = ("un", "non-", "non", "in", "dis")
_LAST_NOUN = re.compile(r"([A-Za-z][\w-]*)\W*$")
_NOT_NOUNS = frozenset("it them this that one there here mean cost take weigh".split())
# A part this short ("and why?") is no question of its own: it stays with the part before it.
_MIN_PART_WORDS = 3
_CODE = re.compile(r"[a-z]{1,3}\d{1,3}")  # a model or size in a series: K3, A4, B12


def split_parts(question: str) -> list[str]:
    """The separate questions of ``question``, in order (one part when it asks one thing).

    Parts end at a question mark followed by more text, or start at "and", "also",
    "plus" or ";" followed by a question word ("…mean, and what does…").  A part that
    says "one" for a noun the part before it names ("…for an unused printer as well as
    the fee for a used one") names the noun, so that it can be searched on its own.
    """
    parts = _split(question)
    return [parts[0], *(_with_antecedent(a, b) for a, b in zip(parts, parts[1:], strict=False))] if parts else parts


# A part that asks the part before it again for another case, leaving the rest unsaid: "And for a child?",
# "What on Sundays?", "And a half day?".
_ELLIPTIC = re.compile(r"^(?:and|or|what about|how about|what|and what)\s+(?P<rest>(?P<prep>on|in|at|for|with|during|"
                       r"from|by)\s+[^?]+|(?:a|an|the)\s+[^?]+?)\s*\?\s*$", re.IGNORECASE)


def _completed(before: str, part: str) -> str:
    """An elliptic ``part`` ("And on a weekend?") asked as ``before`` is, with its case put in place of the case
    ``before`` names ("How much is court hire on weekdays?" → "How much is court hire on Sundays?"); ``part``
    itself when it is no such fragment or ``before`` has no phrase of the kind to put it in place of."""
    m = _ELLIPTIC.match(part.strip())
    if m is None or not before.rstrip().endswith("?"):
        return part
    rest = m["rest"].strip()
    body = before.rstrip()[:-1]
    if m["prep"]:
        # The same preposition's phrase, up to the next preposition or the end: "on a weekday" in "… on a weekday".
        same = list(re.finditer(rf"\b{m['prep']}\s+[^,;]+?(?=\s+(?:{_PREPOSITION})\s|$)", body, re.IGNORECASE))
        return f"{body[:same[-1].start()]}{rest}{body[same[-1].end():]}?" if same else f"{body} {rest}?"
    # "And a half day?" after "a full-day private lesson": the noun phrase whose word its last word shares.
    head = re.split(r"[\s-]", rest)[-1].lower()
    for np in re.finditer(r"\b(?:a|an|the)\s+(?:[\w'-]+\s+){0,2}?[\w'-]+", body, re.IGNORECASE):
        if head in re.split(r"[\s-]", np.group(0).lower())[1:]:
            cut = np.start() + np.group(0).lower().rindex(head) + len(head)
            return f"{body[:np.start()]}{rest}{body[cut:]}?"
    return part


def _with_antecedent(before: str, part: str) -> str:
    """``part`` with its "one" written out from ``before``, the part before it.

    "the one at B" after "the fee at A" is "the fee at B": a "one" before a preposition
    stands for the noun phrase before the first preposition of ``before``.  "the
    20-litre one" after "the 10-litre bucket" is "the 20-litre bucket": a modifier of
    the same kind as one in ``before`` takes the words after that one.  Any other "a used
    one" takes the noun that ends ``before``.
    """
    part = _completed(before, part)
    m = _ONE.search(part)
    phrase = None if m is None else _antecedent(before, m["mod"], m["pp"] is not None)
    return part if m is None or phrase is None else f"{part[:m.start()]}{m['det']}{phrase}{part[m.end():]}"


def _antecedent(before: str, mod: str | None, before_preposition: bool) -> str | None:
    """What "[<mod>] one" stands for after ``before`` (the determiner left out), or None when nothing names it."""
    words = before.rstrip(" ?.!").split()
    if mod is not None and (i := next((i for i, w in enumerate(words) if _parallel(w, mod)), None)) is not None:
        taken = list(itertools.takewhile(lambda w: w.lower() not in _PHRASE_END, words[i + 1:]))
        if taken:
            return f"{mod} {' '.join(taken)}"
    if mod is None and before_preposition and (head := _HEAD_PHRASE.search(before)):
        return head["np"]
    noun = _LAST_NOUN.search(before)
    if noun is None or noun.group(1).lower() in _NOT_NOUNS:
        return None
    return f"{mod} {noun.group(1)}" if mod else noun.group(1)


def _parallel(word: str, other: str) -> bool:
    """Two modifiers of one kind: "10-litre" and "20-litre", "two-hour" and "four-hour", "used" and "unused",
    "paperback" and "hardback", "K3" and "K4", "drop-off" and "drop-in" (the same word after or before a hyphen, a
    negating prefix, a shared ending of 4+ letters, or one series' codes)."""
    a, b = word.lower().strip(",;"), other.lower().strip(",;")
    if a == b or not a or not b:
        return False
    if "-" in a and "-" in b:
        return a.rsplit("-", 1)[1] == b.rsplit("-", 1)[1] or a.split("-", 1)[0] == b.split("-", 1)[0]
    if any(a == n + b or b == n + a for n in _NEGATIONS):
        return True
    if _CODE.fullmatch(a) and _CODE.fullmatch(b) and a.rstrip("0123456789") == b.rstrip("0123456789"):
        return True
    shared = len(os.path.commonprefix([a[::-1], b[::-1]]))
    return shared >= 4 and min(len(a), len(b)) - shared >= 2


def _distributed(a: str, b: str) -> str:
    """``a`` with the head noun ``b`` ends on, when ``a`` stops at a modifier of ``b``'s kind ("the two-hour and the
    four-hour prices": the two-hour prices; "a paperback or a hardback copy": a paperback copy)."""
    first, second = a.split(), b.split()
    if not first or len(second) < 2:
        return a
    i = next((i for i, w in enumerate(second[:-1]) if _parallel(first[-1], w)), None)
    return a if i is None else " ".join([*first, *second[i + 1:]])


_WHO_IS = re.compile(r"^\s*who\s+(?:is|are|was|were)\b", re.IGNORECASE)


def _names_role(phrase: str) -> bool:
    """Whether a noun ``phrase`` ("the head of the library") names a kind of person by its head, not a thing a question
    asks the value of ("the fare for a dog": a fare is a passenger too, but first a sum)."""
    head = re.split(r"\s+(?:of|for|at|in|on|to|with|from)\s+", phrase.strip(" ?.!").lower())[0].split()[-1]
    return lexicon().kind_of(head, "person") and not type_word(head)


def _split(question: str) -> list[str]:
    pieces = [p.strip(" ,;") for p in _JOINED.split(question.strip())]
    if len(pieces) > 1 and any(_ATTRIBUTES.match(p) or _WHICH_MORE.match(p) for p in pieces):
        # "Which costs more, A or B, and how much is C?": the comparison's two parts, then the next question's.
        return [_as_question(part) for p in pieces if not _BY_HOW.match(p) for part in _split(p)]
    if (m := _ATTRIBUTES.match(question.strip())) and not _NEXT_PHRASE.search(m["thing"]):
        ask = m["ask"].split()[0].capitalize() + " is" if m["ask"].lower().startswith("what") else "What is"
        b, rel, thing = m["b"], m["rel"], m["thing"]
        if own := _OWN_COMPLEMENT.match(thing):
            b, rel, thing = f"{b} {rel} {own['own']}", own["rel"], own["thing"]
        return [f"{ask} the {attribute} {rel} {thing}?" for attribute in (_distributed(m["a"], b), b)]
    if m := _WHICH_MORE.match(question.strip()):
        # "Which is faster, the tram or the bus?" is answered by both durations.
        template = next(t for pattern, t in _COMPARATIVES if re.fullmatch(pattern, m["cmp"], re.IGNORECASE)) or (
            f"How {_positive(m['cmp'].split()[-1].lower())} is {{}}?")
        a, b = m["a"].strip(), m["b"].strip()
        b = _one_for(a, b)
        a = _distributed(a, b)
        tail = f" {m['mod'].strip()}?" if m["mod"] else "?"
        return [template.format(side)[:-1] + tail for side in (a, b)]
    if pair := _coordinated(question.strip()):
        return pair
    parts: list[str] = []
    for sentence in _SENTENCE_END.split(question.strip()):
        for piece in (p for joined in _JOINED.split(sentence) for noun in _NOUN_JOINED.split(joined)
                      for p in _listed(noun)):
            piece = piece.strip(" ,;")
            if not piece:
                continue
            if parts and len(piece.split()) < _MIN_PART_WORDS:
                parts[-1] = f"{parts[-1]} {piece}"
            else:
                parts.append(piece)
    if len(parts) < 2:
        return [question.strip()]
    if m := WHO_DOES.match(parts[0]):
        # "Who manages the shop, as well as the café?": a noun phrase after it is asked by the same verb.
        parts = [parts[0], *(f"{m.group(0)} {p}" if _DETERMINER.match(p) else p for p in parts[1:])]
    elif m := _WHO_IS.match(parts[0]):
        # "Who is the skipper, as well as the chief of the ferry crew?": a role after it is asked "who is" too; a
        # thing ("the fare for a dog") is asked "what is".
        parts = [parts[0], *(f"{m.group(0)} {p}" if _DETERMINER.match(p) and _names_role(p) else p for p in parts[1:])]
    return [_as_question(p) for p in parts]


def _coordinated(question: str) -> list[str] | None:
    """The two questions of "Compare X with Y" or of two coordinated noun phrases ("Tell me X and its Y"); else None."""
    if m := _COMPARE_WITH.match(question) or _COMPARE.match(question):
        a, b = m["a"].strip(), m["b"].strip()
        if (of := _OF.match(a)) and b.lower().startswith(of["attr"].lower() + " ") and not _OF.match(b):
            # "the opening hour of the kiosk in spring with the opening hour in autumn": B changes A's last phrase.
            rest = b[len(of["attr"]):].strip()
            prep = rest.split()[0]
            head, sep, _ = a.rpartition(f" {prep} ")
            b = f"{head} {rest}" if sep else f"{a} {rest}"
        elif _ONE_FOR.match(b):
            b = _one_for(a, b)  # "a wash for A with one for B"
        elif (same := _same_head(a, b)) is not None:
            b = same  # "the hours a small lawn takes with a large lawn": B stands in A for the phrase it matches
        elif (wh := re.match(rf"^(?:what|how)\b.*?(?=\s{_DETERMINERS}\s)", a, re.IGNORECASE)) and _DETERMINER.match(b):
            b = f"{wh.group(0)} {b}"  # "how deep the harbour is at A with the harbour at B": B's is asked the same
        elif of and not _OF.match(b):
            b = f"{of['attr']} of {b}"  # "the price of A with B": B's price
        elif (_DETERMINER.match(a) and not _DETERMINER.match(b) and 2 <= len(a.split()) <= 3
              and len(b.split()) > len(a.split()) - 1 and not _PP.search(f" {a} ")):
            # "Compare the weekly and monthly passes at the gym": A's words qualify the head B goes on with.
            det, *qualifiers = a.split()
            rest = " ".join(b.split()[len(qualifiers):])
            a, b = f"{a} {rest}", f"{det} {b}"
        if (place := _PLACE.search(b)) and not re.search(r"\s(?:at|in|on|from)\s", a):
            a = f"{a}{place.group(0)}"  # "compare A with B at <place>": A is the place's too
        return [_asked(a), _asked(b)]
    if m := _SHARED_VERB.match(question):
        return [f"{m['q'].capitalize()} {m['aux']} {m[n].strip()} {m['verb']}?" for n in ("a", "b")]
    if (m := _SHARED_SUBJECT_VERB.match(question)) and m["a"].split()[0].lower() not in _PRONOUNS:
        return [f"{m['q'][0].upper()}{m['q'][1:]} does {m[n].strip()} {m['verb']}?" for n in ("a", "b")]
    if m := _SHARED_HEAD.match(question):
        return [_as_question(f"{m['head']} {m[n].strip()}") for n in ("a", "b")]
    m = _PHRASES.match(question)
    if m is None or re.search(r"\bbetween\b", m["a"], re.IGNORECASE) or "?" in m["a"]:
        return None  # "the difference between A and B" is one thing; a "?" ends a question, no phrase runs past it
    a, b = m["a"].strip(), m["b"].strip()
    pronoun = re.match(r"(?:its|their|his|her)\s", b, re.IGNORECASE)
    if pronoun and (of := re.search(r"\s(?:of|for)\s+(.+)$", a)):
        b = f"the {b[pronoun.end():]} of {of.group(1)}"  # "the level of the lake's water and its colour": the water's
    elif pronoun and (owner := _POSSESSOR.search(f"{a} ")):
        b = owner.group(1) + b[b.index(" "):]  # "the lamp's price and its colour": the lamp's colour
    return [f"What is {a}?", f"What is {b}?"]


def _asked(side: str) -> str:
    """One side of a comparison as a question: a clause opening with a wh-word ("how deep the harbour is at A") is
    asked as it stands, a noun phrase as what it is."""
    return f"{side[0].upper()}{side[1:]}?" if _WH_CLAUSE.match(side) else f"What is {side}?"


def _positive(comparative: str) -> str:
    """The adjective a comparative is of ("higher": high, "bigger": big, "earlier": early, "wider": wide)."""
    w = comparative
    stems = (w[:-2], w[:-1], w[:-3] if w[-3:-2] == w[-4:-3] else "", w[:-3] + "y" if w.endswith("ier") else "")
    return next((a for a in stems if a and lexicon().usual_part(a) == "a"),
                next((a for a in stems if a and lexicon().knows(a)), comparative[:-2]))


def _one_for(a: str, b: str) -> str:
    """``b`` with its leading "one for …" given ``a``'s noun phrase ("a locker for a bag" / "one for a case")."""
    return _PP.split(a, maxsplit=1)[0] + " " + b[4:] if _ONE_FOR.match(b) else b


def _same_head(a: str, b: str) -> str | None:
    """``a`` with ``b`` in place of the phrase of ``a`` ending on ``b``'s noun, when ``b`` is a bare noun phrase
    ("a large lawn" in "the hours a small lawn takes"); None when ``b`` has a preposition or no such phrase."""
    words = b.split()
    if not _DETERMINER.match(b) or _PP.search(f" {b} "):
        return None
    if len(words) > 4 or not (found := re.search(rf"\b(?:the|a|an)\s+(?:[\w-]+\s+){{0,2}}{re.escape(words[-1])}\b", a,
                                                 re.IGNORECASE)):
        # "to lift a boat of up to 8 m with a boat over 8 m": B's noun and what qualifies it close A.
        found = re.search(rf"\b(?:the|a|an)\s+{re.escape(words[1])}\b.*$", a, re.IGNORECASE) if len(words) > 2 else None
    return None if found is None else a[:found.start()] + b + a[found.end():]


def _listed(piece: str) -> list[str]:
    pieces = _LISTED.split(piece)
    return pieces if all(_STARTS_AS_QUESTION.match(p.strip()) for p in pieces) else [piece]


def route(question: str) -> str:
    """``factual`` (single-shot), ``multi-part``, ``comparison`` or ``summary``: decided without a model."""
    if len(split_parts(question)) > 1:
        return "multi-part"
    if _COMPARISON.search(question):
        return "comparison"
    if _SUMMARY.search(question):
        return "summary"
    return "factual"


def _as_question(part: str) -> str:
    part = part.strip()
    if m := _REQUEST.match(part):
        # "Tell me the fee for a locker": a request for a noun phrase is the question "What is …?"; one
        # for a clause ("tell me when visitors may park") is that clause.
        rest = m["rest"].rstrip(" ?.!")
        part = rest if _STARTS_AS_QUESTION.match(rest) else f"What is {rest}"
    elif _DETERMINER.match(part):
        part = f"What is {part.rstrip(' ?.!')}"  # "…, as well as the cost of a cake": a noun phrase asked for
    if (_STARTS_AS_QUESTION.match(part) or part.lower().startswith("whether ")) and part.endswith("."):
        part = part[:-1]  # "…, and when visitors may park." asks a question all the same
    part = part[0].upper() + part[1:] if part else part
    return part if part.endswith(("?", ".", "!")) else f"{part}?"
