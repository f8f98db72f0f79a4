// A step's chat template: request inputs parsed and rendered into the prompt (see chat_prompt.h).
#include "chat_prompt.h"

#include <fstream>
#include <sstream>

#include "triton_studio/glue.h"

namespace triton_studio::steps {
namespace {

using glue::BackendError;
using Json = chat::Json;

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string Directory(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

bool Readable(const std::string& path) { return std::ifstream(path).good(); }

Json ParseInput(const std::string& text, const char* input, const char* expected) {
  try {
    return Json::parse(text);
  } catch (const std::exception& e) {
    throw BackendError(std::string("input '") + input + "' is not JSON (" + e.what() + "); send " + expected,
                       TRITONSERVER_ERROR_INVALID_ARG);
  }
}

// Typed content parts ([{"type": "text", "text": …}, …]) become one string: the templates of
// current chat models expect strings, and text is all a text pipeline takes.
void FlattenContent(Json& message, size_t index) {
  if (!message.is_object()) {
    throw BackendError("messages[" + std::to_string(index) + "] is not an object; send {\"role\": …, \"content\": …}",
                       TRITONSERVER_ERROR_INVALID_ARG);
  }
  auto content = message.find("content");
  if (content == message.end() || !content->is_array()) return;
  std::string text;
  bool first = true;
  for (const auto& part : *content) {
    const std::string type = part.is_object() ? part.value("type", "") : "";
    if (type != "text" || !part.contains("text") || !part["text"].is_string()) {
      throw BackendError("messages[" + std::to_string(index) + "].content has a part of type '" + type +
                             "'; this pipeline takes text parts only ({\"type\": \"text\", \"text\": …})",
                         TRITONSERVER_ERROR_INVALID_ARG);
    }
    if (!first) text += "\n";
    text += part["text"].get<std::string>();
    first = false;
  }
  *content = text;
}

}  // namespace

std::shared_ptr<const ChatPrompt> ChatPrompt::Load(const std::string& path) {
  try {
    if (EndsWith(path, ".json")) {
      return std::make_shared<const ChatPrompt>(chat::ChatTemplate::FromTokenizerConfigFile(path));
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) throw chat::ChatConfigError("cannot read the file");
    std::stringstream source;
    source << in.rdbuf();
    const std::string config = Directory(path) + "/tokenizer_config.json";
    if (Readable(config)) {
      return std::make_shared<const ChatPrompt>(chat::ChatTemplate::FromTokenizerConfigFile(config, source.str()));
    }
    return std::make_shared<const ChatPrompt>(chat::ChatTemplate::FromSource(source.str()));
  } catch (const chat::ChatTemplateError& e) {
    throw BackendError("chat template '" + path + "': " + e.what() +
                           " (fix the template, or name another with the step's \"chatTemplate\", and regenerate)",
                       TRITONSERVER_ERROR_INVALID_ARG);
  }
}

std::string ChatPrompt::Render(const std::string& messages, const std::string& tools,
                               const std::string& kwargs) const {
  chat::ChatRequest request;
  request.messages = ParseInput(messages, "messages", "a JSON array of {\"role\", \"content\"} messages");
  if (!request.messages.is_array()) {
    throw BackendError("input 'messages' must be a JSON array of messages", TRITONSERVER_ERROR_INVALID_ARG);
  }
  for (size_t i = 0; i < request.messages.size(); ++i) FlattenContent(request.messages[i], i);
  if (!tools.empty()) {
    request.tools = ParseInput(tools, "tools", "a JSON array of tools");
    if (!request.tools.is_array() && !request.tools.is_null()) {
      throw BackendError("input 'tools' must be a JSON array of tools", TRITONSERVER_ERROR_INVALID_ARG);
    }
  }
  request.add_generation_prompt = true;
  if (!kwargs.empty()) {
    Json variables = ParseInput(kwargs, "chat_template_kwargs", "a JSON object of template variables");
    if (!variables.is_object()) {
      throw BackendError("input 'chat_template_kwargs' must be a JSON object", TRITONSERVER_ERROR_INVALID_ARG);
    }
    for (const char* control : {"add_generation_prompt", "continue_final_message"}) {
      auto it = variables.find(control);
      if (it == variables.end()) continue;
      if (!it->is_boolean()) {
        throw BackendError(std::string("chat_template_kwargs.") + control + " must be true or false",
                           TRITONSERVER_ERROR_INVALID_ARG);
      }
      (std::string(control) == "add_generation_prompt" ? request.add_generation_prompt
                                                       : request.continue_final_message) = it->get<bool>();
      variables.erase(it);
    }
    if (request.continue_final_message) request.add_generation_prompt = false;
    request.kwargs = std::move(variables);
  }
  try {
    return template_.Render(request);
  } catch (const chat::TemplateRaisedError& e) {
    // The template's own words: what transformers raises to its caller.
    throw BackendError(e.what(), TRITONSERVER_ERROR_INVALID_ARG);
  } catch (const chat::ChatTemplateError& e) {
    throw BackendError(std::string("chat template: ") + e.what(), TRITONSERVER_ERROR_INVALID_ARG);
  }
}

}  // namespace triton_studio::steps
