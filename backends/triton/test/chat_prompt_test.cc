// A step's chat template (ChatPrompt): the request's JSON strings in, the rendered text out, with
// the input errors a client can make named, the template's raise_exception message passed through
// unchanged, and a template that cannot be parsed refused at load with its line and column. The
// byte-exact rendering itself is backends/chat-template's (tested there against transformers).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "../src/chat_prompt.h"
#include "triton_studio/glue.h"

using triton_studio::glue::BackendError;
using triton_studio::steps::ChatPrompt;

namespace {

std::string Write(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const BackendError& e) {
    return e.what();
  }
  return "(no error)";
}

const char* kTemplate =
    "{%- for m in messages %}{%- if m['role'] == 'tool' %}{{ raise_exception('no tools here') }}{%- endif %}"
    "<{{ m['role'] }}>{{ m['content'] }}{%- endfor %}"
    "{%- if tools %}[{{ tools | length }} tools]{%- endif %}"
    "{%- if enable_thinking is defined %}[thinking {{ enable_thinking }}]{%- endif %}"
    "{%- if add_generation_prompt %}<assistant>{%- endif %}";

}  // namespace

TEST(ChatPrompt, RendersTheConversationWithAGenerationPrompt) {
  const auto prompt = ChatPrompt::Load(Write("plain.jinja", kTemplate));
  EXPECT_EQ(prompt->Render(R"([{"role":"user","content":"hi"}])", "", ""), "<user>hi<assistant>");
}

TEST(ChatPrompt, JoinsTextPartsAndPassesToolsAndKwargs) {
  const auto prompt = ChatPrompt::Load(Write("parts.jinja", kTemplate));
  EXPECT_EQ(prompt->Render(R"([{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}])",
                           R"([{"type":"function","function":{"name":"f"}}])", R"({"enable_thinking": false})"),
            "<user>a\nb[1 tools][thinking False]<assistant>");
  EXPECT_EQ(prompt->Render(R"([{"role":"user","content":"x"}])", "", R"({"add_generation_prompt": false})"),
            "<user>x");
}

TEST(ChatPrompt, NamesTheClientsMistakes) {
  const auto prompt = ChatPrompt::Load(Write("errors.jinja", kTemplate));
  EXPECT_NE(ErrorOf([&] { prompt->Render("not json", "", ""); }).find("input 'messages' is not JSON"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { prompt->Render(R"({"role":"user"})", "", ""); }).find("must be a JSON array"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] {
              prompt->Render(R"([{"role":"user","content":[{"type":"image_url","image_url":{}}]}])", "", "");
            }).find("text parts only"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { prompt->Render("[]", "{}", ""); }).find("'tools' must be a JSON array"), std::string::npos);
  EXPECT_NE(ErrorOf([&] { prompt->Render("[]", "", "[1]"); }).find("must be a JSON object"), std::string::npos);
  EXPECT_NE(ErrorOf([&] { prompt->Render("[]", "", R"({"add_generation_prompt": 1})"); }).find("true or false"),
            std::string::npos);
}

TEST(ChatPrompt, RaiseExceptionIsTheRequestsErrorWordForWord) {
  const auto prompt = ChatPrompt::Load(Write("raise.jinja", kTemplate));
  EXPECT_EQ(ErrorOf([&] { prompt->Render(R"([{"role":"tool","content":"{}"}])", "", ""); }), "no tools here");
}

TEST(ChatPrompt, ATemplateThatCannotBeParsedFailsTheLoadAtItsPlace) {
  const std::string path = Write("broken.jinja", "line one\n{% if messages %}\n{{ messages[0] }\n");
  const std::string error = ErrorOf([&] { ChatPrompt::Load(path); });
  EXPECT_NE(error.find("chat template '" + path + "'"), std::string::npos) << error;
  EXPECT_NE(error.find("line 3, column"), std::string::npos) << error;
}

TEST(ChatPrompt, ReadsTheTemplateAndSpecialTokensOfATokenizerConfig) {
  const auto prompt = ChatPrompt::Load(std::string(TS_TEST_TOKENIZERS_DIR) + "/llama-3.1/tokenizer_config.json");
  EXPECT_EQ(prompt->Render(R"([{"role":"user","content":" hi "}])", "", ""),
            "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nhi<|eot_id|>"
            "<|start_header_id|>assistant<|end_header_id|>\n\n");
}
