// The orchestrator's answer text: model responses as token tensors ([batch?, beam?, seq], cut by
// sequence lengths), one StreamText per sequence. Whatever the response sizes, the deltas of each
// sequence concatenate to its whole decode; the answer reports stopped only when every sequence
// hit a stop sequence; malformed tensors are errors that name the tensor.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../src/answer_text.h"
#include "triton_studio/glue/errors.h"
#include "triton_studio/tokenizer.h"

using triton_studio::glue::BackendError;
using triton_studio::glue::InputTensor;
using triton_studio::steps::AnswerText;
using triton_studio::tok::Tokenizer;

namespace {
const Tokenizer& Llama() {
  static std::unique_ptr<Tokenizer> t =
      Tokenizer::FromFile(std::string(TS_TEST_TOKENIZERS_DIR) + "/llama-2/tokenizer.json");
  return *t;
}

InputTensor Uint32s(const std::string& name, std::vector<int64_t> shape, const std::vector<uint32_t>& values) {
  InputTensor t;
  t.name = name;
  t.dtype = TRITONSERVER_TYPE_UINT32;
  t.shape = std::move(shape);
  t.data.resize(values.size() * 4);
  if (!values.empty()) std::memcpy(t.data.data(), values.data(), t.data.size());
  return t;
}

const char* kText = "Hello world, caf\xC3\xA9 \xF0\x9F\x98\x80 end. Stop here please";
}  // namespace

TEST(AnswerText, ResponsesOfAnySizeAddUpToTheWholeDecode) {
  const Tokenizer& tok = Llama();
  const std::vector<uint32_t> ids = tok.Encode(kText, false);
  const std::string whole = tok.Decode(ids, true);
  for (size_t chunk : {1u, 3u, 1000u}) {
    // [batch 1, beam 1, seq] as a batching TensorRT-LLM / sim-llm model sends them.
    AnswerText answer(tok, true, {}, 2, true);
    std::string text;
    for (size_t i = 0; i < ids.size(); i += chunk) {
      std::vector<uint32_t> part(ids.begin() + i, ids.begin() + std::min(ids.size(), i + chunk));
      const auto n = static_cast<int64_t>(part.size());
      text += answer.Push(Uint32s("output_ids", {1, 1, n}, part), Uint32s("sequence_length", {1, 1}, {uint32_t(n)}))[0];
    }
    text += answer.Finish()[0];
    EXPECT_EQ(text, whole) << "chunk " << chunk;
    EXPECT_EQ(answer.rows(), 1);
    EXPECT_EQ(answer.beams(), 1);
  }
}

TEST(AnswerText, SequenceLengthsCutPaddedRowsAndEachSequenceKeepsItsOwnState) {
  const Tokenizer& tok = Llama();
  const std::vector<uint32_t> a = tok.Encode("caf\xC3\xA9 ok", false);
  const std::vector<uint32_t> b = tok.Encode("\xF0\x9F\x98\x80!", false);
  AnswerText answer(tok, true, {}, 1, true);  // [batch, seq]: two rows
  std::string texts[2];
  const size_t steps = std::max(a.size(), b.size());
  for (size_t i = 0; i < steps; ++i) {
    const uint32_t x = i < a.size() ? a[i] : 0, y = i < b.size() ? b[i] : 0;
    const auto d = answer.Push(Uint32s("ids", {2, 1}, {x, y}),
                               Uint32s("len", {2}, {uint32_t(i < a.size()), uint32_t(i < b.size())}));
    texts[0] += d[0];
    texts[1] += d[1];
  }
  const auto rest = answer.Finish();
  EXPECT_EQ(texts[0] + rest[0], "caf\xC3\xA9 ok");
  EXPECT_EQ(texts[1] + rest[1], "\xF0\x9F\x98\x80!");
}

TEST(AnswerText, StopsWhenEverySequenceHitAStopSequence) {
  const Tokenizer& tok = Llama();
  const std::vector<uint32_t> ids = tok.Encode(kText, false);
  AnswerText answer(tok, true, {"Stop h"}, 1, false);  // [seq], no batch dimension
  std::string text;
  size_t pushed = 0;
  while (pushed < ids.size() && !answer.stopped()) {
    text += answer.Push(Uint32s("ids", {1}, {ids[pushed++]}), std::nullopt)[0];
  }
  EXPECT_TRUE(answer.stopped());
  EXPECT_LT(pushed, ids.size());
  EXPECT_EQ(text, "Hello world, caf\xC3\xA9 \xF0\x9F\x98\x80 end. ");
}

TEST(AnswerText, MalformedTensorsAreErrorsNamingTheTensor) {
  const Tokenizer& tok = Llama();
  AnswerText answer(tok, true, {}, 2, true);
  try {
    answer.Push(Uint32s("output_ids", {1, 3}, {1, 2, 3}), std::nullopt);
    FAIL() << "a rank-2 tensor for [batch, beam, seq] was accepted";
  } catch (const BackendError& e) {
    EXPECT_NE(std::string(e.what()).find("output_ids"), std::string::npos) << e.what();
  }
  EXPECT_THROW(answer.Push(Uint32s("output_ids", {1, 1, 2}, {1, 2}), Uint32s("len", {1, 1}, {5})), BackendError);
  answer.Push(Uint32s("output_ids", {1, 1, 1}, {1}), std::nullopt);
  EXPECT_THROW(answer.Push(Uint32s("output_ids", {2, 1, 1}, {1, 1}), std::nullopt), BackendError);
}

