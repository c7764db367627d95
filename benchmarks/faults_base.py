"""The four small projects the fault corpus is made from (see make_fault_corpus.py).

Each is a package with its tests; every test passes on the base project.
"""

from __future__ import annotations

PYPROJECT = """\
[project]
name = "{name}"
version = "0.1.0"

[tool.pytest.ini_options]
pythonpath = ["."]
testpaths = ["tests"]
"""

INVENTORY = {
    "inventory/__init__.py": '''\
"""Stock on shelves."""

from .stock import Inventory, Item

__all__ = ["Inventory", "Item"]
''',
    "inventory/stock.py": '''\
"""Items on shelves and what they are worth."""

from collections import defaultdict
from dataclasses import dataclass, field


@dataclass
class Item:
    sku: str
    name: str
    price: float
    quantity: int = 0

    def value(self):
        return self.price * self.quantity


@dataclass
class Inventory:
    items: dict = field(default_factory=dict)

    def add(self, item):
        if item.sku in self.items:
            raise ValueError(f"duplicate sku {item.sku}")
        self.items[item.sku] = item
        return item

    def remove(self, sku, count=1):
        item = self.items[sku]
        if count > item.quantity:
            raise ValueError("not enough stock")
        item.quantity -= count
        return item.quantity

    def total_value(self):
        total = 0.0
        for item in self.items.values():
            total += item.value()
        return round(total, 2)

    def low_stock(self, threshold=2):
        low = []
        for item in self.items.values():
            if item.quantity <= threshold:
                low.append(item.sku)
        return sorted(low)

    def by_initial(self):
        groups = defaultdict(list)
        for item in self.items.values():
            groups[item.name[0].upper()].append(item.name)
        return dict(groups)
''',
    "inventory/report.py": '''\
"""Plain-text reports of an inventory."""

from inventory.stock import Inventory


def format_line(item, width=20):
    label = item.name.ljust(width)
    return f"{label} {item.quantity:>4} x {item.price:8.2f}"


def render(inventory: Inventory, title="Stock"):
    lines = [title, "=" * len(title)]
    for sku in sorted(inventory.items):
        lines.append(format_line(inventory.items[sku], width=24))
    lines.append("items: " + str(len(inventory.items)))
    lines.append(f"total: {inventory.total_value():.2f}")
    return "\\n".join(lines)
''',
    "tests/test_stock.py": """\
import pytest

from inventory import Inventory, Item


def stocked():
    inventory = Inventory()
    inventory.add(Item("A1", "apple", 0.5, 10))
    inventory.add(Item("B2", "bread", 2.25, 1))
    inventory.add(Item("A3", "avocado", 1.5, 2))
    return inventory


def test_add_returns_the_item_and_refuses_duplicates():
    inventory = Inventory()
    added = inventory.add(Item("A1", "apple", 0.5, 3))
    assert added.sku == "A1"
    with pytest.raises(ValueError, match="duplicate"):
        inventory.add(Item("A1", "apple", 0.5))


def test_remove_lowers_the_quantity():
    inventory = stocked()
    assert inventory.remove("A1", 4) == 6
    with pytest.raises(ValueError, match="not enough"):
        inventory.remove("B2", 5)


def test_total_value():
    assert stocked().total_value() == 10.25


def test_low_stock():
    assert stocked().low_stock() == ["A3", "B2"]
    assert stocked().low_stock(threshold=0) == []


def test_by_initial():
    assert stocked().by_initial() == {"A": ["apple", "avocado"], "B": ["bread"]}
""",
    "tests/test_report.py": """\
from inventory import Inventory, Item
from inventory.report import format_line, render


def test_format_line():
    assert format_line(Item("A1", "apple", 0.5, 10), width=8) == "apple      10 x     0.50"


def test_render():
    inventory = Inventory()
    inventory.add(Item("A1", "apple", 0.5, 10))
    text = render(inventory)
    assert text.splitlines()[0] == "Stock"
    assert "apple" in text
    assert "items: 1" in text
    assert text.endswith("total: 5.00")
""",
}

