/**
 * What the C++ function counter of the 80-line rule sees as a function and how long it is:
 * free functions, methods defined in and out of their class, constructors with initializer
 * lists, trailing return types; never control blocks, lambdas inside functions, namespaces,
 * classes or aggregate initializers; braces in comments, strings, raw strings, character literals
 * and macros do not count.
 */
import { describe, expect, it } from 'vitest';
import { blankCppNoise, cppFunctionSpans } from './cpp-function-spans';

const spans = (text: string): Record<string, number> => Object.fromEntries(cppFunctionSpans(text));

describe('cppFunctionSpans', () => {
  it('measures a free function from its head to its closing brace', () => {
    const text = ['namespace a {', '', 'int Add(int x,', '        int y) {', '  return x + y;', '}', '', '}'];
    expect(spans(text.join('\n'))).toEqual({ Add: 4 });
  });

  it('names out-of-class methods by their qualified name, and counts constructors and operators', () => {
    const text = `
Runtime::Runtime(const Options& o, std::string& out) : options_(o), out_(&out) {
  frames_.reserve(16);
}
Value Runtime::Eval(const Expr& e) const {
  return Value();
}
bool Value::operator==(const Value& o) const noexcept { return same(o); }
auto Runtime::Line() const -> int {
  return line_;
}`;
    expect(spans(text)).toEqual({
      'Runtime::Runtime': 3,
      'Runtime::Eval': 3,
      'Value::operator==': 1,
      'Runtime::Line': 3,
    });
  });

  it('counts methods defined inside a class, past access labels, and not the class itself', () => {
    const text = `class Parser {
 public:
  explicit Parser(int n) : n_(n) {}
  int Next() {
    return ++n_;
  }

 private:
  struct Guard {
    ~Guard() { --depth; }
  };
  int n_;
};`;
    expect(spans(text)).toEqual({ Parser: 1, Next: 3, '~Guard': 1 });
  });

  it('keeps control blocks and lambdas inside the function that holds them', () => {
    const text = `void Run(const std::vector<int>& v) {
  auto bind = [&](int x) {
    if (x > 0) {
      for (int i = 0; i < x; ++i) {
        Use(i);
      }
    }
  };
  for (int x : v) bind(x);
}`;
    expect(spans(text)).toEqual({ Run: 10 });
  });

  it('does not take tables, enums or namespaces for functions', () => {
    const text = `namespace {
enum class Tok { Name, Op };
const Row kRows[] = {
    {"abs", Abs},
    {"attr", Attr},
};
}  // namespace`;
    expect(spans(text)).toEqual({});
  });

  it('ignores braces and parentheses in comments, literals and preprocessor lines', () => {
    const text = `#define OPEN(x) {
#define MULTI(a) \\
  }
// void NotAFunction() {
/* int Neither() { */
int Real() {
  const char* s = "} {)";
  const char* raw = R"json({"a": "}"})json";
  char c = '}';
  char q = '\\'';
  int n = 1'000'000;
  return 0;
}`;
    expect(spans(text)).toEqual({ Real: 8 });
  });

  it('blanks noise to spaces without moving a line', () => {
    const text = 'int a; // {\n/* {\n} */ int b = "{";\n';
    const blanked = blankCppNoise(text);
    expect(blanked.split('\n').length).toBe(text.split('\n').length);
    expect(blanked).not.toMatch(/[{}]/);
    expect(blanked).toContain('int a;');
    expect(blanked).toContain('int b = " ";');
  });
});
