// InflightEngine on the real SmolLM2-135M-Instruct GGUF (scripts/fetch-llama.sh): answers are the
// model's, requests join and leave a running batch step by step, KV cells are freed at once, and
// the per-request controls act as TensorRT-LLM's do. Short prompts and few tokens: seconds on 2 cores.
#include <gtest/gtest.h>

#include <map>

#include "inflight_engine.h"

namespace triton_studio::llama_cpp {
namespace {

EngineOptions Options(int sequences = 4) {
  EngineOptions o;
  o.model_path = TS_LLAMA_GGUF;
  o.backends_dir = TS_LLAMA_BINS;
  o.threads = 1;  // ggml spins at its barriers: 2 threads on 2 shared cores can be 50x slower (BENCHMARKS.md)
  o.max_sequences = sequences;
  o.context_length = 256;
  return o;
}

InflightEngine& Engine() {
  static InflightEngine engine(Options());
  return engine;
}

GenerationParams Tokens(int64_t n) {
  GenerationParams p;
  p.max_new_tokens = n;
  return p;
}

// Runs every added request to its end; the tokens each generated.
std::map<uint64_t, std::vector<int32_t>> RunToEnd(InflightEngine& engine) {
  std::map<uint64_t, std::vector<int32_t>> out;
  while (engine.Active() > 0) {
    for (const StepEvent& e : engine.Step()) {
      if (e.token) out[e.id].push_back(*e.token);
    }
  }
  return out;
}

std::vector<int32_t> Generate(const std::string& prompt, GenerationParams params) {
  InflightEngine& engine = Engine();
  engine.Add(1, engine.Tokenize(prompt, false), std::move(params));
  return RunToEnd(engine)[1];
}

TEST(InflightEngine, AnswersAFactualPromptWithTheModelsKnowledge) {
  const std::vector<int32_t> answer = Generate("The capital of France is", Tokens(4));
  EXPECT_NE(Engine().Detokenize(answer).find("Paris"), std::string::npos) << Engine().Detokenize(answer);
}

TEST(InflightEngine, ARequestJoinsARunningBatchAtTheNextStepAndLeavesWithItsCellsFreed) {
  InflightEngine& engine = Engine();
  const std::vector<int32_t> a = engine.Tokenize("The capital of France is", false);
  const std::vector<int32_t> b = engine.Tokenize("One, two, three,", false);
  const std::vector<int32_t> solo_b = Generate("One, two, three,", Tokens(3));

  engine.Add(10, a, Tokens(6));
  engine.Step();  // a's prompt
  EXPECT_EQ(engine.last_rows(), 1);
  EXPECT_EQ(engine.last_tokens(), static_cast<int>(a.size()));
  engine.Step();
  engine.Add(11, b, Tokens(3));
  const int a_sequence = *engine.SequenceOf(10), b_sequence = *engine.SequenceOf(11);
  EXPECT_NE(a_sequence, b_sequence);
  std::vector<int32_t> b_tokens;
  engine.Step();  // b joins: a's one token and b's whole prompt in one batch
  EXPECT_EQ(engine.last_rows(), 2);
  EXPECT_EQ(engine.last_tokens(), 1 + static_cast<int>(b.size()));
  bool a_done = false;
  while (engine.Active() > 0) {
    for (const StepEvent& e : engine.Step()) {
      if (e.id == 11 && e.token) b_tokens.push_back(*e.token);
      if (e.id == 10 && e.finished) a_done = true;
      if (e.finished) {
        EXPECT_EQ(engine.CellsOf(e.id == 10 ? a_sequence : b_sequence), 0) << "cells of a finished request are freed";
      }
    }
  }
  EXPECT_TRUE(a_done);
  // b's first token came with its prompt step; greedy decoding gives the answer it gets alone.
  EXPECT_EQ(b_tokens.size() + 1, solo_b.size());
  EXPECT_TRUE(std::equal(b_tokens.begin(), b_tokens.end(), solo_b.begin() + 1));
}

TEST(InflightEngine, ACancelledRequestLeavesAtOnceAndTheOthersGoOn) {
  InflightEngine& engine = Engine();
  engine.Add(20, engine.Tokenize("The capital of France is", false), Tokens(8));
  engine.Add(21, engine.Tokenize("The capital of France is", false), Tokens(4));
  engine.Step();
  const int sequence = *engine.SequenceOf(20);
  EXPECT_GT(engine.CellsOf(sequence), 0);
  engine.Remove(20);
  EXPECT_EQ(engine.CellsOf(sequence), 0);
  EXPECT_FALSE(engine.SequenceOf(20));
  const auto rest = RunToEnd(engine);
  EXPECT_EQ(rest.count(20), 0u);
  EXPECT_EQ(rest.at(21).size(), 3u);  // its first token came with the step before the cancellation
}

TEST(InflightEngine, SamplingWithASeedIsRepeatable) {
  GenerationParams p = Tokens(8);
  p.sampling = true;
  p.temperature = 1.0f;
  p.top_k = 40;
  p.top_p = 0.95f;
  p.seed = 1234;
  const std::vector<int32_t> first = Generate("Once upon a time", p);
  const std::vector<int32_t> second = Generate("Once upon a time", p);
  EXPECT_EQ(first.size(), 8u);
  EXPECT_EQ(first, second);
}

TEST(InflightEngine, EndAndStopAndBadWordsActAsTensorRtLlmDoes) {
  const std::vector<int32_t> greedy = Generate("The capital of France is", Tokens(4));
  ASSERT_GE(greedy.size(), 2u);
  GenerationParams end = Tokens(4);
  end.end_id = greedy[1];  // ends there, not emitted
  EXPECT_EQ(Generate("The capital of France is", end), std::vector<int32_t>(greedy.begin(), greedy.begin() + 1));
  GenerationParams stop = Tokens(4);
  stop.stop_words = {{greedy[0], greedy[1]}};  // ends after it, emitted
  EXPECT_EQ(Generate("The capital of France is", stop), std::vector<int32_t>(greedy.begin(), greedy.begin() + 2));
  GenerationParams bad = Tokens(4);
  bad.bad_words = {{greedy[0]}};  // never chosen
  const std::vector<int32_t> other = Generate("The capital of France is", bad);
  ASSERT_FALSE(other.empty());
  EXPECT_NE(other[0], greedy[0]);
}

TEST(InflightEngine, RefusesWhatCannotRunSayingWhatToChange) {
  InflightEngine& engine = Engine();
  EXPECT_THROW(engine.Validate({}, Tokens(4)), RequestError);
  EXPECT_THROW(engine.Validate({engine.vocabulary_size()}, Tokens(4)), RequestError);
  try {
    engine.Validate(std::vector<int32_t>(250, 42), Tokens(16));
    FAIL() << "a prompt past the context must be refused";
  } catch (const RequestError& e) {
    EXPECT_NE(std::string(e.what()).find("context_length"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(engine.Validate({42}, Tokens(4)));
}

TEST(InflightEngine, NoOutputTokensEndsAtOnce) {
  InflightEngine& engine = Engine();
  engine.Add(30, {42, 43}, Tokens(0));
  const std::vector<StepEvent> events = engine.Step();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_TRUE(events[0].finished);
  EXPECT_FALSE(events[0].token);
  EXPECT_EQ(engine.Active(), 0u);
}

}  // namespace
}  // namespace triton_studio::llama_cpp
