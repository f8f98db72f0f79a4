"""Reference outputs of chat templates from transformers (bench/test-only Python; never in the product).

Renders every chat template that the offline tokenizer packages carry (.cache/tokenizers/*/
tokenizer_config.json) and the project's own corpus (test/fixtures/chat-templates/corpus/*.jinja)
over generated conversations with transformers' apply_chat_template(tokenize=False), and writes
test/fixtures/chat-templates/{conversations.json,expected.json}. The C++ parity test
(backends/chat-template/test) compares the native engine with these files byte for byte, so CI
needs no Python; test/unit/chat-template-reference.test.ts regenerates them when the venv exists
and checks that the committed files are still what transformers says.

    /usr/bin/python3.11 -m venv build/chat-template-venv
    build/chat-template-venv/bin/pip install transformers jinja2 tokenizers
    build/chat-template-venv/bin/python bench/chat-template/make_fixtures.py [--check]

--check writes nothing and exits 1 when the committed files differ from a fresh run.
"""

import datetime as real_datetime
import glob
import json
import os
import sys
import time

os.environ["TZ"] = "UTC"
time.tzset()

import jinja2  # noqa: E402
import transformers  # noqa: E402
import transformers.utils.chat_template_utils as ctu  # noqa: E402
from transformers import AutoTokenizer  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIXTURES = os.path.join(ROOT, "test", "fixtures", "chat-templates")
TOKENIZERS = os.path.join(ROOT, ".cache", "tokenizers")
# strftime_now's clock, fixed so that outputs are reproducible (the C++ test fixes it too).
NOW = 1764158400  # 2025-11-26 12:00:00 UTC
# Special tokens the corpus templates see (corpus/tokenizer_config.json holds the same).
CORPUS_TOKENIZER = "llama-3.1"


class FixedDatetime(real_datetime.datetime):
    @classmethod
    def now(cls, tz=None):
        return real_datetime.datetime.fromtimestamp(NOW, tz)


ctu.datetime = FixedDatetime

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the current weather in a city",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "City name, e.g. Paris"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                },
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "search",
            "description": "Search the web — returns snippets",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}, "k": {"type": "integer"}}},
        },
    },
]


def sys_(c):
    return {"role": "system", "content": c}


def user(c):
    return {"role": "user", "content": c}


def asst(c):
    return {"role": "assistant", "content": c}


UNICODE = "Grüße, 世界! Ça va? 😀👍🏽 عربى עִברִית नमस्ते e\u0301 \u2028line sep\ttab"
TRICKY = "  {{ not_jinja }} {% raw %} 'single' \"double\" back\\slash\nnew line\r\nCRLF  \n"
TOOL_CALL_DICT = {
    "role": "assistant",
    "content": "",
    "tool_calls": [
        {"id": "call_0001", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}}
    ],
}
TOOL_CALL_STR = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {"id": "abcdefghi", "type": "function", "function": {"name": "search", "arguments": "{\"query\": \"jinja\", \"k\": 3}"}},
        {"id": "call_2", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Zürich"}}},
    ],
}
TOOL_RESULT = {"role": "tool", "tool_call_id": "call_0001", "name": "get_weather", "content": "{\"temp\": 21.5, \"sky\": \"clear\"}"}


def conversations():
    """Each: id, messages, and optionally tools, documents, kwargs."""
    c = []
    add = lambda cid, messages, **extra: c.append({"id": cid, "messages": messages, **extra})  # noqa: E731
    add("user-only", [user("Hello!")])
    add("system-user", [sys_("You are a helpful assistant."), user("What is 2+2?")])
    add("multi-turn", [sys_("Be brief."), user("Hi"), asst("Hello! How can I help?"), user("Tell me a joke.")])
    add("no-system-turns", [user("One"), asst("Two"), user("Three"), asst("Four")])
    add("assistant-first", [asst("I start."), user("OK then.")])
    add("system-middle", [user("a"), sys_("late system"), user("b")])
    add("two-users", [user("first"), user("second")])
    add("empty-content", [sys_(""), user(""), asst(""), user("")])
    add("unicode", [sys_(UNICODE), user(UNICODE), asst("Réponse: " + UNICODE)])
    add("tricky-text", [user(TRICKY), asst(TRICKY.strip()), user("end?")])
    add("tool-call-dict", [sys_("Use tools."), user("Weather in Paris?"), TOOL_CALL_DICT, TOOL_RESULT], tools=TOOLS)
    add("tool-call-string", [user("Search jinja"), TOOL_CALL_STR, {"role": "tool", "tool_call_id": "abcdefghi", "content": "results"}, asst("Done.")], tools=TOOLS)
    add("tools-no-calls", [user("What tools do you have?")], tools=TOOLS)
    add("empty-tools", [user("Hi")], tools=[])
    add("content-parts", [user([{"type": "text", "text": "Describe"}, {"type": "image"}, {"type": "text", "text": "this image."}]), asst([{"type": "text", "text": "A cat."}])])
    add("reasoning", [user("Think: 17*3?"), {"role": "assistant", "content": "51", "reasoning_content": "17*3 = 51"}, user("And 18*3?")])
    add("think-inline", [user("q1"), asst("<think>\nstep one\n</think>\n\nanswer one"), user("q2")])
    add("thinking-off", [user("Quick answer please")], kwargs={"enable_thinking": False})
    add("thinking-on", [sys_("sys"), user("Think hard")], kwargs={"enable_thinking": True, "custom_var": "custom!"})
    add("named", [{"role": "user", "name": "alice", "content": "hi from alice"}, {"role": "user", "name": "bob", "content": "hi from bob"}])
    add("other-roles", [{"role": "developer", "content": "dev note"}, {"role": "ipython", "content": "out"}, user("u")])
    add("documents", [user("Summarize the documents.")], documents=[{"title": "Doc A", "text": "Alpha text."}, {"title": "Doc B", "text": "Beta text."}])
    add("long", [sys_("S")] + [m for i in range(1, 5) for m in (user(f"question {i}"), asst(f"answer {i}"))] + [user("final question")])
    add("none-content", [user("x"), {"role": "assistant", "content": None}, user("y")])
    add("date-given", [user("what day is it?")], kwargs={"date_string": "01 Jan 2030"})
    return c


