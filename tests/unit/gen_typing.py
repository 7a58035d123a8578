#!/usr/bin/env python3
"""Generate the typing corpus of tests/unit/test_typing.c: YAML scalars
and what PyYAML's safe_load makes of them, one per line:

    <document, hex>  <type>  <repr, hex>

type is None, bool, int, float, str, or error (safe_load raises), for the
value of key `a` of the document. The scalars are curated (every branch of
resolver.py's expressions and of the constructors) and generated: strings
over the characters those expressions use, written plain, then the same
texts tagged `!` (PyYAML resolves those by their text, even quoted) and
with a final newline. A timestamp (2001-12-14) is a string to the library
(doc/recipe-reference.md §12): its expectation is the text as a string.

    python3 tests/unit/gen_typing.py [COUNT] > typing.tsv
"""
import datetime
import json
import random
import sys

import yaml

CURATED = """
0 00 01 07 08 0_ 0__ 0_7 0b 0b_ 0b0 0b1_ 0b2 0x 0x_ 0x_1 0xg 0xF_f 0o7 +0 -0 -0_0
+_ _1 1_ 1__0 12 -12 +12 1:0 1:00 1:59 1:60 1:5:9 0:30 1:30:00 190:20:30
9223372036854775807 9223372036854775808 -9223372036854775808 -9223372036854775809
12345678901234567890 0x7fffffffffffffff 0x8000000000000000 0b1111111111111111111111111111111111111111111111111111111111111111
1:2:3:4:5:6:7:8:9:10:11:12 1. .5 -.5 +.5 ._5 .5_ 1._ 1.e3 1.0e3 1.0e+3 1.0e-3 1.0E+3 .5e+3
-1.5 +1.5 1_000.5 1:30.5 1:30. 190:20:30.15 1:2:3:4:5:6:7:8:9:10:11:12.5 0.1 1e3 1e+3 1E+3
.inf .Inf .INF -.inf +.inf .iNf inf .nan .NaN .NAN -.nan nan
yes Yes YES yEs no No NO true True TRUE tRue false False FALSE on On ON off Off OFF y n
~ null Null NULL nULL = == << <<< 2001-12-14 2001-12-14t21:59:43.10-05:00 2001-1-1
1e 1e+ 1.0e+ 1.0e+_ 0x1p3 1_0:3_0 1:3_0 -1:30 +1:30 -1:30.5
""".split()


def pyyaml(doc, text):
    try:
        v = yaml.safe_load(doc)
    except Exception:  # safe_load raising anything is a refusal
        return "error", ""
    v = v["a"]
    # an int beyond 64 bits not written in decimal: refused (§12, 17)
    if type(v) is int and not -2**63 <= v < 2**63 and not text.lstrip("+-").replace("_", "").isdigit():
        return "error", ""
    if isinstance(v, (datetime.date, datetime.datetime)):
        return None
    if v is None:
        return "None", "None"
    return type(v).__name__, repr(v)


def plain_scalar(text):
    """text reads back as the plain scalar `text` in `a: text`"""
    try:
        node = yaml.compose("a: " + text)
    except Exception:
        return False
    if not isinstance(node, yaml.MappingNode) or len(node.value) != 1:
        return False
    v = node.value[0][1]
    return isinstance(v, yaml.ScalarNode) and v.style is None and v.value == text


def numberlike(rng):
    """a text built from the pieces of the int and float expressions,
    right and wrong"""
    def digits(chars="0123456789_", lo=0, hi=4):
        return "".join(rng.choice(chars) for _ in range(rng.randint(lo, hi)))
    parts = [rng.choice(["", "", "-", "+"])]
    parts.append(rng.choice(["", "0", "0x", "0b", ".", "1", "9", "0_", "00"]))
    parts.append(digits(rng.choice(["0123456789_", "01_", "0123456789abcdefABCDEF_", "01234567"])))
    for _ in range(rng.choice([0, 0, 1, 2, 3])):
        parts.append(":" + digits("0123456789", 0, 3))
    if rng.random() < 0.5:
        parts.append("." + digits())
    if rng.random() < 0.3:
        parts.append(rng.choice(["e", "E", "e+", "e-", "E+", "x"]) + digits("0123456789", 0, 3))
    if rng.random() < 0.05:
        parts.append(rng.choice(["inf", "nan", "Inf", "NaN", "INF", "NAN"]))
    return "".join(parts)


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 12000
    rng = random.Random(20240917)
    alphabet = "0123456789_.:+-eExXbBoOaAfFiInNlLsStTrRuUyY~<=9 "
    texts = list(CURATED)
    while len(texts) < count:
        if len(texts) % 2:
            texts.append(numberlike(rng))
            continue
        n = rng.choice([1, 2, 3, 3, 4, 4, 5, 6, 8, 12])
        texts.append("".join(rng.choice(alphabet) for _ in range(n)))
    docs = []
    for t in dict.fromkeys(texts):
        if not plain_scalar(t):
            continue
        docs.append(("a: " + t, t))
        docs.append(("a: ! " + json.dumps(t), t))          # `!` quoted
        docs.append(("a: ! " + json.dumps(t + "\n"), t))   # ... with a final newline
    out = sys.stdout
    for doc, text in docs:
        res = pyyaml(doc, text)
        if res is None:  # a timestamp: the library reads the text
            res = ("str", repr(yaml.compose(doc).value[0][1].value))
        out.write("%s\t%s\t%s\n" % (doc.encode().hex(), res[0], res[1].encode().hex()))


if __name__ == "__main__":
    main()
