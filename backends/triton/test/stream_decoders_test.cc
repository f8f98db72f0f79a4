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

// Streaming hooks per stream: startStream at the first chunk, onChunk on each delta, endStream
// when the stream ends at the end-of-sequence id, after which the stream is forgotten (a later
// chunk with the same key starts a new one with fresh state).
namespace {
struct Counter {
  int chunks = 0;
  std::string held;
};
triton_studio::steps::StepHooks HoldLastCharHooks() {
  triton_studio::steps::StepHooks h;
  h.start_stream = [] { return std::static_pointer_cast<void>(std::make_shared<Counter>()); };
  h.on_chunk = [](void* state, const std::string& text) {
    auto* c = static_cast<Counter*>(state);
    ++c->chunks;
    std::string all = c->held + text;
    c->held = all.substr(all.size() - 1);
    return all.substr(0, all.size() - 1);
  };
  h.end_stream = [](void* state) {
    auto* c = static_cast<Counter*>(state);
    return c->held + "|" + std::to_string(c->chunks);
  };
  return h;
}
}  // namespace

TEST(StreamDecoders, TheEndOfSequenceIdEndsAStream) {
  const Tokenizer& tok = Llama2();
  ASSERT_TRUE(tok.EosId());
  const auto hooks = HoldLastCharHooks();
  StreamDecoders decoders(tok, true, 60'000'000'000ull, &hooks);
  std::vector<uint32_t> ids = tok.Encode("hi there", false);
  std::string text;
  for (uint32_t id : ids) text += decoders.Push("a", {id});
  EXPECT_EQ(text, "hi ther");  // the last character is still held back
  text += decoders.Push("a", {*tok.EosId()});
  EXPECT_EQ(text, "hi there|" + std::to_string(ids.size()));
  EXPECT_EQ(decoders.Push("a", {ids[0], *tok.EosId()}), "hi|1");
}
