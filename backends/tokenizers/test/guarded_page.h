// A mapped page followed by one that faults when read, for the tests of reads past a text's end
// (past_end_reads.h): a text at the page's start is read in place with chosen bytes behind it, one
// ending at the page's end is copied, and a read past it would fault.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>
#include <string_view>

namespace triton_studio::tok::testing {

class GuardedPage {
 public:
  GuardedPage() : size_(static_cast<size_t>(sysconf(_SC_PAGESIZE))) {
    void* p = mmap(nullptr, 2 * size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("mmap failed");
    base_ = static_cast<char*>(p);
    if (mprotect(base_ + size_, size_, PROT_NONE) != 0) throw std::runtime_error("mprotect failed");
  }
  ~GuardedPage() { munmap(base_, 2 * size_); }
  GuardedPage(const GuardedPage&) = delete;
  GuardedPage& operator=(const GuardedPage&) = delete;

  // `text` at the page's start, `after` repeated behind it to the page's end.
  std::string_view AtStart(std::string_view text, char after) {
    std::memset(base_, after, size_);
    std::memcpy(base_, text.data(), text.size());
    return {base_, text.size()};
  }
  // `text` ending at the page's end.
  std::string_view AtEnd(std::string_view text) {
    char* at = base_ + size_ - text.size();
    std::memcpy(at, text.data(), text.size());
    return {at, text.size()};
  }

 private:
  size_t size_;
  char* base_ = nullptr;
};

// Every kind of byte the blocks tell apart, as what follows a text.
inline constexpr char kBytesAfter[] = {'a', 'Z',  '7',  ' ',    '\n',   '\r',   '\'', '.',
                                       '/', '\x01', '\x7F', '\x80', '\xC3', '\xFF', '\0'};

}  // namespace triton_studio::tok::testing
