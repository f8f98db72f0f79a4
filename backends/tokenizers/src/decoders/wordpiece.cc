// HF's WordPiece decoder and its cleanup (BERT's spacing undone), which CTC shares.
#include "decoders/stages.h"

#include "component_table.h"

namespace triton_studio::tok::decoders {
namespace {

// WordPiece: continuation tokens lose their prefix, others gain a leading space (except the
// first), and `cleanup` undoes BERT's spacing around punctuation within each token.
class WordPieceStage final : public TokenLocalStage {
 public:
  WordPieceStage(std::string prefix, bool cleanup) : prefix_(std::move(prefix)), cleanup_(cleanup) {}
  bool FirstDiffers() const override { return true; }
  std::string MapToken(std::string_view token, bool first) const override {
    std::string t;
    if (first) {
      t = token;
    } else if (token.compare(0, prefix_.size(), prefix_) == 0) {
      t = token.substr(prefix_.size());
    } else {
      t = " ";
      t.append(token);
    }
    return cleanup_ ? WordPieceCleanup(t) : t;
  }

 private:
  std::string prefix_;
  bool cleanup_;
};

}  // namespace

// HF's wordpiece::cleanup: BERT's spacing around punctuation and English contractions undone.
std::string WordPieceCleanup(std::string cur) {
  static const std::pair<const char*, const char*> kRules[] = {
      {" .", "."},   {" ?", "?"},   {" !", "!"},         {" ,", ","},   {" ' ", "'"},  {" n't", "n't"},
      {" 'm", "'m"}, {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
  std::string next;
  for (const auto& [from, to] : kRules) {
    if (cur.find(from) == std::string::npos) continue;
    next.clear();
    ReplaceAll(cur, from, to, next);
    cur.swap(next);
  }
  return cur;
}

void BuildWordPiece(const Json& node, const std::string& path, bool& fused, Stages& stages) {
  AllowOnlyKeys(node, path, {"prefix", "cleanup"});
  RequireTokens(fused, path, "WordPiece");
  const std::string prefix_default = "##";
  stages.push_back(std::make_unique<WordPieceStage>(GetString(node, "prefix", path, &prefix_default),
                                                    GetBool(node, "cleanup", path, true)));
}

}  // namespace triton_studio::tok::decoders
