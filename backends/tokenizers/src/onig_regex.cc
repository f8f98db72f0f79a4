// Oniguruma regexes compiled and searched the way HF's onig crate does (see onig_regex.h).
#include "onig_regex.h"

#include <oniguruma.h>

#include <mutex>

#include "triton_studio/tokenizer.h"
#include "utf8.h"

namespace triton_studio::tok {
namespace {

// Oniguruma's initialization and compilation share global state (the onig crate serializes
// onig_new with a mutex for the same reason); searching a compiled regex is thread-safe.
std::mutex& CompileMutex() {
  static std::mutex m;
  return m;
}

std::string ErrorText(int code, const OnigErrorInfo* info) {
  OnigUChar buf[ONIG_MAX_ERROR_MESSAGE_LEN];
  if (info != nullptr) {
    onig_error_code_to_str(buf, code, info);
  } else {
    onig_error_code_to_str(buf, code);
  }
  return reinterpret_cast<const char*>(buf);
}

// Per-thread search scratch: the match region and the limits, set up once per thread.
struct SearchScratch {
  OnigRegion* region = onig_region_new();
  OnigMatchParam* param = onig_new_match_param();
  SearchScratch() {
    onig_initialize_match_param(param);
    onig_set_retry_limit_in_match_of_match_param(param, OnigRegex::kRetryLimitInMatch);
    onig_set_retry_limit_in_search_of_match_param(param, OnigRegex::kRetryLimitInSearch);
    onig_set_match_stack_limit_size_of_match_param(param, OnigRegex::kStackLimit);
  }
  ~SearchScratch() {
    onig_region_free(region, 1);
    onig_free_match_param(param);
  }
  SearchScratch(const SearchScratch&) = delete;
  SearchScratch& operator=(const SearchScratch&) = delete;
};

}  // namespace

OnigRegex::OnigRegex(const std::string& pattern, const std::string& path) : pattern_(pattern), path_(path) {
  const auto* begin = reinterpret_cast<const OnigUChar*>(pattern.data());
  OnigErrorInfo info{};
  OnigEncoding encodings[] = {ONIG_ENCODING_UTF8};
  regex_t* compiled = nullptr;
  int rc;
  {
    std::lock_guard<std::mutex> lock(CompileMutex());
    static const int init = onig_initialize(encodings, 1);
    (void)init;
    // As the onig crate's Regex::new: no options, the library's default syntax (Ruby's).
    rc = onig_new(&compiled, begin, begin + pattern.size(), ONIG_OPTION_NONE, ONIG_ENCODING_UTF8,
                  ONIG_SYNTAX_DEFAULT, &info);
  }
  if (rc != ONIG_NORMAL) {
    throw TokenizerError("tokenizer.json: " + path + ": invalid regex " + pattern + ": " + ErrorText(rc, &info));
  }
  regex_ = compiled;
}

OnigRegex::~OnigRegex() {
  if (regex_ != nullptr) onig_free(static_cast<regex_t*>(regex_));
}

void OnigRegex::FindMatches(std::string_view text, std::vector<Range>& matches) const {
  thread_local SearchScratch scratch;
  auto* regex = static_cast<regex_t*>(regex_);
  const auto* str = reinterpret_cast<const OnigUChar*>(text.data());
  const OnigUChar* end = str + text.size();
  size_t last_end = 0;
  bool have_last = false;
  size_t last_match_end = 0;
  while (last_end <= text.size()) {
    const int rc = onig_search_with_param(regex, str, end, str + last_end, end, scratch.region, ONIG_OPTION_NONE,
                                          scratch.param);
    if (rc == ONIG_MISMATCH) break;
    if (rc < 0) ThrowSearchError(rc, text.size());
    const auto s = static_cast<size_t>(scratch.region->beg[0]);
    const auto e = static_cast<size_t>(scratch.region->end[0]);
    if (s == e && have_last && last_match_end == e) {
      // An empty match where the last one ended: move one character on (past the end: stop).
      last_end += last_end < text.size() ? utf8::ValidSequenceLength(text, last_end) : 1;
      continue;
    }
    last_end = e;
    last_match_end = e;
    have_last = true;
    matches.emplace_back(static_cast<uint32_t>(s), static_cast<uint32_t>(e));
  }
}

void OnigRegex::ThrowSearchError(int code, size_t text_size) const {
  std::string why = ErrorText(code, nullptr);
  if (code == ONIGERR_RETRY_LIMIT_IN_MATCH_OVER || code == ONIGERR_RETRY_LIMIT_IN_SEARCH_OVER ||
      code == ONIGERR_MATCH_STACK_LIMIT_OVER) {
    why = "the regex backtracks too much on this input (" + why +
          "): the pattern has nested or overlapping repetitions; rewrite it without them, or split the input";
  }
  throw TokenizerError("Encode: " + path_ + " regex " + pattern_ + " failed on a " + std::to_string(text_size) +
                       "-byte piece: " + why);
}

const char* OnigRegex::EngineVersion() { return onig_version(); }

}  // namespace triton_studio::tok
