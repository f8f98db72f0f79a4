// Decoders: turn the token strings of a decode back into text, mirroring HF's decoders. Every
// stage works incrementally (tokens arrive one at a time, text leaves as soon as no later token
// can change it), and a full decode is the same machinery fed all tokens at once, so streaming
// and full decoding agree by construction.
//
// Speed: the leading stages that map each token on its own (ByteLevel's character -> byte map,
// an unfused Replace/Strip, Metaspace, WordPiece, ...) are run once per vocabulary id when the
// tokenizer loads; a decode starts from those precomputed pieces, and pieces travel between the
// remaining stages as views, so most tokens cost a table lookup and a copy.
#pragma once

#include <cstdint>
#include <forward_list>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "json_fields.h"

namespace triton_studio::tok {

// Per-stream state of one stage.
struct StageState {
  std::string pending;  // bytes or text held back until later tokens decide them
  uint64_t seen = 0;    // tokens (or leading characters) seen so far
  bool done = false;    // stage-specific flag (e.g. leading strip finished)
};

// DecodedPieces pass between stages as views; a stage that makes new text keeps it in the arena, which
// lives as long as one Push or Finish call.
using DecodedPieces = std::vector<std::string_view>;
class PieceArena {
 public:
  std::string_view Keep(std::string s) { return store_.emplace_front(std::move(s)); }

 private:
  // Nodes never move, so views stay valid; an empty list allocates nothing (most calls keep
  // nothing or one string).
  std::forward_list<std::string> store_;
};

class DecoderStage {
 public:
  virtual ~DecoderStage() = default;
  // `in` holds tokens, or (after a fusing stage) consecutive chunks of one string. Appends the
  // pieces that became final to `out` (empty on entry); may take `in`'s contents.
  virtual void Push(StageState& st, DecodedPieces& in, DecodedPieces& out, PieceArena& arena) const = 0;
  virtual void Finish(StageState& st, DecodedPieces& out, PieceArena& arena) const {
    (void)st;
    (void)out;
    (void)arena;
  }
};

// A stage that maps every token by itself, one piece out per token in, knowing only whether it
// is the stream's first token: its results can be computed once per vocabulary id.
class TokenLocalStage : public DecoderStage {
 public:
  virtual std::string MapToken(std::string_view token, bool first) const = 0;
  // Whether MapToken depends on `first` at all.
  virtual bool FirstDiffers() const { return false; }
  void Push(StageState& st, DecodedPieces& in, DecodedPieces& out, PieceArena& arena) const final {
    for (std::string_view token : in) out.push_back(arena.Keep(MapToken(token, st.seen++ == 0)));
  }
};

class DecoderChain {
 public:
  struct State {
    std::vector<StageState> stages;  // of the stages after the precomputed ones
    uint64_t tokens = 0;             // tokens pushed so far
  };

  // `node` may be null: HF then joins tokens with spaces.
  static DecoderChain Make(const Json* node, const std::string& path);

  // Runs the leading token-local stages over the token of every id below `id_limit` once.
  // `token_of` gives an id's token string, or nullptr for an id with none.
  void Precompute(uint32_t id_limit, const std::function<const std::string*(uint32_t)>& token_of);

  State NewState() const { return State{std::vector<StageState>(stages_.size() - local_), 0}; }
  // Feeds ids (each with a token, already filtered for skipped special tokens); appends the text
  // that became final.
  void Push(State& st, const uint32_t* ids, size_t n, std::string& text) const;
  void Finish(State& st, std::string& text) const;

 private:
  struct Entry {
    uint32_t first_offset, first_size;  // the piece when the id is the stream's first token
    uint32_t offset, size;              // the piece otherwise
  };
  std::string_view Piece(uint32_t id, bool first) const {
    const Entry& e = table_[id];
    return first ? std::string_view(pieces_).substr(e.first_offset, e.first_size)
                 : std::string_view(pieces_).substr(e.offset, e.size);
  }
  // Runs the stages from `stage` on over the thread's piece list; appends the final text.
  void RunFrom(size_t stage, State& st, bool finish, std::string& text) const;

  std::vector<std::unique_ptr<DecoderStage>> stages_;
  size_t local_ = 0;  // leading stages that are token-local (precomputed)
  std::vector<Entry> table_;
  std::string pieces_;  // every precomputed piece, back to back
};

}  // namespace triton_studio::tok
