"""The catalogues (callbreak.i18n) are complete, and no English is left in the web client.

- every key is in every language, with the same ``{placeholders}``, and plural entries have the
  forms each language needs (``one`` and ``other``);
- every error code the server sends has a wording (the client words refusals from their codes);
- every key the client asks for exists;
- the client's JavaScript and ``index.html`` hold no user-facing text of their own: a lexer reads
  every string literal of ``static/*.js`` and flags the ones that read as English (a capitalised
  word, or words with spaces), outside the few explicit exceptions in `NOT_TEXT`; the text in
  ``index.html`` (its fallback before the script runs) is held equal to the English catalogue.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from callbreak.i18n import DIR, LANGUAGES, catalogue, choose_language, digits, language_from_env, placeholders
from callbreak.server.protocol import ErrorCode

STATIC = Path(__file__).resolve().parents[1] / "src" / "callbreak" / "server" / "static"
SCANNED = sorted(p for p in STATIC.glob("*.js") if p.name != "sw.js")

#: string literals that are not text a person reads, each with its reason (kept small on purpose)
NOT_TEXT = {
    "ArrowRight": "a key name (KeyboardEvent.key)",
    "ArrowLeft": "a key name",
    "ArrowDown": "a key name",
    "ArrowUp": "a key name",
    "Home": "a key name",
    "End": "a key name",
    "Enter": "a key name",
    "Escape": "a key name",
    "Tab": "a key name",
    "Content-Type": "an HTTP header",
    "Callbreak": "the game's name in the share sheet's title (a brand, as on the home screen icon)",
    "field wide": "CSS classes (util.js fieldClass)",
    "English": "a language's name in itself, in the language menu (i18n.js LANGUAGES)",
    "callbreak serve --host 0.0.0.0": "a command to type, shown as code",
}

#: contexts whose literals are for developers, not players: errors thrown for programming
#: mistakes, console messages, CSS classes and selectors
DEV_CONTEXT = re.compile(
    r"(new (?:Type|Range)?Error\(|console\.\w+\(|class: |className = |classList\.\w+\(|querySelector(?:All)?\(|closest\()\s*$"
)


def test_every_language_has_every_key_with_the_same_placeholders() -> None:
    english = catalogue("en")
    for lang in LANGUAGES:
        own = catalogue(lang)
        assert sorted(own) == sorted(english), f"{lang}: keys differ: {set(own) ^ set(english)}"
        for key, entry in english.items():
            theirs = own[key]
            assert placeholders(theirs) == placeholders(entry), (lang, key, theirs)
            assert isinstance(theirs, dict) == isinstance(entry, dict), (
                lang,
                key,
                "plural in one, not the other",
            )
            if isinstance(theirs, dict):
                assert set(theirs) == {"one", "other"}, (lang, key)
                assert all("{count}" in form for form in theirs.values()), (lang, key)


def test_translations_are_translated() -> None:
    """A translation equal to the English is allowed only for text without words (numbers,
    symbols, names such as WhatsApp): anything else would show English on screen."""
    english = catalogue("en")
    for lang in ("ne", "hi", "bn"):
        same = [
            k
            for k, v in catalogue(lang).items()
            if v == english[k] and isinstance(v, str) and re.search(r"[a-z]{3,}", re.sub(r"\{\w+\}", "", v))
        ]
        assert same == ["lobby.whatsapp", "preset.short.bhoos", "preset.short.pagat"], (lang, same)
        # nor an English abbreviation (the score sheet's "SD" for sudden death was one), but names
        latin = [
            k
            for k, v in catalogue(lang).items()
            if v == english[k] and isinstance(v, str) and re.search(r"[A-Za-z]", re.sub(r"\{\w+\}", "", v))
        ]
        assert latin == ["lobby.sms", "lobby.whatsapp", "preset.short.bhoos", "preset.short.pagat", "replay.json"], latin


def test_the_calculators_buttons_name_the_sheet_not_a_file_format() -> None:
    """"JSON डाउनलोड", "JSON कपी" on a Nepali score keeper's screen (a newcomer's try): a file
    format's name is jargon to most players, in every language."""
    for lang in ("en", "ne", "hi", "bn"):
        words = catalogue(lang)
        assert [k for k in ("calc.download", "calc.copy", "calc.load") if "JSON" in str(words[k])] == [], lang


