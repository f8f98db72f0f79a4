// One streamed sequence's text (the orchestrator's per-request state): pushed chunk by chunk,
// whatever the chunking, the deltas concatenate to the text of the whole sequence, including
// characters split across tokens, Llama/Mistral word-start spaces and stop sequences split
// across tokens; the earliest stop sequence ends the text and reports that the model can stop.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "../src/stream_text.h"
#include "triton_studio/tokenizer.h"

using triton_studio::steps::StreamText;
using triton_studio::tok::Tokenizer;

namespace {
const Tokenizer& Load(const std::string& name) {
  static std::map<std::string, std::unique_ptr<Tokenizer>> cache;
  auto& t = cache[name];
  if (!t) t = Tokenizer::FromFile(std::string(TS_TEST_TOKENIZERS_DIR) + "/" + name + "/tokenizer.json");
  return *t;
}

struct Streamed {
  std::vector<std::string> deltas;
  std::string text;
  bool stopped = false;
  size_t ids_pushed = 0;
};

// Pushes `ids` in chunks of `chunk` ids, stopping early (as the orchestrator cancels the model).
Streamed Stream(const Tokenizer& tok, const std::vector<uint32_t>& ids, size_t chunk,
                std::vector<std::string> stops = {}) {
  StreamText s(tok, true, std::move(stops));
  Streamed out;
  for (size_t i = 0; i < ids.size() && !s.stopped(); i += chunk) {
    std::vector<uint32_t> part(ids.begin() + i, ids.begin() + std::min(ids.size(), i + chunk));
    out.deltas.push_back(s.Push(part));
    out.ids_pushed = std::min(ids.size(), i + chunk);
  }
  out.deltas.push_back(s.Finish());
  for (const auto& d : out.deltas) out.text += d;
  out.stopped = s.stopped();
  return out;
}

const char* kText = "Hello world, caf\xC3\xA9 \xF0\x9F\x98\x80 end. Stop here please";
}  // namespace

TEST(StreamText, EveryChunkingGivesTheWholeDecode) {
  for (const char* name : {"gpt2", "llama-2", "mistral-7b"}) {
    const Tokenizer& tok = Load(name);
    const std::vector<uint32_t> ids = tok.Encode(kText, false);
    const std::string whole = tok.Decode(ids, true);
    for (size_t chunk : {1u, 2u, 3u, 7u, 1000u}) {
      EXPECT_EQ(Stream(tok, ids, chunk).text, whole) << name << " chunk " << chunk;
    }
  }
}

// True when `s` is whole UTF-8 characters (no lead byte without its continuation bytes).
bool WholeUtf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 2) return false;
    }
    i += n;
  }
  return true;
}

TEST(StreamText, NoDeltaEndsInsideAMultiByteCharacter) {
  const Tokenizer& tok = Load("llama-2");  // byte-fallback tokens: each emoji is four byte tokens
  const std::string text = "a\xF0\x9F\x98\x80 b\xF0\x9F\x98\x80\xC3\xA9";
  const Streamed s = Stream(tok, tok.Encode(text, false), 1);
  EXPECT_EQ(s.text, text);
  size_t non_empty = 0;
  for (const auto& d : s.deltas) {
    EXPECT_TRUE(WholeUtf8(d)) << "a delta of " << d.size() << " bytes splits a character";
    non_empty += d.empty() ? 0 : 1;
  }
  EXPECT_GE(non_empty, 3u);  // streamed, not held back to the end
}

TEST(StreamText, AStopSequenceSplitAcrossTokensEndsTheTextBeforeIt) {
  for (const char* name : {"gpt2", "llama-2"}) {
    const Tokenizer& tok = Load(name);
    const std::vector<uint32_t> ids = tok.Encode(kText, false);
    for (size_t chunk : {1u, 2u, 5u, 1000u}) {
      const Streamed s = Stream(tok, ids, chunk, {"Stop h", "never"});
      EXPECT_TRUE(s.stopped) << name;
      EXPECT_EQ(s.text, "Hello world, caf\xC3\xA9 \xF0\x9F\x98\x80 end. ") << name << " chunk " << chunk;
      if (chunk == 1) {
        EXPECT_LT(s.ids_pushed, ids.size()) << "the stream stops before the model's last token";
      }
    }
  }
}

