// The core of the runtime for C++ compiled from TypeScript (generator/tscompile): strings as UTF-16,
// errors as JavaScript names them, UTF-8 <-> UTF-16 as Node converts, and the optional values
// that `??` and `!` read. Every other ts_*.h header builds on it; ts_runtime.h includes them all.

#pragma once

#include <malloc.h>
#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "triton_studio/ts_case_tables.h"

namespace tsrt {

// ---------------------------------------------------------------------------------------------
// Memory. Every value compiled code makes (strings, arrays, maps, objects) is allocated through
// Counted, which keeps this thread's live bytes. A call's memory budget (BudgetScope, below) is
// what the values it made still hold: the growth of the count since the call began, so freed
// temporaries do not count and a call runs on one thread from start to end.

struct Memory {
  long long live = 0;   // bytes this thread's compiled code holds (frees on other threads skew it)
  long long start = 0;  // `live` when the current call began
  long long peak = 0;   // the most `live` has been since then
  double max = 0;       // the call's budget in bytes; 0: none
  bool raising = false; // building the budget's own error allocates too
};

inline Memory& memory() {
  static thread_local Memory m;
  return m;
}

[[noreturn]] inline void throwMemoryBudget(double bytes);

template <class T>
struct Counted {
  using value_type = T;
  Counted() noexcept = default;
  template <class U>
  Counted(const Counted<U>&) noexcept {}
  T* allocate(size_t n) {
    Memory& m = memory();
    const double bytes = static_cast<double>(n) * sizeof(T);
    if (m.max > 0 && !m.raising && static_cast<double>(m.live - m.start) + bytes > m.max) throwMemoryBudget(bytes);
    T* p = std::allocator<T>().allocate(n);
    m.live += static_cast<long long>(n * sizeof(T));
    if (m.live > m.peak) m.peak = m.live;
    return p;
  }
  void deallocate(T* p, size_t n) noexcept {
    memory().live -= static_cast<long long>(n * sizeof(T));
    std::allocator<T>().deallocate(p, n);
  }
  template <class U>
  bool operator==(const Counted<U>&) const noexcept { return true; }
  template <class U>
  bool operator!=(const Counted<U>&) const noexcept { return false; }
};

template <class T>
using Vec = std::vector<T, Counted<T>>;
using Str = std::basic_string<char16_t, std::char_traits<char16_t>, Counted<char16_t>>;

// A shared value (an array's vector, an object) whose control block is counted too.
template <class T, class... A>
inline std::shared_ptr<T> makeShared(A&&... a) {
  return std::allocate_shared<T>(Counted<T>(), std::forward<A>(a)...);
}

}  // namespace tsrt

template <>
struct std::hash<tsrt::Str> {
  size_t operator()(const tsrt::Str& s) const noexcept { return std::hash<std::u16string_view>()(s); }
};