def test_the_turn_timer_says_seconds_as_the_home_page_does() -> None:
    """An abbreviation cut from the word for seconds reads as another word ("29से": Hindi "from",
    Bengali "সে": "he, she"); English keeps its "29s"."""
    for lang in ("ne", "hi", "bn"):
        c = catalogue(lang)
        assert c["table.secs"].replace("{secs}", "{n}") == c["home.seconds"], (lang, c["table.secs"])


def test_no_colon_doubled_by_a_visarga() -> None:
    """A visarga (ः) is a word's last letter, not punctuation: one before a colon reads as "::"
    (the Nepali rules page had "क्रमशः:")."""
    for lang in LANGUAGES:
        doubled = [k for k, v in catalogue(lang).items() if isinstance(v, str) and re.search(r"ः\s*:|::", v)]
        assert doubled == [], (lang, doubled)


def test_catalogue_files_are_sorted_json_objects() -> None:
    """One key a line, sorted: a translator's diff shows only what changed."""
    for lang in LANGUAGES:
        text = (DIR / f"{lang}.json").read_text(encoding="utf-8")
        data = json.loads(text)
        assert list(data) == sorted(data), lang
        assert text == json.dumps(data, ensure_ascii=False, indent=1) + "\n", lang


def test_every_error_code_is_worded() -> None:
    for lang in LANGUAGES:
        missing = [c.value for c in ErrorCode if f"error.{c.value}" not in catalogue(lang)]
        assert missing == [], (lang, missing)


def test_every_key_the_client_asks_for_exists() -> None:
    english = catalogue("en")
    asked: set[str] = set()
    for path in SCANNED:
        asked |= set(re.findall(r"\b(?:t|tr)\(\"([\w.]+)\"", path.read_text(encoding="utf-8")))
    asked |= set(
        re.findall(r'data-i18n(?:-[\w-]+)?="([\w.]+)"', (STATIC / "index.html").read_text(encoding="utf-8"))
    )
    assert len(asked) > 300
    assert sorted(asked - set(english)) == []


# --- no English left in the client -----------------------------------------------------------
def string_literals(source: str) -> list[tuple[int, str, str]]:
    """``(offset, text, code before it)`` of each string literal (template literals: their fixed
    parts) in JavaScript ``source``, skipping comments and regular expressions.

    >>> [t for _, t, _ in string_literals('a("x y", `p ${b} q`); // "no"\\nx = /"re"/.test(c)')]
    ['x y', 'p ', ' q']
    """
    out: list[tuple[int, str, str]] = []
    i, n = 0, len(source)
    last = ""  # the last significant character outside strings and comments
    depth: list[int] = []  # brace depth at each open ${ of a template literal
    braces = 0

    opened: list[str] = []  # the code before each open template literal

    def template(i: int, resumed: bool = False) -> int:
        """Read a template literal's fixed part from i (after ` or }); return where it stopped.
        Each part is reported with the code before the literal's opening backtick."""
        if not resumed:
            opened.append(source[max(0, i - 41) : i - 1])
        start = i
        while i < n:
            c = source[i]
            if c == "\\":
                i += 2
                continue
            if c == "`":
                out.append((start, source[start:i], opened.pop()))
                return i + 1
            if source.startswith("${", i):
                out.append((start, source[start:i], opened[-1]))
                depth.append(braces)
                return i + 2
            i += 1
        return i

    while i < n:
        c = source[i]
        if source.startswith("//", i):
            i = source.find("\n", i) if "\n" in source[i:] else n
            continue
        if source.startswith("/*", i):
            i = source.index("*/", i) + 2
            continue
        if c in "\"'":
            j = i + 1
            while source[j] != c:
                j += 2 if source[j] == "\\" else 1
            out.append((i + 1, source[i + 1 : j], source[max(0, i - 40) : i]))
            i, last = j + 1, "a"
            continue
        if c == "`":
            i, last = template(i + 1), "a"
            continue
        if c == "/" and (last == "" or last in "(,=:[!&|?{};+"):
            j, in_class = i + 1, False
            while source[j] != "/" or in_class:
                if source[j] == "\\":
                    j += 1
                elif source[j] == "[":
                    in_class = True
                elif source[j] == "]":
                    in_class = False
                j += 1
            i, last = j + 1, "a"
            continue
        if c == "{":
            braces += 1
        elif c == "}":
            if depth and depth[-1] == braces:
                depth.pop()
                i, last = template(i + 1, resumed=True), "a"
                continue
            braces -= 1
        if not c.isspace():
            last = c
        i += 1
    return out


