"""Calendar dates stated in texts, relative dates resolved against a document's date, and the event order they
imply."""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass

MONTHS = {
    m: i
    for i, names in enumerate(
        [("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
         ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"),
         ("november", "nov"), ("december", "dec")],
        start=1,
    )
    for m in names
}
_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_PATTERNS = [
    re.compile(_MONTH + r"\s+(?P<day>\d{1,2})(?:st|nd|rd|th)?(?:[-\u2013]\d{1,2})?(?:,?\s+(?P<year>(?:19|20)\d\d))?\b",
               re.I),
    re.compile(r"\b(?P<day>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH + r"(?:,?\s+(?P<year>(?:19|20)\d\d))?\b",
               re.I),
    re.compile(r"\b" + _MONTH + r"\s+(?:of\s+)?(?P<year>(?:19|20)\d\d)\b", re.I),
    re.compile(r"\b(?:in|since|by|during|of)\s+(?P<year>(?:19|20)\d\d)\b", re.I),
]


@dataclass(frozen=True, order=True)
class PartialDate:
    """A date as precise as the text states it; missing parts are None."""

    year: int | None
    month: int | None
    day: int | None


# A date right after these words is not when the event happened ("taxes effective January 1").
_NOT_EVENT_DATE = re.compile(r"\b(?:effective|until|through|by|to|from|since)$", re.I)
_LONGEST_NOT_EVENT_WORD = len("effective") + 1  # with the character before it, for the word boundary


def _after_not_event_word(text: str, start: int) -> bool:
    """Whether whitespace and one of the _NOT_EVENT_DATE words come right before `start`. It reads back over
    that whitespace and a word's length only, so that parsing a text costs time linear in its length."""
    end = start
    while end > 0 and text[end - 1].isspace():
        end -= 1
    return end < start and bool(_NOT_EVENT_DATE.search(text[max(0, end - _LONGEST_NOT_EVENT_WORD) : end]))


def parse_date(text: str) -> PartialDate | None:
    """The first date expression in the text ("On December 29", "March 2020", "in 2019"), or None when there
    is none, or when the text names two different years (a span: "from 2020 to May 2025")."""
    if len(set(re.findall(r"\b(?:19|20)\d\d\b", text))) > 1:
        return None
    hits = []
    for pattern in _PATTERNS:
        for m in pattern.finditer(text):
            if _after_not_event_word(text, m.start()):
                continue
            groups = m.groupdict()
            month = MONTHS[groups["month"].lower()] if groups.get("month") else None
            day = int(groups["day"]) if groups.get("day") else None
            if day is not None and not 1 <= day <= 31:
                continue
            year = int(groups["year"]) if groups.get("year") else None
            hits.append((m.start(), -(m.end() - m.start()), PartialDate(year, month, day)))
    return min(hits)[2] if hits else None


def is_after(a: PartialDate, b: PartialDate) -> bool:
    """True when a is certainly later than b at the precision both state.

    Without years, month-day dates are compared only when less than six months apart (else the year
    boundary makes the order ambiguous)."""
    if a.year is not None and b.year is not None and a.year != b.year:
        return a.year > b.year
    if a.year != b.year and (a.year is None) != (b.year is None):
        return False
    if a.month is None or b.month is None:
        return False
    if a.year is None and abs(a.month - b.month) >= 6:
        return False
    if a.month != b.month:
        return a.month > b.month
    if a.day is None or b.day is None:
        return False
    return a.day > b.day


def later_pairs(texts: dict[int, str], pairs: list[tuple[int, int]]) -> set[tuple[int, int]]:
    """The candidate pairs (E, T) whose stated dates put E after T."""
    dates = {n: parse_date(t) for n, t in texts.items()}
    return {(e, t) for e, t in pairs if (a := dates[e]) and (b := dates[t]) and is_after(a, b)}


WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "ten": 10}
_COUNT = r"(?P<n>\d{1,2}|" + "|".join(NUMBERS) + r")"
# Relative expressions -> how many days they move from the anchor (None: a weekday, resolved separately).
_RELATIVE = [
    (re.compile(r"\b(?P<which>next\s+|last\s+|on\s+|this\s+(?:past\s+)?)?(?P<weekday>" + "|".join(WEEKDAYS) + r")\b",
                re.I), None),
    (re.compile(r"\byesterday\b", re.I), -1),
    (re.compile(r"\b(?:today|this morning|tonight)\b", re.I), 0),
    (re.compile(r"\b" + _COUNT + r"\s+days?\s+ago\b", re.I), "-days"),
    (re.compile(r"\b" + _COUNT + r"\s+weeks?\s+ago\b", re.I), "-weeks"),
    (re.compile(r"\blast\s+week\b", re.I), -7),
    (re.compile(r"\b" + _COUNT + r"\s+days?\s+later\b", re.I), "+days"),
]