namespace tsrt {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();
// The element argument of array methods takes the array's type (no deduction from a literal).
template <class T>
struct Same {
  using type = T;
};
template <class T>
using Elem = typename Same<T>::type;

// ---------------------------------------------------------------------------------------------
// Errors. `throw new Error(m)` in TS becomes Error{"Error", m}; built-ins throw RangeError /
// TypeError as Node does. The step turns it into a Triton error for that request only.

std::string toUtf8(const Str& s);

struct Error : std::exception {
  Str name;
  Str message;
  std::string text;
  Error(Str n, Str m) : name(std::move(n)), message(std::move(m)) {
    text = toUtf8(name) + ": " + toUtf8(message);
  }
  const char* what() const noexcept override { return text.c_str(); }
};

[[noreturn]] inline void throwError(const Str& message) { throw Error(u"Error", message); }
[[noreturn]] inline void throwRangeError(const Str& message) { throw Error(u"RangeError", message); }
[[noreturn]] inline void throwTypeError(const Str& message) { throw Error(u"TypeError", message); }
// Where Node would go on with `undefined`, compiled code stops the request (docs/HOOKS.md).
[[noreturn]] inline void throwUndefined(const Str& what) {
  throw Error(u"UndefinedValueError", what + u" (Node would continue with undefined)");
}

inline Str ascii(const char* s) { return Str(s, s + std::strlen(s)); }
inline Str ascii(const std::string& s) { return Str(s.begin(), s.end()); }

inline void throwMemoryBudget(double bytes) {
  Memory& m = memory();
  m.raising = true;
  Error e(u"Error", u"the step's memory budget of " + ascii(std::to_string(static_cast<long long>(m.max))) +
                        u" bytes would be exceeded by " + ascii(std::to_string(static_cast<long long>(bytes))) +
                        u" more: the request is stopped (raise budget.memoryMB of this step if it needs more)");
  m.raising = false;
  throw e;
}

// ---------------------------------------------------------------------------------------------
// UTF-8 <-> UTF-16, as Node's Buffer does it: invalid UTF-8 decodes to U+FFFD per maximal
// subpart (WHATWG), lone surrogates encode as U+FFFD.

inline Str fromUtf8(std::string_view in) {
  Str out;
  out.reserve(in.size());
  size_t i = 0, n = in.size();
  while (i < n) {
    unsigned char b = static_cast<unsigned char>(in[i]);
    if (b < 0x80) {
      out.push_back(b);
      ++i;
      continue;
    }
    int need = 0;
    char32_t cp = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (b >= 0xC2 && b <= 0xDF) {
      need = 1;
      cp = b & 0x1F;
    } else if (b >= 0xE0 && b <= 0xEF) {
      need = 2;
      cp = b & 0x0F;
      if (b == 0xE0) lo = 0xA0;
      if (b == 0xED) hi = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
      need = 3;
      cp = b & 0x07;
      if (b == 0xF0) lo = 0x90;
      if (b == 0xF4) hi = 0x8F;
    } else {
      out.push_back(0xFFFD);
      ++i;
      continue;
    }
    size_t j = i + 1;
    bool ok = true;
    for (int k = 0; k < need; ++k, ++j) {
      if (j >= n) {
        ok = false;
        break;
      }
      unsigned char c = static_cast<unsigned char>(in[j]);
      unsigned char l = k == 0 ? lo : 0x80, h = k == 0 ? hi : 0xBF;
      if (c < l || c > h) {
        ok = false;
        break;
      }
      cp = (cp << 6) | (c & 0x3F);
    }
    if (!ok) {
      out.push_back(0xFFFD);
      i = j;  // the maximal subpart is replaced by one U+FFFD
      continue;
    }
    if (cp >= 0x10000) {
      cp -= 0x10000;
      out.push_back(static_cast<char16_t>(0xD800 + (cp >> 10)));
      out.push_back(static_cast<char16_t>(0xDC00 + (cp & 0x3FF)));
    } else {
      out.push_back(static_cast<char16_t>(cp));
    }
    i = j;
  }
  return out;
}

inline void appendUtf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

inline bool isHigh(char16_t c) { return c >= 0xD800 && c <= 0xDBFF; }
inline bool isLow(char16_t c) { return c >= 0xDC00 && c <= 0xDFFF; }

// The code point at i (a lone surrogate stands for itself) and how many units it takes.
inline char32_t codePointAt(const Str& s, size_t i, size_t* units) {
  char16_t c = s[i];
  if (isHigh(c) && i + 1 < s.size() && isLow(s[i + 1])) {
    *units = 2;
    return 0x10000 + ((static_cast<char32_t>(c) - 0xD800) << 10) + (s[i + 1] - 0xDC00);
  }
  *units = 1;
  return c;
}

inline std::string toUtf8(const Str& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t units;
    char32_t cp = codePointAt(s, i, &units);
    if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD;
    appendUtf8(out, cp);
    i += units;
  }
  return out;
}

inline void appendCodePoint(Str& out, char32_t cp) {
  if (cp >= 0x10000) {
    cp -= 0x10000;
    out.push_back(static_cast<char16_t>(0xD800 + (cp >> 10)));
    out.push_back(static_cast<char16_t>(0xDC00 + (cp & 0x3FF)));
  } else {
    out.push_back(static_cast<char16_t>(cp));
  }
}

// `a ?? b` and `a!` on the values JS methods return `undefined` from (pop, find, Map.get…).
template <class T, class F>
inline T coalesce(const std::optional<T>& o, F fallback) {
  return o ? *o : fallback();
}
template <class T>
inline T unwrap(const std::optional<T>& o, const char16_t* what) {
  if (!o) throwUndefined(Str(what) + u" is undefined");
  return *o;
}


