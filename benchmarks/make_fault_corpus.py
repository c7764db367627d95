"""Write the fault corpus: small projects with one injected fault each, in fixtures/faults/.

Each fault is one textual edit of one file of a base project (benchmarks/faults_base.py):
a typo, a dropped colon, a lost ``return``... the kinds of slip the issue names, in both
places they happen (where a name is used, and where it is defined). They were written to be
realistic, not to suit auto-debug: some have no repair auto-debug can find, and the benchmark
reports them as they come out.

    fixtures/faults/_base/<project>/            the base projects, unchanged
    fixtures/faults/<class>/<NN>-<slug>/        one faulty project each, with FAULT.toml

    python benchmarks/make_fault_corpus.py            write (replacing the folder)
    python benchmarks/make_fault_corpus.py --check    exit 1 if the folder differs
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from faults_base import BASES, PYPROJECT

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "faults"


@dataclass(frozen=True)
class Fault:
    """One injected fault: replace ``old`` (which occurs once) by ``new`` in ``file``."""

    error_class: str
    slug: str
    base: str
    file: str
    old: str
    new: str
    description: str


def F(error_class: str, slug: str, base: str, file: str, old: str, new: str, what: str) -> Fault:
    return Fault(error_class, slug, base, file, old, new, what)


INV, TXT, GEO, LED = "inventory", "textkit", "geometry", "ledger"
STOCK, REPORT = "inventory/stock.py", "inventory/report.py"
WORDS, TOKENS = "textkit/words.py", "textkit/tokens.py"
SHAPES, ACCOUNTS, STATEMENT = "geometry/shapes.py", "ledger/accounts.py", "ledger/report.py"

FAULTS = [
    # -- syntax ------------------------------------------------------------------------------
    F(
        "syntax",
        "colon-def",
        INV,
        STOCK,
        "def value(self):",
        "def value(self)",
        "missing colon after a def",
    ),
    F(
        "syntax",
        "colon-if",
        INV,
        STOCK,
        "if count > item.quantity:",
        "if count > item.quantity",
        "missing colon after an if",
    ),
    F(
        "syntax",
        "colon-for",
        LED,
        ACCOUNTS,
        "for on, amount in account.history:",
        "for on, amount in account.history",
        "missing colon after a for",
    ),
    F(
        "syntax",
        "paren-call",
        GEO,
        SHAPES,
        "return math.hypot(b.x - a.x, b.y - a.y)",
        "return math.hypot(b.x - a.x, b.y - a.y",
        "unclosed parenthesis of a call",
    ),
    F(
        "syntax",
        "paren-generator",
        TXT,
        WORDS,
        'result = " ".join(word.capitalize() for word in text.split())',
        'result = " ".join(word.capitalize() for word in text.split()',
        "unclosed parenthesis around a generator",
    ),
    F(
        "syntax",
        "bracket-comprehension",
        GEO,
        SHAPES,
        "return [Point(p.x * factor, p.y * factor) for p in points]",
        "return [Point(p.x * factor, p.y * factor) for p in points",
        "unclosed bracket of a comprehension",
    ),
    F(
        "syntax",
        "comma-args",
        GEO,
        SHAPES,
        "Rect(min(xs), min(ys), max(xs), max(ys))",
        "Rect(min(xs), min(ys) max(xs), max(ys))",
        "missing comma between arguments",
    ),
    F(
        "syntax",
        "comma-dict",
        LED,
        ACCOUNTS,
        '{"owner": account.owner, "balance"',
        '{"owner": account.owner "balance"',
        "missing comma between dict items",
    ),
    F(
        "syntax",
        "unexpected-indent",
        INV,
        REPORT,
        "    label = item.name.ljust(width)",
        "        label = item.name.ljust(width)",
        "a line indented too far",
    ),
    F(
        "syntax",
        "expected-indent",
        TXT,
        TOKENS,
        "    def vocabulary(self):\n        words",
        "    def vocabulary(self):\n    words",
        "a function body not indented",
    ),
    F(
        "syntax",
        "string-message",
        LED,
        ACCOUNTS,
        'raise ValueError("insufficient funds")',
        'raise ValueError("insufficient funds)',
        "unterminated string in a call",
    ),
    F(
        "syntax",
        "string-pattern",
        TXT,
        WORDS,
        'r"[^a-z0-9]+", "-"',
        'r"[^a-z0-9]+, "-"',
        "a quote missing in the middle of a call",
    ),
    # -- name --------------------------------------------------------------------------------
    F(
        "name",
        "typo-return",
        INV,
        STOCK,
        "return round(total, 2)",
        "return round(totl, 2)",
        "a local misspelt where it is returned",
    ),
    F(
        "name",
        "swap-append",
        INV,
        STOCK,
        "low.append(item.sku)",
        "lwo.append(item.sku)",
        "a local with two letters swapped",
    ),
    F(
        "name",
        "swap-parameter",
        INV,
        REPORT,
        "label = item.name.ljust(width)",
        "label = item.name.ljust(widht)",
        "a parameter with two letters swapped",
    ),
    F(
        "name",
        "typo-builtin",
        TXT,
        TOKENS,
        "words = sorted(set(self.tokens()))",
        "words = sortd(set(self.tokens()))",
        "a builtin misspelt",
    ),
    F(
        "name",
        "missing-import-module",
        TXT,
        WORDS,
        "import re\n",
        "",
        "a standard-library module never imported",
    ),
    F(
        "name",
        "missing-import-symbol",
        TXT,
        WORDS,
        "from collections import Counter\n",
        "",
        "a standard-library class never imported",
    ),
    F("name", "missing-import-math", GEO, SHAPES, "import math\n", "", "math never imported"),
    F(
        "name",
        "missing-import-decimal",
        LED,
        ACCOUNTS,
        "from decimal import Decimal, InvalidOperation\n",
        "from decimal import InvalidOperation\n",
        "one name dropped from an import",
    ),
    F(
        "name",
        "missing-project-import",
        INV,
        REPORT,
        "from inventory.stock import Inventory\n",
        "",
        "a project class used in an annotation, never imported",
    ),
    F(
        "name",
        "misspelt-definition",
        GEO,
        SHAPES,
        "    count = len(points)",
        "    cuont = len(points)",
        "a local misspelt where it is assigned",
    ),
    F(
        "name",
        "misspelt-parameter",
        LED,
        ACCOUNTS,
        "def transfer(source, target, amount):",
        "def transfer(source, target, amuont):",
        "a parameter misspelt in the signature",
    ),
    F(
        "name",
        "missing-project-import-relative",
        LED,
        STATEMENT,
        "from .accounts import Account, parse_amount\n",
        "from .accounts import Account\n",
        "a project function dropped from an import",
    ),
    # -- attribute ---------------------------------------------------------------------------
    F(
        "attribute",
        "augmented",
        INV,
        STOCK,
        "item.quantity -= count",
        "item.quantiy -= count",
        "an attribute misspelt in an update",
    ),
    F(
        "attribute",
        "method-call",
        INV,
        REPORT,
        "inventory.total_value()",
        "inventory.totalvalue()",
        "a method called without its underscore",
    ),
    F(
        "attribute",
        "dict-method",
        INV,
        STOCK,
        "for item in self.items.values():\n            total",
        "for item in self.items.vaules():\n            total",
        "a dict method with two letters swapped",
    ),
    F(
        "attribute",
        "self-attribute",
        TXT,
        TOKENS,
        "normalize(self.text).split()",
        "normalize(self.txet).split()",
        "an instance attribute misspelt",
    ),
    F(
        "attribute",
        "module-function",
        GEO,
        SHAPES,
        "math.hypot(",
        "math.hypto(",
        "a module function misspelt",
    ),
    F(
        "attribute",
        "str-method",
        TXT,
        WORDS,
        "text.lower().split()",
        "text.lowr().split()",
        "a str method misspelt",
    ),
    F(
        "attribute",
        "module-constant",
        TXT,
        WORDS,
        "string.ascii_lowercase",
        "string.ascii_lowercas",
        "a module constant cut short",
    ),
    F(
        "attribute",
        "dataclass-field",
        GEO,
        SHAPES,
        "y = sum(p.y for p",
        "y = sum(p.yy for p",
        "a dataclass field misspelt",
    ),
    F(
        "attribute",
        "balance",
        LED,
        ACCOUNTS,
        '"balance": str(account.balance)',
        '"balance": str(account.balanse)',
        "an attribute misspelt in a dict",
    ),
    F(
        "attribute",
        "method-definition",
        GEO,
        SHAPES,
        "def perimeter(self):",
        "def perimiter(self):",
        "a method misspelt where it is defined",
    ),
    F(
        "attribute",
        "method-definition-2",
        INV,
        STOCK,
        "def low_stock(self, threshold=2):",
        "def low_stok(self, threshold=2):",
        "a method cut short where it is defined",
    ),
    F(
        "attribute",
        "attribute-definition",
        LED,
        ACCOUNTS,
        "        self.history = []",
        "        self.histroy = []",
        "an instance attribute misspelt where it is set",
    ),
    # -- import ------------------------------------------------------------------------------
    F(
        "import",
        "stdlib-swap",
        TXT,
        WORDS,
        "import textwrap",
        "import textwarp",
        "a standard-library module with two letters swapped",
    ),
    F(
        "import",
        "stdlib-from",
        INV,
        STOCK,
        "from collections import defaultdict",
        "from colections import defaultdict",
        "a standard-library module misspelt in from-import",
    ),
    F(
        "import",
        "stdlib-plural",
        GEO,
        SHAPES,
        "import math\n",
        "import maths\n",
        "a module name with an extra letter",
    ),
    F(
        "import",
        "stdlib-json",
        LED,
        ACCOUNTS,
        "import json\n",
        "import jsn\n",
        "a module name cut short",
    ),
    F(
        "import",
        "symbol-typo",
        LED,
        ACCOUNTS,
        "from datetime import date\n",
        "from datetime import daet\n",
        "a name misspelt in a from-import",
    ),
    F(
        "import",
        "symbol-typo-2",
        LED,
        ACCOUNTS,
        "Decimal, InvalidOperation\n",
        "Decimal, InvalidOperaton\n",
        "an exception class misspelt in a from-import",
    ),
    F(
        "import",
        "project-module",
        INV,
        REPORT,
        "from inventory.stock import Inventory",
        "from inventory.stocks import Inventory",
        "a project module misspelt",
    ),
    F(
        "import",
        "relative-typo",
        INV,
        "inventory/__init__.py",
        "from .stock import",
        "from .stokc import",
        "a relative import of a misspelt module",
    ),
    F(
        "import",
        "absolute-for-relative",
        TXT,
        "textkit/__init__.py",
        "from .words import",
        "from words import",
        "a sibling module imported as if top-level",
    ),
    F(
        "import",
        "relative-too-far",
        LED,
        STATEMENT,
        "from .accounts import",
        "from ..accounts import",
        "a relative import one level too far",
    ),
    F(
        "import",
        "project-symbol",
        GEO,
        "geometry/__init__.py",
        "from .shapes import Point, Rect",
        "from .shapes import Pont, Rect",
        "a project class misspelt in an import",
    ),
    F(
        "import",
        "project-definition",
        TXT,
        WORDS,
        "def normalize(text):",
        "def normalise(text):",
        "a function defined with another spelling than its importers use",
    ),
    # -- type --------------------------------------------------------------------------------
    F(
        "type",
        "keyword-stdlib",
        TXT,
        WORDS,
        "textwrap.wrap(text, width=width)",
        "textwrap.wrap(text, widht=width)",
        "a keyword misspelt in a call of a library function",
    ),
    F(
        "type",
        "keyword-project",
        INV,
        REPORT,
        "format_line(inventory.items[sku], width=24)",
        "format_line(inventory.items[sku], widht=24)",
        "a keyword misspelt in a call of a project function",
    ),
    F(
        "type",
        "keyword-class",
        LED,
        ACCOUNTS,
        'Account(owner, balance=Decimal("0"))',
        'Account(owner, balanse=Decimal("0"))',
        "a keyword misspelt in a constructor call",
    ),
    F(
        "type",
        "keyword-builtin",
        GEO,
        SHAPES,
        "distance(origin, p), reverse=True)",
        "distance(origin, p), reversed=True)",
        "a keyword of sorted() misspelt",
    ),
    F(
        "type",
        "parameter-renamed",
        GEO,
        SHAPES,
        "def scale(points, factor):\n    return [Point(p.x * factor, p.y * factor) for p in points]",
        "def scale(points, factr):\n    return [Point(p.x * factr, p.y * factr) for p in points]",
        "a parameter renamed in the definition, not in the callers",
    ),
    F(
        "type",
        "tuple-unpacked",
        LED,
        ACCOUNTS,
        "self.history.append((on, amount))",
        "self.history.append(on, amount)",
        "a tuple passed as two arguments",
    ),
    F(
        "type",
        "lost-parameter",
        LED,
        ACCOUNTS,
        "def monthly_totals(account, year):",
        "def monthly_totals(account):",
        "a parameter lost from a definition its body uses",
    ),
    F(
        "type",
        "unused-parameter",
        GEO,
        SHAPES,
        "    def area(self):",
        "    def area(self, unit):",
        "a parameter added to a definition and never used",
    ),
    F(
        "type",
        "missing-argument",
        GEO,
        SHAPES,
        "key=lambda p: distance(origin, p)",
        "key=lambda p: distance(p)",
        "an argument left out of a call",
    ),
    F(
        "type",
        "str-plus-int",
        TXT,
        WORDS,
        'word + " x" + str(n)',
        'word + " x" + n',
        "a number added to a string",
    ),
    F(
        "type",
        "str-plus-len",
        INV,
        REPORT,
        '"items: " + str(len(inventory.items))',
        '"items: " + len(inventory.items)',
        "a length added to a string",
    ),
    F(
        "type",
        "positional-for-keyword",
        INV,
        STOCK,
        "def remove(self, sku, count=1):",
        "def remove(self, sku, *, count=1):",
        "a parameter made keyword-only",
    ),
    # -- none --------------------------------------------------------------------------------
    F(
        "none",
        "missing-return",
        INV,
        STOCK,
        "        self.items[item.sku] = item\n        return item\n",
        "        self.items[item.sku] = item\n",
        "a method that lost its return",
    ),
    F(
        "none",
        "missing-return-dict",
        LED,
        ACCOUNTS,
        '            totals[on.month] = totals.get(on.month, Decimal("0")) + amount\n    return totals\n',
        '            totals[on.month] = totals.get(on.month, Decimal("0")) + amount\n',
        "a function that lost its return",
    ),
    F(
        "none",
        "missing-return-caller",
        TXT,
        WORDS,
        '    result = " ".join(word.capitalize() for word in text.split())\n    return result\n',
        '    result = " ".join(word.capitalize() for word in text.split())\n',
        "a helper that lost its return, used by another function",
    ),
    F(
        "none",
        "dropped-return-keyword",
        GEO,
        SHAPES,
        "    return Point(float(parts[0]), float(parts[1]))",
        "    Point(float(parts[0]), float(parts[1]))",
        "the return keyword dropped from the last line",
    ),
    F(
        "none",
        "decorator",
        GEO,
        SHAPES,
        "        return func(*points)\n\n    return wrapper\n",
        "        return func(*points)\n",
        "a decorator that forgets to return the wrapper",
    ),
    F(
        "none",
        "sort-in-place",
        TXT,
        TOKENS,
        "words = sorted(set(self.tokens()))",
        "words = list(set(self.tokens())).sort()",
        "the result of list.sort() used",
    ),
    F(
        "none",
        "sort-in-place-2",
        LED,
        ACCOUNTS,
        "ordered = sorted(self.history, key=lambda entry: entry[0])",
        "ordered = self.history.sort(key=lambda entry: entry[0])",
        "the result of list.sort() used as the sorted list",
    ),
    F(
        "none",
        "none-list",
        INV,
        STOCK,
        "        low = []\n",
        "        low = None\n",
        "a list started as None",
    ),
    F(
        "none",
        "none-cache",
        TXT,
        TOKENS,
        "self.cache = {}",
        "self.cache = None",
        "a dict attribute started as None",
    ),
    F(
        "none",
        "optional-parameter",
        LED,
        ACCOUNTS,
        "    if deposits is None:\n        deposits = []\n",
        "",
        "the None default of a parameter never replaced",
    ),
    F(
        "none",
        "dict-get-default",
        GEO,
        SHAPES,
        "SCALES.get(unit, 1.0)",
        "SCALES.get(unit)",
        "the default of dict.get() dropped",
    ),
    F(
        "none",
        "missing-return-render",
        INV,
        REPORT,
        '    return "\\n".join(lines)\n',
        '    "\\n".join(lines)\n',
        "the return keyword dropped from a rendering function",
    ),
]


def build(out: Path) -> list[Path]:
    """Write the whole corpus into ``out`` (which must not exist); return the fault folders."""
    for name, files in BASES.items():
        _write_project(out / "_base" / name, name, files)
    counters: dict[str, int] = {}
    written = []
    for fault in FAULTS:
        files = dict(BASES[fault.base])
        text = files[fault.file]
        if text.count(fault.old) != 1:
            raise SystemExit(
                f"{fault.slug}: {fault.old!r} occurs {text.count(fault.old)} times in {fault.file}"
            )
        files[fault.file] = text.replace(fault.old, fault.new)
        counters[fault.error_class] = counters.get(fault.error_class, 0) + 1
        folder = out / fault.error_class / f"{counters[fault.error_class]:02d}-{fault.slug}"
        _write_project(folder, fault.base, files)
        (folder / "FAULT.toml").write_text(
            f'class = "{fault.error_class}"\nbase = "{fault.base}"\nfile = "{fault.file}"\n'
            f'description = "{fault.description}"\n',
            encoding="utf-8",
        )
        written.append(folder)
    return written


def _write_project(root: Path, name: str, files: dict[str, str]) -> None:
    for relpath, text in files.items():
        path = root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (root / "pyproject.toml").write_text(PYPROJECT.format(name=name), encoding="utf-8")


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts and ".phasegate" not in path.parts
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        fresh = Path(scratch) / "faults"
        folders = build(fresh)
        if args.check:
            same = _tree(fresh) == _tree(CORPUS)
            print(
                "fixtures/faults is current" if same else "fixtures/faults differs: regenerate it"
            )
            return 0 if same else 1
        if CORPUS.exists():
            shutil.rmtree(CORPUS)
        shutil.copytree(fresh, CORPUS)
    size = sum(len(data) for data in _tree(CORPUS).values())
    print(f"wrote {len(folders)} faulty projects to {CORPUS} ({size / 1024:.0f} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