def reads_as_english(text: str) -> bool:
    """A capitalised word ("Play now", "Rules") or two lowercase words with a space ("no limit")."""
    if re.search(r"\b[A-Z][a-z]+\b", text):
        return True
    return bool(re.search(r"\b[a-z]{2,}\b [a-z]{2,}\b", text))


def english_literals(path: Path) -> list[str]:
    found = []
    source = path.read_text(encoding="utf-8")
    for offset, text, before in string_literals(source):
        if text in NOT_TEXT or DEV_CONTEXT.search(before) or not reads_as_english(text):
            continue
        line = source.count("\n", 0, offset) + 1
        found.append(f"{path.name}:{line}: {text!r}")
    return found


def test_the_scanner_finds_english() -> None:
    """The check can fail: each of these would be reported."""
    for snippet in (
        'h("p", null, "Play now")',
        "toast(`Round ${n} is over.`)",
        'x = "no limit"',
        "a = 'Rules'",
    ):
        assert [
            t for _, t, b in string_literals(snippet) if reads_as_english(t) and not DEV_CONTEXT.search(b)
        ]
    for snippet in ('h("div", { class: "btn primary big" })', 'e.key === "Enter"', 't("table.hint")'):
        assert not [
            t
            for _, t, b in string_literals(snippet)
            if t not in NOT_TEXT and reads_as_english(t) and not DEV_CONTEXT.search(b)
        ]


@pytest.mark.parametrize("path", SCANNED, ids=[p.name for p in SCANNED])
def test_no_english_left_in_the_client(path: Path) -> None:
    assert english_literals(path) == []


def test_the_stylesheet_shows_no_words() -> None:
    """A word drawn by CSS (``content: "auto"``) is in no catalogue: every language would read it
    in English; the page gives such a word in an attribute (``content: attr(data-auto)``)."""
    css = (STATIC / "style.css").read_text(encoding="utf-8")
    words = re.findall(r"content:\s*(\"[^\"]*\"|'[^']*')", css)
    assert [w for w in words if re.search(r"[A-Za-z]{2,}", w)] == []
    assert "content: attr(data-auto)" in css


class _Texts(HTMLParser):
    """The text of index.html with the data-i18n key of the element holding it."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[dict[str, str | None]] = []
        self.texts: list[tuple[str | None, str]] = []
        self.attrs: list[tuple[str, str, str]] = []  # (attribute, value, key)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        for name in ("aria-label", "title", "content", "placeholder", "alt"):
            value = a.get(name)
            if value is not None and (tag != "meta" or a.get("name") == "description"):
                self.attrs.append((name, value, a.get(f"data-i18n-{name}") or ""))
        if tag not in ("meta", "link", "br", "img", "path", "input"):
            self.stack.append(a)

    def handle_endtag(self, tag: str) -> None:
        if tag not in ("meta", "link", "br", "img", "path", "input") and self.stack:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        if data.strip() and self.stack:
            self.texts.append((self.stack[-1].get("data-i18n"), data.strip()))


def test_index_html_text_is_the_english_catalogue() -> None:
    """Every word in index.html (shown until the script has worded the page, and with no
    script at all) is marked with its key and equals the English catalogue."""
    english = catalogue("en")
    p = _Texts()
    p.feed((STATIC / "index.html").read_text(encoding="utf-8"))
    words = [(k, t) for k, t in p.texts if re.search(r"[A-Za-z]{2,}", t)]
    assert words, "the parser found no text"
    assert [(k, t) for k, t in words if k is None or english.get(k) != t] == []
    for name, value, key in p.attrs:
        assert key and english.get(key) == value, (name, value)


def test_languages_from_the_environment() -> None:
    assert language_from_env({"LANG": "hi_IN.UTF-8"}) == "hi"
    assert language_from_env({"LANGUAGE": "fr:ne", "LANG": "en_US.UTF-8"}) == "ne"
    assert language_from_env({"LANGUAGE": "en_GB:bn"}) == "en"
    assert language_from_env({}) == "en"
    assert choose_language("bn-BD") == "bn"
    assert digits("ne", "Round 12") == "Round १२"
