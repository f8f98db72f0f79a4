"""Differential check of the native engine against jinja2 under transformers' environment (bench-only).

Generates random expressions over the value types templates meet (strings with unicode, ints,
floats, None, lists, dicts, undefined names) combined with operators, filters, tests and methods,
renders each as `{{ expr }}` with transformers' apply_chat_template and with ts-render-chat, and
reports every case where one renders and the other fails or the texts differ (an engine
"unsupported" answer is counted apart: it is a named refusal, not a wrong text).

    build/chat-template-venv/bin/python bench/chat-template/differential.py [N] [SEED] [--statements]

--statements draws whole templates instead: loops, conditions, set, namespace, macros, comments
and raw blocks under random whitespace control, which exercises trim_blocks/lstrip_blocks.
"""

import json
import os
import random
import subprocess
import sys
import tempfile

os.environ["TZ"] = "UTC"
from transformers import AutoTokenizer  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TOOL = os.path.join(ROOT, "build", "backends", "tools", "ts-render-chat")
CONFIG = os.path.join(ROOT, "test", "fixtures", "chat-templates", "corpus", "tokenizer_config.json")
MESSAGES = [{"role": "user", "content": "Hello  World\n"}, {"role": "assistant", "content": "Ça va? 😀", "name": "bot"}]

ATOMS = ["'abc'", "'A b'", "''", "'héllo wörld'", "' x '", "'a,b,,c'", "0", "1", "-3", "7", "2.5", "-0.5", "1e3",
         "none", "true", "false", "[1, 2, 3]", "[]", "['b', 'A', 'a']", "{'k': 1, 'j': 'v'}", "{}", "(1, 'x')",
         "missing", "messages", "messages[0]", "messages[1].content", "messages[0].role", "messages[5]", "'%s-%d'"]
BINOPS = ["+", "-", "*", "/", "//", "%", "**", "~", "==", "!=", "<", ">=", "in", "not in", "and", "or"]
FILTERS = ["length", "upper", "lower", "title", "capitalize", "trim", "string", "list", "first", "last", "reverse|list",
           "sort", "unique|list", "join(',')", "tojson", "int", "float", "abs", "round", "default('d')", "count",
           "wordcount", "center(9)", "indent(2)", "replace('a', 'X')", "map('upper')|list", "select|list",
           "reject|list", "items|list", "dictsort", "sum", "min", "max", "batch(2)|list", "e", "safe",
           "default('d', true)", "selectattr('role')|list", "map(attribute='role')|list"]
TESTS = ["defined", "undefined", "none", "string", "number", "integer", "float", "mapping", "sequence", "iterable",
         "boolean", "true", "false", "odd", "even", "lower", "upper", "callable", "divisibleby 2", "eq 1", "in [1, 'abc']"]
METHODS = ["upper()", "lower()", "strip()", "split()", "split(',')", "startswith('a')", "endswith('c')", "title()",
           "replace('b', 'Z')", "find('b')", "count('a')", "items()", "keys()", "values()", "get('k')", "get('z', 0)",
           "isdigit()", "isalpha()", "splitlines()", "rstrip('c')", "capitalize()", "format(1)", "index(1)"]


def expr(rng, depth=0):
    r = rng.random()
    if depth > 2 or r < 0.3:
        return rng.choice(ATOMS)
    if r < 0.5:
        return f"({expr(rng, depth + 1)} {rng.choice(BINOPS)} {expr(rng, depth + 1)})"
    if r < 0.7:
        return f"({expr(rng, depth + 1)})|{rng.choice(FILTERS)}"
    if r < 0.8:
        return f"({expr(rng, depth + 1)} is {'not ' if rng.random() < 0.3 else ''}{rng.choice(TESTS)})"
    if r < 0.9:
        return f"({expr(rng, depth + 1)}).{rng.choice(METHODS)}"
    return f"({expr(rng, depth + 1)} if {expr(rng, depth + 1)} else {expr(rng, depth + 1)})"


LOOP_SOURCES = ["messages", "[1, 2, 3]", "range(3)", "messages if m.role == 'user'", "[]", "'ab'"]
WS = ["", " ", "  ", "\n", "\n  ", "\t", " \n\n "]


