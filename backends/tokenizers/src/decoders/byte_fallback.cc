// HF's ByteFallback decoder (<0xXX> tokens back to bytes) and Fuse, which it absorbs when Fuse
// follows it (every Llama/Mistral file).
#include "decoders/stages.h"

#include "component_table.h"
#include "utf8.h"

namespace triton_studio::tok::decoders {
namespace {

// ByteFallback: runs of <0xXX> tokens become their bytes if those are valid UTF-8, else one U+FFFD
// per byte; so a run is held until a non-byte token (or the end) closes it.
// Followed by Fuse (as in every Llama/Mistral file), it fuses itself: one chunk out per call, with
// no list of per-token pieces in between.
class ByteFallbackStage final : public DecoderStage {
 public:
  void FuseOutput() { fuse_ = true; }

  void Push(StageState& st, DecodedPieces& in, DecodedPieces& out, PieceArena& arena) const override {
    if (fuse_) return PushFused(st, in, out, arena);
    if (st.pending.empty() && std::none_of(in.begin(), in.end(), [](std::string_view t) { return ByteOf(t) >= 0; })) {
      out.swap(in);  // the common case: no byte tokens at all
      return;
    }
    for (std::string_view token : in) {
      const int byte = ByteOf(token);
      if (byte >= 0) {
        st.pending.push_back(static_cast<char>(byte));
        continue;
      }
      Flush(st, out, arena);
      out.push_back(token);
    }
  }
  void Finish(StageState& st, DecodedPieces& out, PieceArena& arena) const override {
    if (!fuse_) return Flush(st, out, arena);
    std::string chunk;
    FlushInto(st, chunk);
    if (!chunk.empty()) out.push_back(arena.Keep(std::move(chunk)));
  }

 private:
  void PushFused(StageState& st, const DecodedPieces& in, DecodedPieces& out, PieceArena& arena) const {
    size_t bound = 0;  // a byte token's 6 characters exceed the 3 bytes of a U+FFFD it may become
    for (std::string_view token : in) bound += token.size();
    std::string chunk;
    chunk.reserve(bound);
    for (std::string_view token : in) {
      const int byte = ByteOf(token);
      if (byte >= 0) {
        st.pending.push_back(static_cast<char>(byte));
      } else {
        FlushInto(st, chunk);
        chunk.append(token);
      }
    }
    if (!chunk.empty()) out.push_back(arena.Keep(std::move(chunk)));
  }

  static int HexDigit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }
  // "<0xHH>" -> HH (Rust's u8::from_str_radix also takes a "+" sign before one digit).
  static int ByteOf(std::string_view t) {
    if (t.size() != 6 || t[0] != '<' || t[1] != '0' || t[2] != 'x' || t[5] != '>') return -1;
    const int hi = HexDigit(t[3]), lo = HexDigit(t[4]);
    if (t[3] == '+' && lo >= 0) return lo;
    if (hi < 0 || lo < 0) return -1;
    return hi * 16 + lo;
  }
  static void FlushInto(StageState& st, std::string& chunk) {
    if (st.pending.empty()) return;
    if (utf8::IsValid(st.pending)) {
      chunk.append(st.pending);
    } else {
      for (size_t i = 0; i < st.pending.size(); ++i) chunk.append(utf8::kReplacementUtf8);
    }
    st.pending.clear();
  }
  static void Flush(StageState& st, DecodedPieces& out, PieceArena& arena) {
    if (st.pending.empty()) return;
    if (utf8::IsValid(st.pending)) {
      out.push_back(arena.Keep(std::move(st.pending)));
    } else {
      out.insert(out.end(), st.pending.size(), utf8::kReplacementUtf8);
    }
    st.pending.clear();
  }

  bool fuse_ = false;
};

// Fuse: one chunk out per call (later stages then work on a few long chunks, not many tokens).
class FuseStage final : public DecoderStage {
 public:
  void Push(StageState&, DecodedPieces& in, DecodedPieces& out, PieceArena& arena) const override {
    if (in.size() <= 1) {
      out.swap(in);
      return;
    }
    std::string joined;
    AppendAll(in, joined);
    out.push_back(arena.Keep(std::move(joined)));
  }
};

}  // namespace

void BuildByteFallback(const Json&, const std::string& path, bool& fused, Stages& stages) {
  RequireTokens(fused, path, "ByteFallback");
  stages.push_back(std::make_unique<ByteFallbackStage>());
}

void BuildFuse(const Json&, const std::string&, bool& fused, Stages& stages) {
  if (auto* byte_fallback =
          stages.empty() ? nullptr : dynamic_cast<ByteFallbackStage*>(stages.back().get())) {
    byte_fallback->FuseOutput();  // the same output, one stage fewer
  } else {
    stages.push_back(std::make_unique<FuseStage>());
  }
  fused = true;
}

}  // namespace triton_studio::tok::decoders
