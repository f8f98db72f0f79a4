"""Writes test/fixtures/chat-template-ids.json: for each conversation, the token ids transformers'
apply_chat_template(..., tokenize=True, add_generation_prompt=True) gives with the model's own
tokenizer.json and tokenizer_config.json (.cache/tokenizers/<model>/). The integration test
`openai-chat-template.test.ts` compares the ids a sim-llm model step receives on the real server
with these, so CI needs no Python. Bench/test-only: the product runs no Python.

    python3 -m venv build/chat-venv && build/chat-venv/bin/pip install transformers==5.24.0 tokenizers==0.23.3 jinja2
    build/chat-venv/bin/python bench/chat-template/chat_ids_fixture.py
"""
import json
import pathlib
import sys

import transformers
from transformers import AutoTokenizer

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "test" / "fixtures" / "chat-template-ids.json"

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The current weather in a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "City name"}},
            "required": ["city"],
        },
    },
}

CONVERSATIONS = [
    {"name": "one user message", "messages": [{"role": "user", "content": "What is the capital of France?"}]},
    {
        "name": "system, user, assistant, user",
        "messages": [
            {"role": "system", "content": "You are a terse assistant."},
            {"role": "user", "content": "Name a prime."},
            {"role": "assistant", "content": "7"},
            {"role": "user", "content": "  Another one, please.  "},
        ],
    },
    {
        "name": "unicode and typed text parts",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Grüße, 世界! 👋"}]}],
        # what the step sees once text parts are joined (transformers takes the string)
        "template_messages": [{"role": "user", "content": "Grüße, 世界! 👋"}],
    },
]

QWEN_ONLY = [
    {
        "name": "thinking off",
        "messages": [{"role": "user", "content": "Add 2 and 3."}],
        "chat_template_kwargs": {"enable_thinking": False},
    },
    {
        "name": "tools and a tool call",
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}
                ],
            },
            {"role": "tool", "content": "{\"temperature\": 18}"},
        ],
        "tools": [WEATHER_TOOL],
    },
]


def ids_of(tokenizer, case):
    out = tokenizer.apply_chat_template(
        case.get("template_messages", case["messages"]),
        tools=case.get("tools"),
        add_generation_prompt=True,
        tokenize=True,
        **case.get("chat_template_kwargs", {}),
    )
    if isinstance(out, dict) or hasattr(out, "keys"):
        out = out["input_ids"]
    text = tokenizer.apply_chat_template(
        case.get("template_messages", case["messages"]),
        tools=case.get("tools"),
        add_generation_prompt=True,
        tokenize=False,
        **case.get("chat_template_kwargs", {}),
    )
    return [int(i) for i in out], text


def main():
    fixture = {"generator": f"transformers {transformers.__version__}", "models": {}}
    for model, extra in (("llama-3.1", []), ("qwen3", QWEN_ONLY)):
        tokenizer = AutoTokenizer.from_pretrained(str(ROOT / ".cache" / "tokenizers" / model))
        cases = []
        for case in CONVERSATIONS + extra:
            ids, text = ids_of(tokenizer, case)
            entry = {k: v for k, v in case.items() if k != "template_messages"}
            entry.update({"text": text, "ids": ids})
            cases.append(entry)
        fixture["models"][model] = cases
    OUT.write_text(json.dumps(fixture, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