def anchor_date(iso: str, stated: list[PartialDate]) -> datetime.date | None:
    """The date a document's relative expressions count from: its publication date (ISO) where the data gives
    one, else the latest full date it states (news is written soon after the latest day it reports)."""
    if iso:
        return datetime.date.fromisoformat(iso)
    full = [f for f in map(full_date, stated) if f]
    return max(full) if full else None


def day_number(d: PartialDate, year: int | None = None) -> int | None:
    """The day a date stands for, as a proleptic Gregorian ordinal, at the precision it states: a missing year
    is `year`, a missing month mid-year, a missing day mid-month; None without a year, or for no real day."""
    year = d.year or year
    if year is None:
        return None
    try:
        return datetime.date(year, d.month or 7, d.day or (15 if d.month else 2)).toordinal()
    except ValueError:
        return None


def date_text(date: PartialDate | None) -> str:
    """A date as far as it is known: "2024-03-07", "2024-03", "03-07" (no year), or "" for none."""
    if date is None:
        return ""
    return "-".join(([str(date.year)] if date.year else []) + [f"{v:02d}" for v in (date.month, date.day)
                                                               if v is not None])


def iso_day(iso: str) -> int | None:
    """The ordinal of a yyyy-mm-dd publication date; None for "" or no real day."""
    try:
        return datetime.date.fromisoformat(iso).toordinal() if iso else None
    except ValueError:
        return None


def full_date(d: PartialDate | None) -> datetime.date | None:
    """The calendar day of a date that states year, month and day (None otherwise, or when it is no real day)."""
    if d is None or not (d.year and d.month and d.day):
        return None
    try:
        return datetime.date(d.year, d.month, d.day)
    except ValueError:
        return None


def relative_date(text: str, anchor: datetime.date, previous: datetime.date | None = None) -> PartialDate | None:
    """The first relative date expression of the text ("on Tuesday", "yesterday", "two days ago", "last week")
    resolved against the document's anchor date: a weekday is the latest such day on or before it (news
    reports the past), "last Tuesday" the one before it, "next Tuesday" the first after it; "three days later"
    counts from `previous`, the last full date the document stated before the text."""
    hits = []
    for pattern, shift in _RELATIVE:
        m = pattern.search(text)
        if not m:
            continue
        if shift is None:
            which = (m.group("which") or "").split()
            back = (anchor.weekday() - WEEKDAYS.index(m.group("weekday").lower())) % 7
            if which[:1] == ["next"]:  # the first such day after the anchor
                back -= 7
            elif which[:1] == ["last"] and back == 0:  # "last Wednesday" written on a Wednesday
                back = 7
            day = anchor - datetime.timedelta(days=back)
        elif isinstance(shift, str):
            n = m.group("n").lower()
            n = int(n) if n.isdigit() else NUMBERS[n]
            sign, unit = shift[0], shift[1:]
            days = n * (7 if unit == "weeks" else 1)
            if sign == "-":
                day = anchor - datetime.timedelta(days=days)
            elif previous is None:  # "three days later" with no full date stated before it
                continue
            else:
                day = previous + datetime.timedelta(days=days)
        else:
            day = anchor + datetime.timedelta(days=shift)
        hits.append((m.start(), PartialDate(day.year, day.month, day.day)))
    return min(hits)[1] if hits else None
