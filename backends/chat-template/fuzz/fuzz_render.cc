// libFuzzer target: any bytes as a chat template, parsed and rendered over a fixed conversation
// with tools. The engine must answer with one of its errors or a text, within its limits, never
// crash (ASan + UBSan). Run by run.sh beside this file.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "triton_studio/chat_template.h"

using namespace triton_studio::chat;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const ChatRequest request = [] {
    ChatRequest r;
    r.messages = Json::parse(R"([
      {"role": "system", "content": "Be brief. é 😀"},
      {"role": "user", "content": "Hi {{ x }}", "name": "alice"},
      {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": {"a": [1, 2.5, null, true]}}}]},
      {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "ok"}]}
    ])");
    r.tools = Json::parse(R"([{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}])");
    r.add_generation_prompt = true;
    r.kwargs = Json{{"enable_thinking", false}};
    return r;
  }();
  ChatTemplateOptions options;
  options.limits.max_output_bytes = 1 << 20;
  options.limits.max_steps = 200000;
  options.limits.max_recursion_depth = 40;
  options.now = [] { return std::time_t{1764158400}; };
  try {
    ChatTemplate t = ChatTemplate::FromSource(std::string_view(reinterpret_cast<const char*>(data), size),
                                              Json{{"bos_token", "<s>"}, {"eos_token", "</s>"}}, options);
    (void)t.Render(request);
  } catch (const ChatTemplateError&) {
  }
  return 0;
}