TEST(StreamText, TheEarliestOfSeveralStopSequencesWins) {
  const Tokenizer& tok = Load("gpt2");
  const Streamed s = Stream(tok, tok.Encode("one two three four", false), 1, {"four", "two"});
  EXPECT_EQ(s.text, "one ");
}

TEST(StreamText, HeldBackTextThatDoesNotStartAStopSequenceIsReleased) {
  const Tokenizer& tok = Load("gpt2");
  // "St" may begin "Stop"; it is held back, then released once "Sta" rules the stop out, and at
  // the end of the sequence whatever is still held back goes out.
  const Streamed s = Stream(tok, tok.Encode("Start St", false), 1, {"Stop"});
  EXPECT_FALSE(s.stopped);
  EXPECT_EQ(s.text, "Start St");
  EXPECT_EQ(s.deltas.back(), "St");
}

TEST(StreamText, EmptyStopSequencesAreIgnored) {
  const Tokenizer& tok = Load("gpt2");
  EXPECT_EQ(Stream(tok, tok.Encode("abc", false), 1, {""}).text, "abc");
}

TEST(StreamText, TheChunkHookSeesEveryDeltaWithItsSequenceState) {
  const Tokenizer& tok = Load("gpt2");
  int calls = 0;
  StreamText s(
      tok, true, {"!"},
      [](void* state, const std::string& text) {
        ++*static_cast<int*>(state);
        std::string upper = text;
        for (char& c : upper) c = static_cast<char>(toupper(static_cast<unsigned char>(c)));
        return upper;
      },
      &calls);
  std::string text;
  for (uint32_t id : tok.Encode("shout this! not this", false)) text += s.Push({id});
  text += s.Finish();
  EXPECT_EQ(text, "SHOUT THIS");
  EXPECT_GE(calls, 2);
}

// The stop-sequence hook's shape: on-chunk holds back a tail that may start "##", the end hook
// flushes it — at the end of the sequence, and also when the step's own stop sequence ends it.
struct HoldBack {
  std::string pending;
};
std::string HoldBackChunk(void* state, const std::string& text) {
  auto* s = static_cast<HoldBack*>(state);
  std::string all = s->pending + text;
  size_t keep = !all.empty() && all.back() == '#' ? 1 : 0;
  s->pending = all.substr(all.size() - keep);
  return all.substr(0, all.size() - keep);
}
std::string HoldBackEnd(void* state) {
  auto* s = static_cast<HoldBack*>(state);
  std::string rest = s->pending;
  s->pending.clear();
  return rest;
}

TEST(StreamText, TheEndHookFlushesWhatTheChunkHookHeldBackOnce) {
  const Tokenizer& tok = Load("gpt2");
  for (const char* text : {"a b #", "x # y #"}) {
    HoldBack state;
    StreamText s(tok, true, {}, HoldBackChunk, &state, HoldBackEnd);
    std::string out;
    for (uint32_t id : tok.Encode(text, false)) out += s.Push({id});
    EXPECT_EQ(state.pending, "#") << "held back until the end";
    out += s.Finish();
    out += s.Finish();  // a second Finish adds nothing
    EXPECT_EQ(out, text);
  }
}

TEST(StreamText, AStopSequenceEndsTheStreamAndRunsTheEndHook) {
  const Tokenizer& tok = Load("gpt2");
  HoldBack state;
  StreamText s(tok, true, {"STOP"}, HoldBackChunk, &state, HoldBackEnd);
  std::string out;
  for (uint32_t id : tok.Encode("keep #STOP drop", false)) out += s.Push({id});
  EXPECT_TRUE(s.stopped());
  EXPECT_EQ(out, "keep #");
  EXPECT_EQ(s.Finish(), "");
}
