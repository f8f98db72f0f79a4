// ts-render-chat: render a conversation with a model's chat template (the native engine the
// steps use), byte for byte what transformers' apply_chat_template(tokenize=False) returns.
//
//   ts-render-chat --tokenizer-config FILE [--chat-template FILE] [--add-generation-prompt]
//                  [--tools FILE] [--kwargs JSON] [--json] < messages.json
//   ts-render-chat --tokenizer-config FILE [--chat-template FILE] --batch < requests.jsonl
//
// The messages JSON array comes on stdin; the text goes to stdout as is (no newline added).
// --json prints {"text": ...}. Errors exit 1 with the message on stderr (with --json also as
// {"error": {"kind", "message", "line"?, "column"?}} on stdout); a template's raise_exception is
// kind "raised" and its message alone. Batch mode reads one request per line,
// {"messages", "tools"?, "documents"?, "add_generation_prompt"?, "continue_final_message"?,
// "kwargs"?, "template_name"?, "now"?}, and prints one {"text"} or {"error"} line for each.
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "triton_studio/chat_template.h"

namespace {

using triton_studio::chat::ChatRequest;
using triton_studio::chat::ChatTemplate;
using triton_studio::chat::ChatTemplateOptions;
using Json = triton_studio::chat::Json;
namespace chat = triton_studio::chat;

constexpr const char* kUsage =
    "usage: ts-render-chat --tokenizer-config FILE [--chat-template FILE] [--add-generation-prompt]\n"
    "                      [--tools FILE] [--kwargs JSON] [--json] < messages.json\n"
    "       ts-render-chat --tokenizer-config FILE [--chat-template FILE] --batch < requests.jsonl\n"
    "  --tokenizer-config FILE  the model's tokenizer_config.json (its chat_template and special tokens)\n"
    "  --chat-template FILE     a Jinja template file used instead of the config's chat_template\n"
    "  --add-generation-prompt  end with the header of the assistant's turn\n"
    "  --tools FILE             a JSON array of tool schemas passed as `tools`\n"
    "  --kwargs JSON            extra template variables, e.g. '{\"enable_thinking\": false}'\n"
    "  --json                   print {\"text\": ...} (errors as {\"error\": ...})\n"
    "  --batch                  JSON lines of requests on stdin, one answer line each\n";

[[noreturn]] void UsageError(const std::string& message) {
  std::cerr << "ts-render-chat: " << message << "\n" << kUsage;
  std::exit(2);
}

std::string ReadFile(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << "ts-render-chat: cannot read " << what << " " << path << "\n";
    std::exit(1);
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Json ParseJson(const std::string& text, const std::string& what) {
  try {
    return Json::parse(text);
  } catch (const Json::exception& e) {
    std::cerr << "ts-render-chat: " << what << " is not valid JSON: " << e.what() << "\n";
    std::exit(1);
  }
}

Json ErrorJson(const std::exception& e) {
  Json err = Json::object();
  if (auto* s = dynamic_cast<const chat::TemplateSyntaxError*>(&e)) {
    err["kind"] = "syntax";
    err["line"] = s->line();
    err["column"] = s->column();
  } else if (auto* u = dynamic_cast<const chat::UnsupportedConstructError*>(&e)) {
    err["kind"] = "unsupported";
    err["construct"] = u->construct();
  } else if (dynamic_cast<const chat::TemplateRaisedError*>(&e)) {
    err["kind"] = "raised";
  } else if (auto* r = dynamic_cast<const chat::TemplateRuntimeError*>(&e)) {
    err["kind"] = "runtime";
    err["line"] = r->line();
  } else if (dynamic_cast<const chat::RenderLimitError*>(&e)) {
    err["kind"] = "limit";
  } else {
    err["kind"] = "config";
  }
  err["message"] = e.what();
  return err;
}

ChatRequest RequestFromJson(const Json& line) {
  ChatRequest r;
  if (!line.is_object()) throw chat::ChatConfigError("each batch line must be a JSON object");
  r.messages = line.value("messages", Json());
  r.tools = line.value("tools", Json());
  r.documents = line.value("documents", Json());
  r.add_generation_prompt = line.value("add_generation_prompt", false);
  r.continue_final_message = line.value("continue_final_message", false);
  r.kwargs = line.value("kwargs", Json::object());
  r.template_name = line.value("template_name", std::string());
  return r;
}

// Requests in batch mode may fix the clock of strftime_now ("now": seconds since the epoch).
std::time_t fixed_now = 0;
bool use_fixed_now = false;

// --batch: one JSON request per stdin line, one JSON answer (text or error) per stdout line.
int RenderBatch(const ChatTemplate& tmpl) {
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    Json answer;
    try {
      Json request = Json::parse(line);
      use_fixed_now = request.contains("now");
      if (use_fixed_now) fixed_now = request["now"].get<std::time_t>();
      answer = Json{{"text", tmpl.Render(RequestFromJson(request))}};
    } catch (const chat::ChatTemplateError& e) {
      answer = Json{{"error", ErrorJson(e)}};
    } catch (const Json::exception& e) {
      answer = Json{{"error", {{"kind", "config"}, {"message", std::string("bad request line: ") + e.what()}}}};
    }
    std::cout << answer.dump(-1, ' ', false, Json::error_handler_t::replace) << "\n";
    if (std::cin.rdbuf()->in_avail() <= 0) std::cout.flush();
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string config_path, template_path, tools_path, kwargs_text;
  bool add_generation_prompt = false, as_json = false, batch = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* what) -> std::string {
      if (i + 1 >= argc) UsageError(a + " needs " + what);
      return argv[++i];
    };
    if (a == "--tokenizer-config") config_path = value("a file path");
    else if (a == "--chat-template") template_path = value("a file path");
    else if (a == "--tools") tools_path = value("a file path");
    else if (a == "--kwargs") kwargs_text = value("a JSON object");
    else if (a == "--add-generation-prompt") add_generation_prompt = true;
    else if (a == "--json") as_json = true;
    else if (a == "--batch") batch = true;
    else if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      return 0;
    } else {
      UsageError("unknown argument '" + a + "'");
    }
  }
  if (config_path.empty()) UsageError("--tokenizer-config is required");

  ChatTemplateOptions options;
  options.now = []() { return use_fixed_now ? fixed_now : std::time(nullptr); };

  std::optional<ChatTemplate> tmpl;
  try {
    std::optional<std::string> source;
    if (!template_path.empty()) source = ReadFile(template_path, "--chat-template");
    tmpl = ChatTemplate::FromTokenizerConfigFile(config_path, source, options);
  } catch (const chat::ChatTemplateError& e) {
    if (as_json || batch) std::cout << Json{{"error", ErrorJson(e)}}.dump() << "\n";
    std::cerr << "ts-render-chat: " << config_path << ": " << e.what() << "\n";
    return 1;
  }

  if (batch) return RenderBatch(*tmpl);

  std::stringstream ss;
  ss << std::cin.rdbuf();
  ChatRequest request;
  request.messages = ParseJson(ss.str(), "the messages on stdin");
  request.add_generation_prompt = add_generation_prompt;
  if (!tools_path.empty()) request.tools = ParseJson(ReadFile(tools_path, "--tools"), "--tools " + tools_path);
  if (!kwargs_text.empty()) request.kwargs = ParseJson(kwargs_text, "--kwargs");
  try {
    std::string text = tmpl->Render(request);
    if (as_json) {
      std::cout << Json{{"text", text}}.dump(-1, ' ', false, Json::error_handler_t::replace) << "\n";
    } else {
      std::fwrite(text.data(), 1, text.size(), stdout);
    }
    return 0;
  } catch (const chat::ChatTemplateError& e) {
    if (as_json) std::cout << Json{{"error", ErrorJson(e)}}.dump() << "\n";
    std::cerr << "ts-render-chat: " << e.what() << "\n";
    return 1;
  }
}