def corpus_templates():
    out = {}
    for path in sorted(glob.glob(os.path.join(FIXTURES, "corpus", "*.jinja"))):
        name = os.path.basename(path)[: -len(".jinja")]
        with open(path, encoding="utf-8") as f:
            out["corpus/" + name] = {"source": f.read(), "file": os.path.relpath(path, ROOT)}
    return out


def model_templates():
    out = {}
    for cfg in sorted(glob.glob(os.path.join(TOKENIZERS, "*", "tokenizer_config.json"))):
        with open(cfg, encoding="utf-8") as f:
            if json.load(f).get("chat_template") is None:
                continue
        model = os.path.basename(os.path.dirname(cfg))
        out[model] = {"dir": os.path.dirname(cfg)}
    return out


def render(tok, conv, add_generation_prompt, source=None):
    kwargs = dict(conv.get("kwargs", {}))
    try:
        text = tok.apply_chat_template(
            conv["messages"],
            tools=conv.get("tools"),
            documents=conv.get("documents"),
            add_generation_prompt=add_generation_prompt,
            tokenize=False,
            chat_template=source,
            **kwargs,
        )
        return {"text": text}
    except Exception as e:  # noqa: BLE001 - every failure is a reference outcome
        raised = type(e) is jinja2.exceptions.TemplateError
        return {"error": {"type": type(e).__name__, "message": str(e), "raised": raised}}


def build():
    convs = conversations()
    templates = {}
    cases = []
    for model, info in model_templates().items():
        tok = AutoTokenizer.from_pretrained(info["dir"])
        templates[model] = {"config": os.path.relpath(os.path.join(info["dir"], "tokenizer_config.json"), ROOT)}
        for conv in convs:
            for agp in (False, True):
                cases.append({"template": model, "conversation": conv["id"], "add_generation_prompt": agp, **render(tok, conv, agp)})
    corpus_tok = AutoTokenizer.from_pretrained(os.path.join(TOKENIZERS, CORPUS_TOKENIZER))
    corpus_config = dict(corpus_tok.special_tokens_map)
    for name, info in corpus_templates().items():
        templates[name] = {"config": "test/fixtures/chat-templates/corpus/tokenizer_config.json", "template": info["file"]}
        for conv in convs:
            for agp in (False, True):
                cases.append({"template": name, "conversation": conv["id"], "add_generation_prompt": agp, **render(corpus_tok, conv, agp, info["source"])})
    expected = {
        "about": "apply_chat_template(tokenize=False) outputs; regenerate with bench/chat-template/make_fixtures.py",
        "transformers": transformers.__version__,
        "jinja2": jinja2.__version__,
        "now": NOW,
        "timezone": "UTC",
        "templates": templates,
        "cases": cases,
    }
    return {
        "conversations.json": convs,
        "expected.json": expected,
        "corpus/tokenizer_config.json": corpus_config,
    }


def dump(value):
    return json.dumps(value, ensure_ascii=False, indent=1) + "\n"


def main():
    check = "--check" in sys.argv[1:]
    outputs = build()
    stale = []
    for rel, value in outputs.items():
        path = os.path.join(FIXTURES, rel)
        text = dump(value)
        if check:
            try:
                with open(path, encoding="utf-8") as f:
                    if f.read() != text:
                        stale.append(rel)
            except FileNotFoundError:
                stale.append(rel)
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    n = len(outputs["expected.json"]["cases"])
    errors = sum(1 for c in outputs["expected.json"]["cases"] if "error" in c)
    if stale:
        print(f"stale: {', '.join(stale)} differ from transformers {transformers.__version__} (rerun without --check)")
        sys.exit(1)
    print(f"{'checked' if check else 'wrote'} {n} cases ({errors} errors) over {len(outputs['expected.json']['templates'])} templates")


if __name__ == "__main__":
    main()
