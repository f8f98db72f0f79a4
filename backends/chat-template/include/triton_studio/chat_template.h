// Public C++ API of the Triton Studio chat-template engine.
// Renders a model's Jinja `chat_template` (from tokenizer_config.json) natively, byte for byte
// what transformers' `apply_chat_template(messages, tokenize=False, ...)` returns: Jinja with
// transformers' environment (ImmutableSandboxedEnvironment, trim_blocks, lstrip_blocks, loop
// controls, `generation` tags, its `tojson`, `raise_exception` and `strftime_now` globals).
// Parse once per model load, render per request. No Triton dependency and no file system access
// from templates (no include/import/extends). See docs/CHAT-TEMPLATES.md.
#pragma once

#include <cstddef>
#include <ctime>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace triton_studio::chat {

// Messages, tools and template variables are JSON values; key order is kept, as Python dicts do.
using Json = nlohmann::ordered_json;

// Base of every error the engine throws; what() is a complete, human-readable message.
class ChatTemplateError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The template text cannot be parsed. what() reads "line L, column C: <detail>"; line and column
// are 1-based positions in the template source.
class TemplateSyntaxError : public ChatTemplateError {
 public:
  TemplateSyntaxError(const std::string& detail, int line, int column);
  int line() const { return line_; }
  int column() const { return column_; }
  const std::string& detail() const { return detail_; }

 private:
  std::string detail_;
  int line_;
  int column_;
};

// The template uses a Jinja construct this engine does not implement (a filter, test, method,
// tag or global); what() names it and its place. Thrown at parse time where the construct is
// known then (tags, filters, tests), else at render time (methods, globals). Never rendered
// differently.
class UnsupportedConstructError : public ChatTemplateError {
 public:
  UnsupportedConstructError(const std::string& construct, int line, int column);
  const std::string& construct() const { return construct_; }
  int line() const { return line_; }
  int column() const { return column_; }

 private:
  std::string construct_;
  int line_;
  int column_;
};

// The template called raise_exception(message): what() is exactly that message (the request's
// error, as transformers raises jinja2.TemplateError(message)).
class TemplateRaisedError : public ChatTemplateError {
 public:
  using ChatTemplateError::ChatTemplateError;
};

// An error jinja2 raises too while rendering (a TypeError, an undefined value used as an object,
// a division by zero, ...). what() reads "line L: <detail>".
class TemplateRuntimeError : public ChatTemplateError {
 public:
  TemplateRuntimeError(const std::string& detail, int line);
  int line() const { return line_; }
  const std::string& detail() const { return detail_; }

 private:
  std::string detail_;
  int line_;
};

// A render limit (RenderLimits) was reached; what() names the limit and its value.
class RenderLimitError : public ChatTemplateError {
 public:
  using ChatTemplateError::ChatTemplateError;
};

// The tokenizer_config.json has no usable chat template (missing, wrong type, no template of
// the name asked for), or the request's inputs have the wrong shape (messages not an array).
class ChatConfigError : public ChatTemplateError {
 public:
  using ChatTemplateError::ChatTemplateError;
};

// Bounds on one render; templates are data from a file and must not run away.
struct RenderLimits {
  std::size_t max_output_bytes = 16u << 20;   // rendered text (and any captured block) size
  std::size_t max_steps = 10'000'000;         // evaluated statements + expressions + loop iterations
  std::size_t max_recursion_depth = 100;      // nested macro calls / recursive loops
};

struct ChatTemplateOptions {
  RenderLimits limits;
  // The clock behind strftime_now (local time, as Python's datetime.now()); tests fix it.
  std::function<std::time_t()> now;
};

// One render request: the arguments of apply_chat_template.
struct ChatRequest {
  Json messages = Json::array();  // OpenAI-style list of {role, content, ...}; passed to the template as is
  Json tools;                     // null: no tools; else the list of tool JSON schemas
  Json documents;                 // null: none; else the list of documents (RAG templates)
  bool add_generation_prompt = false;
  // Cut the text after the last message's content, so generation continues it (transformers'
  // continue_final_message; cannot be combined with add_generation_prompt).
  bool continue_final_message = false;
  // Extra template variables (chat_template_kwargs such as enable_thinking); they override the
  // special tokens of the config, as transformers' **kwargs do. Must be an object (or null).
  Json kwargs = Json::object();
  // A template name of a config's named list ("default", "tool_use", ...). Empty: transformers'
  // choice ("tool_use" when tools is not null and the config has one, else "default").
  std::string template_name;
};

// A parsed chat template (or the named set of a tokenizer_config), immutable after loading:
// Render is const and safe to call from many threads at once. Cheap to copy (shared state).
class ChatTemplate {
 public:
  // One template from its Jinja source. `variables` are seen by every render (e.g. bos_token);
  // request kwargs override them. Throws TemplateSyntaxError / UnsupportedConstructError.
  static ChatTemplate FromSource(std::string_view source, Json variables = Json::object(),
                                 ChatTemplateOptions options = {});

  // From the parsed contents of a tokenizer_config.json: its `chat_template` (a string, or the
  // named list [{name, template}] / object form), and its special tokens as transformers (v5)
  // special_tokens_map passes them (bos_token, eos_token, unk_token, sep_token, pad_token,
  // cls_token, mask_token that are set, the named extra_special_tokens and other `*_token`
  // strings; AddedToken dicts become their content). `template_source`, when given, replaces the config's template (a
  // chat_template.jinja file, or a template file a pipeline names). Throws ChatConfigError,
  // TemplateSyntaxError, UnsupportedConstructError.
  static ChatTemplate FromTokenizerConfig(const Json& config,
                                          std::optional<std::string> template_source = std::nullopt,
                                          ChatTemplateOptions options = {});
  // Same, reading the file (ChatConfigError when it cannot be read or is not JSON).
  static ChatTemplate FromTokenizerConfigFile(const std::string& path,
                                              std::optional<std::string> template_source = std::nullopt,
                                              ChatTemplateOptions options = {});

  // The text apply_chat_template(..., tokenize=False) returns. Throws TemplateRaisedError,
  // TemplateRuntimeError, UnsupportedConstructError, RenderLimitError, ChatConfigError.
  std::string Render(const ChatRequest& request) const;

  // The variables every render sees (the special tokens map); request kwargs override them.
  const Json& variables() const;
  // Names of the templates held ("default", "tool_use", ...); one unnamed ("") for a single one.
  std::vector<std::string> template_names() const;
  // The source of a held template (empty name: the default one).
  const std::string& source(const std::string& name = "") const;

  ChatTemplate(const ChatTemplate&) = default;
  ChatTemplate& operator=(const ChatTemplate&) = default;
  ChatTemplate(ChatTemplate&&) noexcept = default;
  ChatTemplate& operator=(ChatTemplate&&) noexcept = default;
  ~ChatTemplate();

  struct Impl;

 private:
  explicit ChatTemplate(std::shared_ptr<const Impl> impl);
  std::shared_ptr<const Impl> impl_;
};

}  // namespace triton_studio::chat
