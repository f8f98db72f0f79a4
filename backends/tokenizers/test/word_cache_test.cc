// WordCache, the word -> ids memo every BPE, WordPiece and Unigram encode goes through: whatever
// it serves must equal computing each word again, for every length of word (the 16 bytes kept in
// a slot, the rest in an arena), every number of ids (two inline, a few copied in the hot loop,
// more out of line), words near the end of their text (read in place or from a padded copy),
// across the table's growth and its capacity.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "guarded_page.h"
#include "word_cache.h"

namespace triton_studio::tok {
namespace {

using Ranges = std::vector<std::pair<uint32_t, uint32_t>>;

// A stand-in model: a word's ids follow from its bytes, and their number from its last byte.
std::vector<uint32_t> IdsOf(std::string_view word) {
  std::vector<uint32_t> ids;
  uint32_t h = 2166136261u;
  for (char c : word) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  const size_t count = word.empty() ? 0 : 1 + static_cast<unsigned char>(word.back()) % 13;
  for (size_t i = 0; i < count; ++i) ids.push_back(h + static_cast<uint32_t>(i));
  return ids;
}

// Cuts `text` into consecutive words of the given sizes.
Ranges Cut(const std::vector<size_t>& sizes) {
  Ranges ranges;
  uint32_t at = 0;
  for (size_t n : sizes) {
    ranges.emplace_back(at, at + static_cast<uint32_t>(n));
    at += static_cast<uint32_t>(n);
  }
  return ranges;
}

std::vector<uint32_t> Expected(std::string_view text, const Ranges& ranges) {
  std::vector<uint32_t> ids;
  for (const auto& [b, e] : ranges) {
    const auto w = IdsOf(text.substr(b, e - b));
    ids.insert(ids.end(), w.begin(), w.end());
  }
  return ids;
}

struct Counted {
  size_t calls = 0;
  void operator()(std::string_view word, std::vector<uint32_t>& ids) {
    ++calls;
    const auto w = IdsOf(word);
    ids.insert(ids.end(), w.begin(), w.end());
  }
};

// A text of `words` words of 1..40 bytes whose first 20 bytes are often shared: words that differ
// only past the 16 bytes a slot keeps.
std::pair<std::string, Ranges> Words(size_t words, uint32_t seed) {
  std::string text;
  std::vector<size_t> sizes;
  for (size_t i = 0; i < words; ++i) {
    seed = seed * 1103515245u + 12345u;
    const size_t n = 1 + (seed >> 8) % 40;
    std::string w = std::string("abcdefghijklmnopqrst").substr(0, std::min<size_t>(n, (seed >> 4) % 2 ? 20 : 3));
    while (w.size() < n) w += static_cast<char>('a' + (seed >> (w.size() % 24)) % 26);
    text += w;
    sizes.push_back(n);
  }
  return {text, Cut(sizes)};
}

TEST(WordCache, ServesWhatComputingEveryWordGives) {
  WordCache cache(100000);
  const auto [text, ranges] = Words(5000, 7);
  for (int pass = 0; pass < 2; ++pass) {  // the first pass computes and fills, the second is served
    std::vector<uint32_t> out;
    Counted compute;
    cache.TokenizeAll(text, ranges, out, compute);
    EXPECT_EQ(out, Expected(text, ranges)) << "pass " << pass;
    if (pass == 1) {
      EXPECT_EQ(compute.calls, 0u) << "every word was cached in the first pass";
    }
  }
}

TEST(WordCache, ComputesEachDistinctWordOnce) {
  WordCache cache(100000);
  const std::string text = "the cat the cat the";
  const Ranges ranges = Cut({3, 4, 4, 4, 4});  // "the", " cat", " the", " cat", " the"
  std::vector<uint32_t> out;
  Counted compute;
  cache.TokenizeAll(text, ranges, out, compute);
  EXPECT_EQ(out, Expected(text, ranges));
  EXPECT_EQ(compute.calls, 3u) << "\"the\", \" cat\" and \" the\" are three words";
}

TEST(WordCache, TellsApartWordsThatDifferOnlyAfterSixteenBytes) {
  WordCache cache(100000);
  const std::string a = "abcdefghijklmnopQ", b = "abcdefghijklmnopR", c = "abcdefghijklmnop";
  const std::string text = a + b + c + a + b + c;
  const Ranges ranges = Cut({17, 17, 16, 17, 17, 16});
  std::vector<uint32_t> out;
  Counted compute;
  cache.TokenizeAll(text, ranges, out, compute);
  EXPECT_EQ(out, Expected(text, ranges));
  EXPECT_EQ(compute.calls, 3u);
}

TEST(WordCache, AppendsAfterWhatOutHoldsAndSkipsEmptyWords) {
  WordCache cache(100000);
  const std::string text = "ab";
  const Ranges ranges = {{0, 0}, {0, 1}, {1, 1}, {1, 2}, {2, 2}};
  std::vector<uint32_t> out = {7, 8};
  Counted compute;
  cache.TokenizeAll(text, ranges, out, compute);
  std::vector<uint32_t> want = {7, 8};
  for (std::string_view w : {"a", "b"}) {
    const auto ids = IdsOf(w);
    want.insert(want.end(), ids.begin(), ids.end());
  }
  EXPECT_EQ(out, want);
  EXPECT_EQ(compute.calls, 2u) << "an empty word is never computed";
}

TEST(WordCache, ReadsWordsAtTheEndOfShortAndLongTexts) {
  // Texts of 1..40 bytes cut into two words at every place: the last word's key is read from the
  // text's last 16 bytes (or a copy, under 16), never past its end.
  WordCache cache(100000);
  for (size_t size = 1; size <= 40; ++size) {
    std::string text;
    for (size_t i = 0; i < size; ++i) text += static_cast<char>('A' + (i * 7 + size) % 50);
    for (size_t cut = 0; cut <= size; ++cut) {
      const Ranges ranges = {{0, static_cast<uint32_t>(cut)}, {static_cast<uint32_t>(cut), static_cast<uint32_t>(size)}};
      std::vector<uint32_t> out;
      Counted compute;
      // A copy on the heap, exactly as long as the text, so that reading past it is caught by ASan.
      const std::string exact(text);
      cache.TokenizeAll(exact, ranges, out, compute);
      ASSERT_EQ(out, Expected(text, ranges)) << size << " bytes cut at " << cut;
    }
  }
}

TEST(WordCache, KeysAWordAlikeInPlaceAndNearTheTextsEnd) {
  // The first "alpha" is read where it lies, the last from the copy of the text's last 16 bytes:
  // one key, so it is computed once and served the second time.
  WordCache cache(100);
  const std::string text = "alpha-beta-gamma-delta-alpha";
  const Ranges ranges = {{0, 5}, {5, 11}, {11, 17}, {17, 23}, {23, 28}};
  std::vector<uint32_t> out;
  Counted compute;
  cache.TokenizeAll(text, ranges, out, compute);
  EXPECT_EQ(out, Expected(text, ranges));
  EXPECT_EQ(compute.calls, 4u);
}

TEST(WordCache, KeysAWordAlikeWhateverFollowsTheText) {
  // A short text is keyed in place where the bytes after it lie in its page, else from a copy
  // (past_end_reads.h): every "alpha" has one key, whatever follows, so it is computed once.
  testing::GuardedPage page;
  WordCache cache(100);
  const std::string text = "alpha alpha";
  const Ranges ranges = {{0, 5}, {6, 11}};
  Counted compute;
  for (const char after : testing::kBytesAfter) {
    std::vector<uint32_t> out;
    cache.TokenizeAll(page.AtStart(text, after), ranges, out, compute);
    EXPECT_EQ(out, Expected(text, ranges)) << int(after);
  }
  std::vector<uint32_t> out;
  cache.TokenizeAll(page.AtEnd(text), ranges, out, compute);
  EXPECT_EQ(out, Expected(text, ranges));
  EXPECT_EQ(compute.calls, 1u);
}

TEST(WordCache, StaysRightAsTheTableGrowsWithinOneSpan) {
  // More distinct words in one span than the first table holds: inserts grow it mid-span.
  WordCache cache(100000);
  const auto [text, ranges] = Words(3 * WordCache::kFirstSlots, 11);
  std::vector<uint32_t> out;
  Counted compute;
  cache.TokenizeAll(text, ranges, out, compute);
  EXPECT_EQ(out, Expected(text, ranges));
  out.clear();
  cache.TokenizeAll(text, ranges, out, compute);
  EXPECT_EQ(out, Expected(text, ranges));
}

TEST(WordCache, WordsPastItsCapacityAreComputedEachTime) {
  WordCache cache(10);
  const auto [text, ranges] = Words(200, 3);
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<uint32_t> out;
    Counted compute;
    cache.TokenizeAll(text, ranges, out, compute);
    EXPECT_EQ(out, Expected(text, ranges));
    if (pass == 1) {
      EXPECT_GT(compute.calls, 100u);
    }
  }
}

TEST(WordCache, KeepsABoundedRunOfWordsWhoseHashesCollide) {
  // Words that all pick the same first slot, found by trying words as anyone sending text could:
  // the cache keeps the first kMaxProbes and computes the others each time, so that a word's
  // search never walks through all of them. Every word still gets its own ids.
  WordCache cache(100000);
  std::string text;
  std::vector<size_t> sizes;
  for (uint32_t seed = 0; sizes.size() < 4 * WordCache::kMaxProbes; ++seed) {
    const std::string word = "w" + std::to_string(seed);
    if ((WordCache::KeyOf(word).hash & (WordCache::kFirstSlots - 1)) != 0) continue;
    text += word;
    sizes.push_back(word.size());
  }
  const Ranges ranges = Cut(sizes);
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<uint32_t> out;
    Counted compute;
    cache.TokenizeAll(text, ranges, out, compute);
    EXPECT_EQ(out, Expected(text, ranges)) << "pass " << pass;
    if (pass == 1) {
      EXPECT_EQ(compute.calls, sizes.size() - WordCache::kMaxProbes) << "the words past the bound are computed again";
    }
  }
  EXPECT_EQ(cache.size(), WordCache::kMaxProbes);
  for (const auto& [b, e] : ranges) {
    const std::string_view word = std::string_view(text).substr(b, e - b);
    std::vector<uint32_t> ids;
    if (cache.Find(word, WordCache::KeyOf(word), ids)) {
      EXPECT_EQ(ids, IdsOf(word)) << word;
    }
  }
}

TEST(WordCache, FindServesWhatTokenizeAllInserted) {
  WordCache cache(100000);
  const auto [text, ranges] = Words(300, 5);
  std::vector<uint32_t> out;
  Counted compute;
  cache.TokenizeAll(text, ranges, out, compute);
  for (const auto& [b, e] : ranges) {
    const std::string_view word = std::string_view(text).substr(b, e - b);
    std::vector<uint32_t> ids;
    ASSERT_TRUE(cache.Find(word, WordCache::KeyOf(word), ids)) << word;
    EXPECT_EQ(ids, IdsOf(word)) << word;
  }
  std::vector<uint32_t> none;
  EXPECT_FALSE(cache.Find("zzz-not-a-word", WordCache::KeyOf("zzz-not-a-word"), none));
  EXPECT_TRUE(none.empty());
}

}  // namespace
}  // namespace triton_studio::tok