TEXTKIT = {
    "textkit/__init__.py": '''\
"""Small text utilities."""

from .words import initials, justify, slugify, title_case, word_count

__all__ = ["initials", "justify", "slugify", "title_case", "word_count"]
''',
    "textkit/words.py": '''\
"""Words: slugs, counts, cases and lines."""

import re
import string
import textwrap
from collections import Counter


def normalize(text):
    return " ".join(text.lower().split())


def slugify(text):
    text = normalize(text)
    return re.sub(r"[^a-z0-9]+", "-", text).strip("-")


def word_count(text):
    counts = Counter(normalize(text).split())
    return dict(counts.most_common())


def title_case(text):
    result = " ".join(word.capitalize() for word in text.split())
    return result


def initials(name):
    letters = [part[0] for part in title_case(name).split()]
    return "".join(letters)


def justify(text, width=40):
    lines = textwrap.wrap(text, width=width)
    return "\\n".join(line.ljust(width) for line in lines)


def only_letters(text):
    return "".join(c for c in text.lower() if c in string.ascii_lowercase)


def label(word, n):
    return word + " x" + str(n)
''',
    "textkit/tokens.py": '''\
"""Tokens of a text, with n-grams and a vocabulary."""

from .words import normalize


class Tokenizer:
    def __init__(self, text):
        self.text = text
        self.cache = {}

    def tokens(self):
        if "tokens" not in self.cache:
            self.cache["tokens"] = normalize(self.text).split()
        return self.cache["tokens"]

    def ngrams(self, n=2):
        words = self.tokens()
        return [tuple(words[i : i + n]) for i in range(len(words) - n + 1)]

    def vocabulary(self):
        words = sorted(set(self.tokens()))
        return words
''',
    "tests/test_words.py": """\
from textkit import initials, justify, slugify, title_case, word_count
from textkit.words import label, only_letters


def test_slugify():
    assert slugify("  Hello, World! ") == "hello-world"


def test_word_count():
    assert word_count("a b a") == {"a": 2, "b": 1}


def test_title_case_and_initials():
    assert title_case("ada lovelace") == "Ada Lovelace"
    assert initials("ada lovelace") == "AL"


def test_justify():
    assert justify("one two three", width=8).splitlines() == ["one two ", "three   "]


def test_only_letters_and_label():
    assert only_letters("R2-D2 ok") == "rdok"
    assert label("cat", 3) == "cat x3"
""",
    "tests/test_tokens.py": """\
from textkit.tokens import Tokenizer


def test_tokens_and_ngrams():
    tokenizer = Tokenizer("The cat saw the cat")
    assert tokenizer.tokens() == ["the", "cat", "saw", "the", "cat"]
    assert tokenizer.ngrams(2)[:2] == [("the", "cat"), ("cat", "saw")]


def test_vocabulary():
    assert Tokenizer("b a b").vocabulary() == ["a", "b"]
""",
}

GEOMETRY = {
    "geometry/__init__.py": '''\
"""Points and rectangles."""

from .shapes import Point, Rect, bounding_box, distance

__all__ = ["Point", "Rect", "bounding_box", "distance"]
''',
    "geometry/shapes.py": '''\
"""Points, distances and rectangles."""

import functools
import math
from dataclasses import dataclass

SCALES = {"m": 1.0, "cm": 0.01, "km": 1000.0}


@dataclass(frozen=True)
class Point:
    x: float
    y: float


def checked(func):
    @functools.wraps(func)
    def wrapper(*points):
        if not points:
            raise ValueError("no points")
        return func(*points)

    return wrapper


def distance(a, b):
    return math.hypot(b.x - a.x, b.y - a.y)


@dataclass(frozen=True)
class Rect:
    x0: float
    y0: float
    x1: float
    y1: float

    def area(self):
        return (self.x1 - self.x0) * (self.y1 - self.y0)

    def perimeter(self):
        return 2 * ((self.x1 - self.x0) + (self.y1 - self.y0))

    def contains(self, point):
        return self.x0 <= point.x <= self.x1 and self.y0 <= point.y <= self.y1


@checked
def bounding_box(*points):
    xs = [p.x for p in points]
    ys = [p.y for p in points]
    return Rect(min(xs), min(ys), max(xs), max(ys))


def scale(points, factor):
    return [Point(p.x * factor, p.y * factor) for p in points]


def centroid(points):
    count = len(points)
    x = sum(p.x for p in points) / count
    y = sum(p.y for p in points) / count
    return Point(x, y)


def to_metres(value, unit):
    return SCALES.get(unit, 1.0) * value


def parse_point(text):
    parts = text.split(",")
    if len(parts) != 2:
        raise ValueError(f"not a point: {text}")
    return Point(float(parts[0]), float(parts[1]))


def farthest_first(points, origin):
    return sorted(points, key=lambda p: distance(origin, p), reverse=True)
''',
    "tests/test_shapes.py": """\
import pytest

from geometry import Point, Rect, bounding_box, distance
from geometry.shapes import centroid, farthest_first, parse_point, scale, to_metres


def test_distance():
    assert distance(Point(0, 0), Point(3, 4)) == 5


def test_rect():
    rect = Rect(0, 0, 2, 3)
    assert rect.area() == 6
    assert rect.perimeter() == 10
    assert rect.contains(Point(1, 1))
    assert not rect.contains(Point(3, 1))


def test_bounding_box():
    assert bounding_box(Point(1, 5), Point(-2, 0), Point(3, 1)) == Rect(-2, 0, 3, 5)
    with pytest.raises(ValueError, match="no points"):
        bounding_box()


def test_scale_and_centroid():
    assert scale([Point(1, 2)], factor=3) == [Point(3, 6)]
    assert centroid([Point(0, 0), Point(2, 4)]) == Point(1, 2)


def test_units_and_parsing():
    assert to_metres(3, "km") == 3000.0
    assert to_metres(2, "ft") == 2.0
    assert parse_point("1.5,2") == Point(1.5, 2.0)
    with pytest.raises(ValueError, match="not a point"):
        parse_point("1,2,3")


def test_farthest_first():
    points = [Point(1, 0), Point(5, 0), Point(3, 0)]
    assert farthest_first(points, Point(0, 0))[0] == Point(5, 0)
""",
}

