// The public API (include/triton_studio/chat_template.h): loading templates from a
// tokenizer_config.json as transformers does, and rendering a request as apply_chat_template.
#include "triton_studio/chat_template.h"

#include <fstream>
#include <sstream>

#include "parser.h"
#include "runtime.h"

namespace triton_studio::chat {

TemplateSyntaxError::TemplateSyntaxError(const std::string& detail, int line, int column)
    : ChatTemplateError("line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + detail),
      detail_(detail),
      line_(line),
      column_(column) {}

UnsupportedConstructError::UnsupportedConstructError(const std::string& construct, int line, int column)
    : ChatTemplateError(
          "unsupported in chat templates: " + construct +
          (line > 0 ? " (line " + std::to_string(line) + (column > 0 ? ", column " + std::to_string(column) : "") + ")"
                    : "")),
      construct_(construct),
      line_(line),
      column_(column) {}

TemplateRuntimeError::TemplateRuntimeError(const std::string& detail, int line)
    : ChatTemplateError("line " + std::to_string(line) + ": " + detail), detail_(detail), line_(line) {}

struct ChatTemplate::Impl {
  std::vector<std::pair<std::string, std::unique_ptr<detail::Template>>> templates;
  Json variables = Json::object();
  ChatTemplateOptions options;

  const detail::Template& Select(const ChatRequest& r) const {
    if (!r.template_name.empty()) {
      for (const auto& [name, t] : templates) {
        if (name == r.template_name) return *t;
      }
      throw ChatConfigError("no chat template named '" + r.template_name + "' (the config has " + Names() + ")");
    }
    if (templates.size() == 1 && templates[0].first.empty()) return *templates[0].second;
    if (!r.tools.is_null()) {
      for (const auto& [name, t] : templates) {
        if (name == "tool_use") return *t;
      }
    }
    for (const auto& [name, t] : templates) {
      if (name == "default") return *t;
    }
    throw ChatConfigError("This model has multiple chat templates with no default specified: name one of " + Names() +
                          " (template_name)");
  }

  std::string Names() const {
    std::string out;
    for (const auto& [name, t] : templates) out += (out.empty() ? "'" : ", '") + name + "'";
    return out;
  }
};

namespace {

std::unique_ptr<detail::Template> Parse(std::string_view source) { return detail::ParseTemplate(source); }

// transformers v5's special_tokens_map: the named special tokens that are set (AddedToken dicts
// as their content), then the model-specific named tokens (extra_special_tokens given as a dict,
// and other `*_token` string entries).
Json SpecialTokens(const Json& config) {
  static const char* kNamed[] = {"bos_token", "eos_token", "unk_token", "sep_token",
                                 "pad_token", "cls_token", "mask_token"};
  auto token_text = [](const Json& v) -> std::optional<std::string> {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_object() && v.contains("content") && v["content"].is_string()) return v["content"].get<std::string>();
    return std::nullopt;
  };
  Json out = Json::object();
  for (const char* key : kNamed) {
    auto it = config.find(key);
    if (it == config.end() || it->is_null()) continue;
    auto text = token_text(*it);
    if (!text) throw ChatConfigError(std::string("tokenizer_config.json: ") + key + " must be a string or an AddedToken");
    out[key] = *text;
  }
  auto extra = config.find("extra_special_tokens");
  if (extra != config.end() && extra->is_object()) {
    for (const auto& [k, v] : extra->items()) {
      if (auto text = token_text(v)) out[k] = *text;
    }
  }
  for (const auto& [k, v] : config.items()) {
    if (k.size() > 6 && k.compare(k.size() - 6, 6, "_token") == 0 && !out.contains(k)) {
      if (auto text = token_text(v)) out[k] = *text;
    }
  }
  return out;
}

bool NeedsNormalizing(const Json& message) {
  for (const auto& [k, v] : message.items()) {
    if (v.is_null() || k == "reasoning_content" || k == "thinking" || k == "reasoning") return true;
  }
  return false;
}

// transformers' _normalize_chat_messages (keys whose value is None go) and
// _alias_reasoning_fields (reasoning under any of its names is passed as `thinking` and
// `reasoning_content` too).
Json Normalize(const Json& message) {
  Json m = Json::object();
  for (const auto& [k, v] : message.items()) {
    if (!v.is_null()) m[k] = v;
  }
  const Json* reasoning = nullptr;
  for (const char* key : {"reasoning_content", "thinking", "reasoning"}) {
    auto it = m.find(key);
    if (it != m.end() && !it->is_null()) {
      reasoning = &*it;
      break;
    }
  }
  if (!reasoning) return m;
  Json r = *reasoning;
  Json out = Json::object();
  out["thinking"] = r;
  for (const auto& [k, v] : m.items()) {
    if (k != "thinking") out[k] = v;
  }
  out["reasoning_content"] = r;
  return out;
}

const std::string kContinueTag = "CONTINUE_FINAL_MESSAGE_TAG ";

// The request as transformers checks it before rendering.
void CheckRequest(const ChatRequest& request) {
  if (!request.messages.is_array()) throw ChatConfigError("messages must be a JSON array of message objects");
  if (request.messages.empty()) {
    throw ChatConfigError("Cannot apply chat template to an empty conversation. Provide at least one message.");
  }
  if (!request.kwargs.is_null() && !request.kwargs.is_object()) throw ChatConfigError("chat template kwargs must be a JSON object");
  if (!request.tools.is_null() && !request.tools.is_array()) throw ChatConfigError("tools must be a JSON array");
  if (!request.documents.is_null()) {
    if (!request.documents.is_array()) throw ChatConfigError("documents must be a JSON array");
    for (const auto& d : request.documents) {
      if (!d.is_object()) throw ChatConfigError("Documents should be a list of dicts with 'title' and 'text' keys!");
    }
  }
  if (request.continue_final_message && request.add_generation_prompt) {
    throw ChatConfigError("continue_final_message and add_generation_prompt are not compatible");
  }
}

// continue_final_message: the final message's text (or its last text part) gets the tag appended,
// to find where the rendered message ends; returns the text as it was.
std::string MarkFinalMessage(Json& last, const std::string& source) {
  std::string final_text;
  auto c = last.find("content");
  if (c == last.end()) throw ChatConfigError("continue_final_message is set but the final message has no \"content\" to continue!");
  if (source.find("content") == std::string::npos) {
    throw ChatConfigError("continue_final_message is set to \"content\" but this is not an accepted field in the chat_template");
  }
  if (c->is_string()) {
    final_text = c->get<std::string>();
    *c = final_text + kContinueTag;
  } else if (c->is_array()) {
    bool found = false;
    for (auto block = c->rbegin(); block != c->rend(); ++block) {
      if (block->is_object() && block->contains("text") && (*block)["text"].is_string()) {
        final_text = (*block)["text"].get<std::string>();
        (*block)["text"] = final_text + kContinueTag;
        found = true;
        break;
      }
    }
    if (!found) throw ChatConfigError("continue_final_message is set but we could not find any text to continue in the final message!");
  } else {
    throw ChatConfigError("continue_final_message: the final message's content must be a string or a list of parts");
  }
  return final_text;
}

// continue_final_message: the render cut where the final message ends.
void CutAtContinueTag(std::string& out, const std::string& final_text) {
  // transformers: cut at the tag (and trailing whitespace the template trimmed after the message).
  std::string stripped_final(final_text);
  auto strip = [](std::string s) {
    size_t b = s.find_first_not_of(" \t\n\r\f\v"), e = s.find_last_not_of(" \t\n\r\f\v");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
  };
  std::string tag = strip(kContinueTag);
  if (out.find(strip(final_text)) == std::string::npos || out.find(tag) == std::string::npos) {
    throw ChatConfigError("continue_final_message is set but the final message does not appear in the chat after applying the chat template");
  }
  size_t at = out.rfind(tag);
  if (out.compare(at, kContinueTag.size(), kContinueTag) == 0) {
    out.resize(at);
  } else {
    out.resize(at);
    size_t e = out.find_last_not_of(" \t\n\r\f\v");
    out.resize(e == std::string::npos ? 0 : e + 1);
  }
}

}  // namespace

ChatTemplate::ChatTemplate(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
ChatTemplate::~ChatTemplate() = default;

ChatTemplate ChatTemplate::FromSource(std::string_view source, Json variables, ChatTemplateOptions options) {
  auto impl = std::make_shared<Impl>();
  impl->templates.emplace_back("", Parse(source));
  if (!variables.is_object()) throw ChatConfigError("template variables must be a JSON object");
  impl->variables = std::move(variables);
  impl->options = std::move(options);
  return ChatTemplate(std::move(impl));
}

ChatTemplate ChatTemplate::FromTokenizerConfig(const Json& config, std::optional<std::string> template_source,
                                               ChatTemplateOptions options) {
  if (!config.is_object()) throw ChatConfigError("tokenizer_config.json must hold a JSON object");
  auto impl = std::make_shared<Impl>();
  impl->variables = SpecialTokens(config);
  impl->options = std::move(options);
  if (template_source) {
    impl->templates.emplace_back("", Parse(*template_source));
    return ChatTemplate(std::move(impl));
  }
  auto it = config.find("chat_template");
  if (it == config.end() || it->is_null()) {
    throw ChatConfigError(
        "tokenizer_config.json has no chat_template: give the template file (chat_template.jinja) "
        "or use a tokenizer_config.json that carries one");
  }
  auto add = [&](const std::string& name, const Json& source) {
    if (!source.is_string()) throw ChatConfigError("chat_template '" + name + "': the template must be a string");
    try {
      impl->templates.emplace_back(name, Parse(source.get_ref<const std::string&>()));
    } catch (const TemplateSyntaxError& e) {
      if (name.empty()) throw;
      throw TemplateSyntaxError("chat template '" + name + "': " + e.detail(), e.line(), e.column());
    }
  };
  if (it->is_string()) {
    add("", *it);
  } else if (it->is_array()) {
    for (const auto& entry : *it) {
      if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string() || !entry.contains("template")) {
        throw ChatConfigError("chat_template: each entry of the list must be {\"name\": ..., \"template\": ...}");
      }
      add(entry["name"].get<std::string>(), entry["template"]);
    }
  } else if (it->is_object()) {
    for (const auto& [name, source] : it->items()) add(name, source);
  } else {
    throw ChatConfigError("chat_template must be a string, a list of {name, template} or an object");
  }
  if (impl->templates.empty()) throw ChatConfigError("chat_template holds no template");
  return ChatTemplate(std::move(impl));
}

ChatTemplate ChatTemplate::FromTokenizerConfigFile(const std::string& path, std::optional<std::string> template_source,
                                                   ChatTemplateOptions options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ChatConfigError("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  Json config;
  try {
    config = Json::parse(ss.str());
  } catch (const Json::exception& e) {
    throw ChatConfigError(path + " is not valid JSON: " + e.what());
  }
  return FromTokenizerConfig(config, std::move(template_source), std::move(options));
}

std::string ChatTemplate::Render(const ChatRequest& request) const {
  const detail::Template& tmpl = impl_->Select(request);
  CheckRequest(request);
  // Messages are read in place unless a message needs transformers' normalization.
  const Json* messages = &request.messages;
  Json normalized;
  bool needs = request.continue_final_message;
  for (const auto& m : request.messages) {
    if (!m.is_object()) throw ChatConfigError("Chat messages should be dicts, but got " + m.dump());
    needs = needs || NeedsNormalizing(m);
  }
  std::string final_text;
  if (needs) {
    normalized = Json::array();
    for (const auto& m : request.messages) normalized.push_back(Normalize(m));
    if (request.continue_final_message) {
      final_text = MarkFinalMessage(normalized.back(), tmpl.source);
    }
    messages = &normalized;
  }

  std::string out;
  detail::Runtime rt(impl_->options, out);
  rt.SetVariable("messages", detail::Value::FromJson(messages));
  rt.SetVariable("tools", detail::Value::FromJson(&request.tools));
  rt.SetVariable("documents", detail::Value::FromJson(&request.documents));
  rt.SetVariable("add_generation_prompt", detail::Value::Bool(request.add_generation_prompt));
  for (const auto& [k, v] : impl_->variables.items()) rt.SetVariable(k, detail::Value::FromJson(&v));
  if (request.kwargs.is_object()) {
    for (const auto& [k, v] : request.kwargs.items()) {
      if (k == "messages" || k == "tools" || k == "documents" || k == "add_generation_prompt") {
        throw ChatConfigError("chat template kwargs cannot set '" + k + "' (it is an argument of its own)");
      }
      rt.SetVariable(k, detail::Value::FromJson(&v));
    }
  }
  rt.Render(tmpl);

  if (request.continue_final_message) CutAtContinueTag(out, final_text);
  return out;
}

const Json& ChatTemplate::variables() const { return impl_->variables; }

std::vector<std::string> ChatTemplate::template_names() const {
  std::vector<std::string> out;
  for (const auto& [name, t] : impl_->templates) out.push_back(name);
  return out;
}

const std::string& ChatTemplate::source(const std::string& name) const {
  for (const auto& [n, t] : impl_->templates) {
    if (n == name || (name.empty() && (n == "default" || impl_->templates.size() == 1))) return t->source;
  }
  throw ChatConfigError("no chat template named '" + name + "'");
}

}  // namespace triton_studio::chat