// ---------------------------------------------------------------------------------------------
// What one call into compiled code may take. JavaScript's own failure where Node has one: a
// recursion deeper than the thread's stack allows is a RangeError ("Maximum call stack size
// exceeded", checked at every function entry against the stack's end), never a crash of the
// server. And the step's budget (pipeline `budget`, per step): time, checked at every call and
// loop iteration, and memory, what the call's values hold (Counted, above). Going over throws for
// that request only; unwinding frees what the call took.

struct Limits {
  double timeMs;       // 0: no time limit
  double memoryBytes;  // 0: only V8's own limits
};

struct Budget {
  const char* stackEnd = nullptr;  // calls may not go below this address
  bool timed = false;
  std::chrono::steady_clock::time_point deadline{};
  Limits limits{0, 0};
  uint32_t ticks = 0;
};

inline Budget& budget() {
  static thread_local Budget b;
  return b;
}

// The thread's stack minus a margin for the runtime's own calls and for unwinding.
inline const char* stackEnd() {
  constexpr size_t kMargin = 256 * 1024;
  pthread_attr_t attr;
  void* low = nullptr;
  size_t size = 0;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    pthread_attr_getstack(&attr, &low, &size);
    pthread_attr_destroy(&attr);
  }
  char here;
  if (low == nullptr || size <= 2 * kMargin) return &here - 512 * 1024;  // unknown: assume 1 MB left
  return static_cast<const char*>(low) + kMargin;
}

[[noreturn]] inline void throwTimeBudget(double ms) {
  throw Error(u"Error", u"the step's time budget of " + ascii(std::to_string(static_cast<long long>(ms))) +
                            u" ms is spent: the request is stopped (raise budget.timeMs of this step if it needs more)");
}

// Every loop iteration and call: the clock is read every 256th time.
inline void tick() {
  Budget& b = budget();
  if (b.timed && (++b.ticks & 255u) == 0 && std::chrono::steady_clock::now() > b.deadline)
    throwTimeBudget(b.limits.timeMs);
}

// The first statement of every compiled function.
inline void enterCall() {
  Budget& b = budget();
  char here;
  if (b.stackEnd == nullptr) b.stackEnd = stackEnd();
  if (&here < b.stackEnd) throwRangeError(u"Maximum call stack size exceeded");
  tick();
}

// One call from the step into the module: the limits hold from here until it returns.
class BudgetScope {
  static constexpr long long kTrimAfterBytes = 64LL << 20;

 public:
  explicit BudgetScope(Limits limits) : saved_(budget()), savedMemory_(memory()) {
    Memory& m = memory();
    m.start = m.peak = m.live;
    m.max = limits.memoryBytes;
    Budget& b = budget();
    b.limits = limits;
    b.timed = limits.timeMs > 0;
    b.ticks = 0;
    if (b.timed)
      b.deadline = std::chrono::steady_clock::now() +
                   std::chrono::microseconds(static_cast<long long>(limits.timeMs * 1000));
  }
  ~BudgetScope() {
    Budget& b = budget();
    b.limits = saved_.limits;
    b.timed = saved_.timed;
    b.deadline = saved_.deadline;
    Memory& m = memory();
    // A call that held much (and has freed it, or failed and unwound) gives the heap back to the
    // system: freed small blocks would otherwise keep the server's memory at the call's peak.
    if (m.peak - m.start > kTrimAfterBytes) malloc_trim(0);
    m.start = savedMemory_.start;
    m.peak = std::max(savedMemory_.peak, m.peak);
    m.max = savedMemory_.max;
  }
  BudgetScope(const BudgetScope&) = delete;
  BudgetScope& operator=(const BudgetScope&) = delete;

 private:
  Budget saved_;
  Memory savedMemory_;
};

// String concatenation (+ and +=) within V8's string length.
inline Str plus(const Str& a, const Str& b) {
  const double n = static_cast<double>(a.size()) + static_cast<double>(b.size());
  if (n > 536870888.0) throwRangeError(u"Invalid string length");
  return a + b;
}
inline Str& append(Str& a, const Str& b) {
  const double n = static_cast<double>(a.size()) + static_cast<double>(b.size());
  if (n > 536870888.0) throwRangeError(u"Invalid string length");
  return a += b;
}
}  // namespace tsrt