LEDGER = {
    "ledger/__init__.py": '''\
"""Accounts and what moved between them."""

from .accounts import Account, transfer

__all__ = ["Account", "transfer"]
''',
    "ledger/accounts.py": '''\
"""Accounts with a history of deposits and withdrawals."""

import json
from datetime import date
from decimal import Decimal, InvalidOperation


def parse_amount(text):
    try:
        amount = Decimal(text)
    except InvalidOperation:
        raise ValueError(f"not an amount: {text!r}") from None
    if amount <= 0:
        raise ValueError("amounts are positive")
    return amount


class Account:
    def __init__(self, owner, balance=Decimal("0")):
        self.owner = owner
        self.balance = balance
        self.history = []

    def deposit(self, amount, on=date(2024, 1, 1)):
        self.balance += amount
        self.history.append((on, amount))
        return self.balance

    def withdraw(self, amount, on=date(2024, 1, 1)):
        if amount > self.balance:
            raise ValueError("insufficient funds")
        self.balance -= amount
        self.history.append((on, -amount))
        return self.balance

    def recent(self, count=2):
        ordered = sorted(self.history, key=lambda entry: entry[0])
        return ordered[-count:]


def transfer(source, target, amount):
    source.withdraw(amount)
    target.deposit(amount)
    return (source.balance, target.balance)


def monthly_totals(account, year):
    totals = {}
    for on, amount in account.history:
        if on.year == year:
            totals[on.month] = totals.get(on.month, Decimal("0")) + amount
    return totals


def to_json(account):
    return json.dumps({"owner": account.owner, "balance": str(account.balance)}, sort_keys=True)


def open_account(owner, deposits=None):
    if deposits is None:
        deposits = []
    account = Account(owner, balance=Decimal("0"))
    for amount in deposits:
        account.deposit(amount)
    return account
''',
    "ledger/report.py": '''\
"""A statement of one account."""

from .accounts import Account, parse_amount


def statement(account: Account):
    lines = [f"{account.owner}: {account.balance}"]
    for on, amount in account.history:
        lines.append(f"{on.isoformat()} {amount:+}")
    return lines


def deposit_text(account, text):
    return account.deposit(parse_amount(text))
''',
    "tests/test_accounts.py": """\
from datetime import date
from decimal import Decimal

import pytest

from ledger import Account, transfer
from ledger.accounts import monthly_totals, open_account, parse_amount, to_json


def test_parse_amount():
    assert parse_amount("2.50") == Decimal("2.50")
    with pytest.raises(ValueError, match="not an amount"):
        parse_amount("two")


def test_deposit_withdraw_and_history():
    account = Account("ann")
    account.deposit(Decimal("10"), on=date(2024, 3, 1))
    assert account.withdraw(Decimal("4"), on=date(2024, 2, 1)) == Decimal("6")
    with pytest.raises(ValueError, match="insufficient"):
        account.withdraw(Decimal("100"))
    assert account.recent(1) == [(date(2024, 3, 1), Decimal("10"))]


def test_transfer():
    a, b = Account("a", balance=Decimal("5")), Account("b")
    assert transfer(a, b, amount=Decimal("2")) == (Decimal("3"), Decimal("2"))


def test_monthly_totals():
    account = Account("ann")
    account.deposit(Decimal("1"), on=date(2024, 1, 5))
    account.deposit(Decimal("2"), on=date(2024, 1, 9))
    account.deposit(Decimal("7"), on=date(2023, 1, 9))
    assert monthly_totals(account, year=2024) == {1: Decimal("3")}


def test_to_json_and_open_account():
    assert to_json(Account("ann", Decimal("2"))) == '{"balance": "2", "owner": "ann"}'
    assert open_account("bo", [Decimal("1"), Decimal("2")]).balance == Decimal("3")
    assert open_account("cy").history == []
""",
    "tests/test_report.py": """\
from datetime import date
from decimal import Decimal

from ledger import Account
from ledger.report import deposit_text, statement


def test_statement():
    account = Account("ann")
    account.deposit(Decimal("3"), on=date(2024, 5, 1))
    assert statement(account) == ["ann: 3", "2024-05-01 +3"]


def test_deposit_text():
    assert deposit_text(Account("ann"), "1.5") == Decimal("1.5")
""",
}

BASES = {"inventory": INVENTORY, "textkit": TEXTKIT, "geometry": GEOMETRY, "ledger": LEDGER}
