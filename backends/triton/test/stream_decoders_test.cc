// The detokenize step's decoders kept across executions, keyed by stream: chunks pushed one by
// one decode exactly like the whole answer, streams do not mix, idle streams are forgotten.
#include <gtest/gtest.h>

#include <thread>

#include "../src/stream_decoders.h"
#include "triton_studio/tokenizer.h"

using triton_studio::steps::StreamDecoders;
using triton_studio::tok::Tokenizer;

namespace {
const Tokenizer& Llama2() {
  static auto tok = Tokenizer::FromFile(std::string(TS_TEST_TOKENIZERS_DIR) + "/llama-2/tokenizer.json");
  return *tok;
}
}  // namespace

TEST(StreamDecoders, ChunksConcatenateToTheWholeDecode) {
  const Tokenizer& tok = Llama2();
  // Word-start spaces (SentencePiece) and an emoji whose bytes arrive as separate byte tokens.
  const std::string text = "Hello world, caf\xC3\xA9 \xF0\x9F\x98\x80 ok";
  std::vector<uint32_t> ids = tok.Encode(text, false);
  StreamDecoders decoders(tok, true, 60'000'000'000ull);
  std::string streamed;
  for (uint32_t id : ids) streamed += decoders.Push("a", {id});
  EXPECT_EQ(streamed, tok.Decode(ids, true));
  EXPECT_EQ(streamed, text);
}

TEST(StreamDecoders, StreamsWithDifferentKeysDoNotMix) {
  const Tokenizer& tok = Llama2();
  std::vector<uint32_t> a = tok.Encode("one two three", false), b = tok.Encode("four five", false);
  StreamDecoders decoders(tok, true, 60'000'000'000ull);
  std::string ta, tb;
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    if (i < a.size()) ta += decoders.Push("a", {a[i]});
    if (i < b.size()) tb += decoders.Push("b", {b[i]});
  }
  EXPECT_EQ(ta, "one two three");
  EXPECT_EQ(tb, "four five");
}

TEST(StreamDecoders, AnIdleStreamIsForgotten) {
  const Tokenizer& tok = Llama2();
  std::vector<uint32_t> ids = tok.Encode("Hello world", false);
  ASSERT_GE(ids.size(), 2u);
  StreamDecoders decoders(tok, true, 1'000'000ull);  // 1 ms
  const std::string first = decoders.Push("a", {ids[0]});
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  decoders.Push("other", {ids[0]});  // a push sweeps idle streams
  // Forgotten: the next chunk starts a fresh decoder, which drops the word's leading space.
  EXPECT_EQ(first + decoders.Push("a", {ids[1]}), "Helloworld");
}