namespace {
// Hooks that record what ran: each streamed sequence gets its own state; onChunk brackets every
// delta and endStream returns how many chunks its sequence saw, so the text shows every call.
struct Recorder {
  int starts = 0;
  int ends = 0;
  int after = 0;
};

struct SequenceState {
  int chunks = 0;
};

triton_studio::steps::StepHooks RecordingHooks(Recorder* r) {
  triton_studio::steps::StepHooks h;
  h.after_decode = [r](const std::string& text) {
    ++r->after;
    return "<" + text + ">";
  };
  h.start_stream = [r]() -> std::shared_ptr<void> {
    ++r->starts;
    return std::make_shared<SequenceState>();
  };
  h.on_chunk = [](void* state, const std::string& chunk) {
    ++static_cast<SequenceState*>(state)->chunks;
    return "[" + chunk + "]";
  };
  h.end_stream = [r](void* state) {
    ++r->ends;
    return "#" + std::to_string(static_cast<SequenceState*>(state)->chunks);
  };
  return h;
}
}  // namespace

TEST(AnswerText, StreamedAnswersRunTheStreamingHooksPerSequenceAndEndThemOnce) {
  const Tokenizer& tok = Llama();
  Recorder r;
  const auto hooks = RecordingHooks(&r);
  const std::vector<uint32_t> a = tok.Encode("Hello world", false);
  AnswerText answer(tok, true, {}, 1, true, &hooks);  // [batch, seq]: two rows, both the same ids
  std::string texts[2];
  for (uint32_t id : a) {
    const auto d = answer.Push(Uint32s("ids", {2, 1}, {id, id}), std::nullopt);
    texts[0] += d[0];
    texts[1] += d[1];
  }
  const auto rest = answer.Finish();
  const std::string want = "[Hello][ world]#2";
  EXPECT_EQ(texts[0] + rest[0], want);
  EXPECT_EQ(texts[1] + rest[1], want);
  EXPECT_EQ(r.starts, 2);
  EXPECT_EQ(r.ends, 2);
  EXPECT_EQ(r.after, 0);
  answer.Abandon();  // after the end: endStream does not run again
  EXPECT_EQ(r.ends, 2);
}

TEST(AnswerText, AWholeAnswerRunsAfterDecodeOnlyOnTheTextCutAtTheStopSequence) {
  const Tokenizer& tok = Llama();
  Recorder r;
  const auto hooks = RecordingHooks(&r);
  const std::vector<uint32_t> ids = tok.Encode(kText, false);
  AnswerText answer(tok, true, {"Stop h"}, 2, true, &hooks);
  const auto texts = answer.Whole(Uint32s("output_ids", {1, 1, int64_t(ids.size())}, ids), std::nullopt);
  EXPECT_EQ(texts, std::vector<std::string>{"<Hello world, caf\xC3\xA9 \xF0\x9F\x98\x80 end. >"});
  EXPECT_EQ(r.after, 1);
  EXPECT_EQ(r.starts, 0);
  EXPECT_THROW(answer.Whole(Uint32s("output_ids", {1, 1, 1}, {ids[0]}), std::nullopt), BackendError);
}

TEST(AnswerText, AStopMatchEndsTheStreamAndAnAbandonedAnswerStillEndsItsStreams) {
  const Tokenizer& tok = Llama();
  Recorder r;
  const auto hooks = RecordingHooks(&r);
  const std::vector<uint32_t> ids = tok.Encode(kText, false);
  {
    AnswerText stopped(tok, true, {"Stop h"}, 1, false, &hooks);
    std::string text;
    for (size_t i = 0; i < ids.size() && !stopped.stopped(); ++i) {
      text += stopped.Push(Uint32s("ids", {1}, {ids[i]}), std::nullopt)[0];
    }
    EXPECT_EQ(r.ends, 1);  // at the match, not later
    text += stopped.Finish()[0];
    EXPECT_EQ(r.ends, 1);
    // Every delta went through onChunk, then endStream's count closes the text.
    std::string plain;
    int chunks = 0;
    for (char c : text.substr(0, text.rfind('#'))) {
      if (c == '[') ++chunks;
      if (c != '[' && c != ']') plain += c;
    }
    EXPECT_EQ(plain, "Hello world, caf\xC3\xA9 \xF0\x9F\x98\x80 end. ");
    EXPECT_EQ(text.substr(text.rfind('#')), "#" + std::to_string(chunks));
  }
  {
    AnswerText cancelled(tok, true, {}, 1, false, &hooks);
    cancelled.Push(Uint32s("ids", {1}, {ids[0]}), std::nullopt);
    cancelled.Abandon();
    EXPECT_EQ(r.starts, 2);
    EXPECT_EQ(r.ends, 2);
    cancelled.Abandon();
    EXPECT_EQ(r.ends, 2);
  }
}
