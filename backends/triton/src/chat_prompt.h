// A step's chat template: parsed once when the model loads, rendering each request's
// conversation (the `messages`, `tools` and `chat_template_kwargs` inputs, JSON strings) into the
// prompt text transformers' apply_chat_template(..., tokenize=False) gives. Server-free, so the
// tokenize step, the orchestrator and the unit tests share it.
#pragma once

#include <memory>
#include <string>

#include "triton_studio/chat_template.h"

namespace triton_studio::steps {

class ChatPrompt {
 public:
  // `path`: a tokenizer_config.json (its chat_template and special tokens), or a Jinja file
  // (with the tokenizer_config.json beside it, when there is one, for the special tokens). Throws
  // glue::BackendError naming the file, and the line and column of a syntax error.
  static std::shared_ptr<const ChatPrompt> Load(const std::string& path);

  // The rendered text of one conversation. `messages`: a JSON array of OpenAI-style messages
  // (`content` a string or typed parts; text parts are joined with "\n", as vLLM does for
  // templates that take strings). `tools`: "" or a JSON array. `kwargs`: "" or a JSON object of
  // template variables; its `add_generation_prompt` (default true) and `continue_final_message`
  // are apply_chat_template's arguments of those names. Throws glue::BackendError with a message
  // for the client (a template's raise_exception: exactly its message).
  std::string Render(const std::string& messages, const std::string& tools, const std::string& kwargs) const;

  explicit ChatPrompt(chat::ChatTemplate chat_template) : template_(std::move(chat_template)) {}

 private:
  chat::ChatTemplate template_;
};

}  // namespace triton_studio::steps