def tag(rng, body):
    """A block tag with random whitespace control and surrounding whitespace."""
    left = rng.choice(["", "-", "+", ""])
    right = rng.choice(["", "-", "+", ""])
    return f"{rng.choice(WS)}{{%{left} {body} {right}%}}{rng.choice(WS)}"


def var(rng, body):
    return f"{rng.choice(WS)}{{{{{rng.choice(['', '-'])} {body} {rng.choice(['', '-'])}}}}}{rng.choice(WS)}"


def block(rng, depth=0):
    """Random statements: loops with loop.*, if/elif/else, set, namespace, macros, raw, comments."""
    parts = []
    for _ in range(rng.randint(1, 3)):
        r = rng.random()
        if depth > 2 or r < 0.25:
            parts.append(var(rng, expr(rng, 2)) + rng.choice(["text", "", " x ", "\n"]))
        elif r < 0.45:
            iterable = rng.choice(LOOP_SOURCES)
            parts.append(tag(rng, "for m in " + iterable)
                         + block(rng, depth + 1) + var(rng, rng.choice(["loop.index", "loop.last", "loop.revindex0", "loop.cycle('a', 'b')", "m"]))
                         + (tag(rng, "else") + "empty" if rng.random() < 0.3 else "") + tag(rng, "endfor"))
        elif r < 0.6:
            parts.append(tag(rng, f"if {expr(rng, 2)}") + block(rng, depth + 1)
                         + (tag(rng, f"elif {expr(rng, 2)}") + block(rng, depth + 1) if rng.random() < 0.4 else "")
                         + (tag(rng, "else") + block(rng, depth + 1) if rng.random() < 0.5 else "") + tag(rng, "endif"))
        elif r < 0.7:
            parts.append(tag(rng, f"set v = {expr(rng, 2)}") + var(rng, "v"))
        elif r < 0.78:
            parts.append(tag(rng, "set ns = namespace(n=0)") + tag(rng, "for i in range(3)") + tag(rng, "set ns.n = ns.n + i")
                         + tag(rng, "endfor") + var(rng, "ns.n"))
        elif r < 0.86:
            parts.append(tag(rng, "macro mm(a, b='d')") + var(rng, "a ~ b") + tag(rng, "endmacro") + var(rng, "mm(1) ~ mm('x', b=2)"))
        elif r < 0.93:
            parts.append(f"{rng.choice(WS)}{{#{rng.choice(['', '-'])} note {rng.choice(['', '-'])}#}}{rng.choice(WS)}")
        else:
            parts.append(tag(rng, "raw") + "{{ raw }}" + rng.choice(WS) + tag(rng, "endraw"))
    return "".join(parts)


def main():
    statements = "--statements" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--statements"]
    n = int(args[0]) if args else 500
    rng = random.Random(int(args[1]) if len(args) > 1 else 1)
    tok = AutoTokenizer.from_pretrained(os.path.join(ROOT, ".cache", "tokenizers", "llama-3.1"))
    counts = {"same": 0, "both_fail": 0, "unsupported": 0, "differ": 0}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "t.jinja")
        for _ in range(n):
            source = block(rng) if statements else "{{ " + expr(rng) + " }}"
            try:
                ref = ("text", tok.apply_chat_template(MESSAGES, tokenize=False, chat_template=source))
            except Exception as e:  # noqa: BLE001
                ref = ("error", f"{type(e).__name__}: {e}")
            with open(path, "w", encoding="utf-8") as f:
                f.write(source)
            run = subprocess.run([TOOL, "--tokenizer-config", CONFIG, "--chat-template", path, "--json"],
                                 input=json.dumps(MESSAGES), capture_output=True, text=True)
            answer = json.loads(run.stdout)
            if "text" in answer:
                got = ("text", answer["text"])
            else:
                got = ("error", answer["error"]["message"])
                if answer["error"]["kind"] == "unsupported":
                    counts["unsupported"] += 1
                    continue
            if ref[0] == "error" and got[0] == "error":
                counts["both_fail"] += 1
            elif ref == got:
                counts["same"] += 1
            else:
                counts["differ"] += 1
                print(f"DIFFER {source}\n  jinja2: {ref!r}\n  engine: {got!r}")
    print(json.dumps(counts))
    sys.exit(1 if counts["differ"] else 0)


if __name__ == "__main__":
    main()
