// dask's npy stack `info` pickle: a strict writer and reader (npy_stack_info.hpp).
#include "io/npy_stack_info.hpp"

#include <cstring>
#include <memory>

#include "core/error.hpp"

namespace ca::io {

namespace {

// ---- writer (protocol 2, as pickle.dumps(..., protocol=2) lays it out, without memo entries) ------

void put_u32(std::string &o, uint32_t v) {
  for (int i = 0; i < 4; ++i) o += char((v >> (8 * i)) & 0xff);
}

void put_str(std::string &o, const std::string &s) {
  o += 'X';  // BINUNICODE
  put_u32(o, uint32_t(s.size()));
  o += s;
}

void put_int(std::string &o, int64_t v) {
  if (v >= 0 && v < 256) {
    o += 'K';
    o += char(v);
  } else if (v >= 0 && v < 65536) {
    o += 'M';
    o += char(v & 0xff);
    o += char(v >> 8);
  } else if (v >= INT32_MIN && v <= INT32_MAX) {
    o += 'J';
    put_u32(o, uint32_t(int32_t(v)));
  } else {  // LONG1: little-endian two's complement, shortest
    std::string b;
    int64_t x = v;
    for (int i = 0; i < 8; ++i) b += char((uint64_t(x) >> (8 * i)) & 0xff);
    while (b.size() > 1) {
      unsigned char last = uint8_t(b.back()), prev = uint8_t(b[b.size() - 2]);
      if ((last == 0 && !(prev & 0x80)) || (last == 0xff && (prev & 0x80))) b.pop_back();
      else break;
    }
    o += '\x8a';
    o += char(b.size());
    o += b;
  }
}

// A tuple of already-pushed items (MARK ... TUPLE, or the short forms).
void open_tuple(std::string &o, size_t n) {
  if (n == 0) o += ')';
  else if (n > 3) o += '(';
}
void close_tuple(std::string &o, size_t n) {
  if (n == 1) o += '\x85';
  else if (n == 2) o += '\x86';
  else if (n == 3) o += '\x87';
  else if (n > 3) o += 't';
}

// numpy.dtype's reduce: dtype(args0, False, True) with state (3, order, None, None, None, elsize, align, flags).
void put_dtype(std::string &o, DType t) {
  std::string ts = dtype_typestr(t);  // "<f8", "|b1", "|S5", "<U8"
  char kind = dtype_kind(t);
  CA_CHECK(kind != 'M' && kind != 'm' && kind != 'V', CA_EUNSUPPORTED, "to_npy_stack: dtype ", dtype_name(t),
           " cannot be written to the info pickle (numeric, bool, S and U dtypes can)");
  o += "cnumpy\ndtype\n";
  put_str(o, ts.substr(1));
  o += '\x89';  // False
  o += '\x88';  // True
  o += '\x87';
  o += 'R';
  o += '(';
  put_int(o, 3);
  put_str(o, ts.substr(0, 1));
  o += "NNN";
  if (kind == 'S') {
    put_int(o, int64_t(dtype_size(t)));
    put_int(o, 1);
    put_int(o, 0);
  } else if (kind == 'U') {
    put_int(o, int64_t(dtype_size(t)));
    put_int(o, 4);
    put_int(o, 8);
  } else {
    put_int(o, -1);
    put_int(o, -1);
    put_int(o, 0);
  }
  o += 't';
  o += 'b';
}

// ---- reader: a pickle machine for plain values and numpy.dtype only ----------------------------------

struct Value;
using VPtr = std::shared_ptr<const Value>;
struct Value {
  enum Kind { None, Bool, Int, Str, Bytes, Tuple, Dict, Global, DTypeCall, Mark } kind = None;
  int64_t i = 0;
  std::string s;                           // Str, Bytes; Global: "module.name"
  std::vector<VPtr> items;                 // Tuple; Dict: k0, v0, k1, v1, ...; DTypeCall: args, state
};

VPtr make(Value::Kind k) {
  auto v = std::make_shared<Value>();
  v->kind = k;
  return v;
}

class Machine {
 public:
  Machine(const std::string &b, const std::string &w) : b_(b), w_(w) {}

  VPtr run() {
    CA_CHECK(b_.size() <= (size_t(1) << 20), CA_EFORMAT, w_, ": ", b_.size(), " bytes, more than an info pickle (1 MiB)");
    while (true) {
      CA_CHECK(pos_ < b_.size(), CA_EFORMAT, w_, ": the pickle ends without a STOP opcode");
      size_t at = pos_;
      unsigned char op = uint8_t(b_[pos_++]);
      switch (op) {
        case 0x80: {  // PROTO
          int p = u8();
          CA_CHECK(p >= 2 && p <= 5, CA_EFORMAT, w_, ": pickle protocol ", p, " (2 to 5 are read)");
          break;
        }
        case 0x95: take(8); break;  // FRAME: the length is not needed
        case '}': {
          auto d = make(Value::Dict);
          push(d);
          break;
        }
        case ')': push(make(Value::Tuple)); break;
        case '(': push(make(Value::Mark)); break;
        case 't': {
          auto t = std::make_shared<Value>();
          t->kind = Value::Tuple;
          t->items = pop_to_mark();
          push(t);
          break;
        }
        case 0x85:
        case 0x86:
        case 0x87: {
          size_t n = op - 0x84;
          auto t = std::make_shared<Value>();
          t->kind = Value::Tuple;
          CA_CHECK(stack_.size() >= n, CA_EFORMAT, w_, ": TUPLE", n, " on a short stack at byte ", at);
          t->items.assign(stack_.end() - long(n), stack_.end());
          for (auto &x : t->items) CA_CHECK(x->kind != Value::Mark, CA_EFORMAT, w_, ": a MARK inside TUPLE", n);
          stack_.resize(stack_.size() - n);
          push(t);
          break;
        }
        case 's':
        case 'u': {
          std::vector<VPtr> kv;
          if (op == 'u') {
            kv = pop_to_mark();
          } else {
            CA_CHECK(stack_.size() >= 3, CA_EFORMAT, w_, ": SETITEM on a short stack");
            kv.assign(stack_.end() - 2, stack_.end());
            stack_.resize(stack_.size() - 2);
          }
          CA_CHECK(kv.size() % 2 == 0, CA_EFORMAT, w_, ": SETITEMS with an odd number of items");
          CA_CHECK(!stack_.empty() && stack_.back()->kind == Value::Dict, CA_EFORMAT, w_,
                   ": SETITEMS on something that is not a dict");
          auto d = std::make_shared<Value>(*stack_.back());
          d->items.insert(d->items.end(), kv.begin(), kv.end());
          stack_.back() = d;
          break;
        }
        case 0x94: memo_.push_back(top()); break;  // MEMOIZE
        case 'q': put_memo(u8()); break;            // BINPUT
        case 'r': put_memo(u32()); break;           // LONG_BINPUT
        case 'h': push(get_memo(u8())); break;      // BINGET
        case 'j': push(get_memo(u32())); break;     // LONG_BINGET
        case 0x8c: push_str(Value::Str, u8()); break;   // SHORT_BINUNICODE
        case 'X': push_str(Value::Str, u32()); break;   // BINUNICODE
        case 'C': push_str(Value::Bytes, u8()); break;  // SHORT_BINBYTES
        case 'B': push_str(Value::Bytes, u32()); break;  // BINBYTES
        case 'K': push_int(u8()); break;
        case 'M': {
          int64_t lo = u8();
          push_int(lo | (int64_t(u8()) << 8));
          break;
        }
        case 'J': push_int(int32_t(u32())); break;
        case 0x8a: {  // LONG1
          size_t n = u8();
          CA_CHECK(n <= 8, CA_EFORMAT, w_, ": an integer of ", n, " bytes");
          const char *p = take(n);
          uint64_t v = 0;
          for (size_t k = 0; k < n; ++k) v |= uint64_t(uint8_t(p[k])) << (8 * k);
          if (n && n < 8 && (uint8_t(p[n - 1]) & 0x80)) v |= ~uint64_t(0) << (8 * n);
          push_int(int64_t(v));
          break;
        }
        case 'N': push(make(Value::None)); break;
        case 0x88:
        case 0x89: {
          auto v = make(Value::Bool);
          const_cast<Value &>(*v).i = op == 0x88;
          push(v);
          break;
        }
        case 'c': {  // GLOBAL "module\nname\n"
          std::string m = line(), n = line();
          push_global(m, n);
          break;
        }
        case 0x93: {  // STACK_GLOBAL
          CA_CHECK(stack_.size() >= 2 && stack_.end()[-1]->kind == Value::Str && stack_.end()[-2]->kind == Value::Str,
                   CA_EFORMAT, w_, ": STACK_GLOBAL without module and name");
          std::string n = stack_.back()->s;
          stack_.pop_back();
          std::string m = stack_.back()->s;
          stack_.pop_back();
          push_global(m, n);
          break;
        }
        case 'R': {  // REDUCE: only numpy.dtype(args)
          CA_CHECK(stack_.size() >= 2, CA_EFORMAT, w_, ": REDUCE on a short stack");
          VPtr args = stack_.back();
          stack_.pop_back();
          CA_CHECK(stack_.back()->kind == Value::Global && args->kind == Value::Tuple, CA_EFORMAT, w_,
                   ": REDUCE of something other than numpy.dtype(...)");
          auto c = std::make_shared<Value>();
          c->kind = Value::DTypeCall;
          c->items = {args, make(Value::None)};
          stack_.back() = c;
          break;
        }
        case 'b': {  // BUILD: the dtype's state
          CA_CHECK(stack_.size() >= 2, CA_EFORMAT, w_, ": BUILD on a short stack");
          VPtr state = stack_.back();
          stack_.pop_back();
          CA_CHECK(stack_.back()->kind == Value::DTypeCall && state->kind == Value::Tuple, CA_EFORMAT, w_,
                   ": BUILD of something other than a numpy.dtype");
          auto c = std::make_shared<Value>(*stack_.back());
          c->items[1] = state;
          stack_.back() = c;
          break;
        }
        case '.': {
          CA_CHECK(stack_.size() == 1, CA_EFORMAT, w_, ": the pickle stops with ", stack_.size(), " values");
          CA_CHECK(pos_ == b_.size(), CA_EFORMAT, w_, ": ", b_.size() - pos_, " bytes after the pickle's STOP");
          return stack_.back();
        }
        default:
          fail(CA_EFORMAT, w_, ": pickle opcode 0x", hex(op), " at byte ", at,
               " is not one an npy stack's info dict uses (refused)");
      }
    }
  }

 private:
  static std::string hex(unsigned v) {
    const char *d = "0123456789abcdef";
    return {d[(v >> 4) & 15], d[v & 15]};
  }
  const char *take(size_t n) {
    CA_CHECK(n <= b_.size() - pos_, CA_EFORMAT, w_, ": the pickle is truncated at byte ", pos_);
    const char *p = b_.data() + pos_;
    pos_ += n;
    return p;
  }
  int u8() { return uint8_t(*take(1)); }
  uint32_t u32() {
    const char *p = take(4);
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t(uint8_t(p[i])) << (8 * i);
    return v;
  }
  std::string line() {
    size_t e = b_.find('\n', pos_);
    CA_CHECK(e != std::string::npos && e - pos_ < 256, CA_EFORMAT, w_, ": a GLOBAL without its newline");
    std::string s = b_.substr(pos_, e - pos_);
    pos_ = e + 1;
    return s;
  }
  void push(VPtr v) {
    CA_CHECK(stack_.size() < 100000, CA_EFORMAT, w_, ": the pickle's stack grows past 100000 values");
    stack_.push_back(std::move(v));
  }
  VPtr top() {
    CA_CHECK(!stack_.empty(), CA_EFORMAT, w_, ": memo of an empty stack");
    return stack_.back();
  }
  void put_memo(size_t i) {
    CA_CHECK(i <= memo_.size() && i < 100000, CA_EFORMAT, w_, ": memo index ", i, " out of order");
    if (i == memo_.size()) memo_.push_back(top());
    else memo_[i] = top();
  }
  VPtr get_memo(size_t i) {
    CA_CHECK(i < memo_.size(), CA_EFORMAT, w_, ": memo index ", i, " was never stored");
    return memo_[i];
  }
  void push_str(Value::Kind k, size_t n) {
    auto v = std::make_shared<Value>();
    v->kind = k;
    v->s.assign(take(n), n);
    push(v);
  }
  void push_int(int64_t x) {
    auto v = std::make_shared<Value>();
    v->kind = Value::Int;
    v->i = x;
    push(v);
  }
  void push_global(const std::string &m, const std::string &n) {
    CA_CHECK(m == "numpy" && n == "dtype", CA_EFORMAT, w_, ": the pickle refers to ", m, ".", n,
             " (only numpy.dtype is accepted)");
    auto v = make(Value::Global);
    push(v);
  }
  std::vector<VPtr> pop_to_mark() {
    size_t k = stack_.size();
    while (k > 0 && stack_[k - 1]->kind != Value::Mark) --k;
    CA_CHECK(k > 0, CA_EFORMAT, w_, ": no MARK for a TUPLE or SETITEMS");
    std::vector<VPtr> out(stack_.begin() + long(k), stack_.end());
    stack_.resize(k - 1);
    return out;
  }

  const std::string &b_;
  const std::string &w_;
  size_t pos_ = 0;
  std::vector<VPtr> stack_, memo_;
};

DType dtype_of_call(const Value &c, const std::string &w) {
  const Value &args = *c.items[0], &state = *c.items[1];
  CA_CHECK(args.items.size() == 3 && args.items[0]->kind == Value::Str, CA_EFORMAT, w,
           ": 'dtype' is numpy.dtype called with other arguments than (typestr, False, True)");
  std::string ts = args.items[0]->s;
  std::string order = "|";
  if (state.kind == Value::Tuple && state.items.size() >= 2 && state.items[1]->kind == Value::Str)
    order = state.items[1]->s;
  CA_CHECK(ts.size() < 32 && order.size() == 1, CA_EFORMAT, w, ": 'dtype' typestr '", ts.substr(0, 32), "'");
  CA_CHECK(ts.find('[') == std::string::npos && ts != "M8" && ts != "m8" && ts[0] != 'V' && ts[0] != 'O',
           CA_EUNSUPPORTED, w, ": dtype '", ts, "' (datetime, void and object stacks are not read)");
  try {
    return dtype_parse(order + ts);
  } catch (const Error &) {
    fail(CA_EUNSUPPORTED, w, ": dtype '", order, ts, "' has no chunkarray counterpart");
  }
}

}  // namespace

std::string write_npy_stack_info(const NpyStackInfo &info) {
  std::string o = "\x80\x02}(";
  put_str(o, "chunks");
  open_tuple(o, info.chunks.size());
  for (const auto &dim : info.chunks) {
    open_tuple(o, dim.size());
    for (Index c : dim) put_int(o, c);
    close_tuple(o, dim.size());
  }
  close_tuple(o, info.chunks.size());
  put_str(o, "dtype");
  put_dtype(o, info.dtype);
  put_str(o, "axis");
  put_int(o, info.axis);
  o += "u.";
  return o;
}

NpyStackInfo parse_npy_stack_info(const std::string &bytes, const std::string &w) {
  VPtr root = Machine(bytes, w).run();
  CA_CHECK(root->kind == Value::Dict, CA_EFORMAT, w, ": the pickle is not a dict");
  NpyStackInfo info;
  bool has_chunks = false, has_dtype = false, has_axis = false;
  for (size_t k = 0; k + 1 < root->items.size(); k += 2) {
    const Value &key = *root->items[k], &val = *root->items[k + 1];
    CA_CHECK(key.kind == Value::Str, CA_EFORMAT, w, ": a key of the info dict is not a string");
    if (key.s == "chunks") {
      CA_CHECK(val.kind == Value::Tuple && val.items.size() <= CA_MAX_NDIM, CA_EFORMAT, w,
               ": 'chunks' is not a tuple of at most ", CA_MAX_NDIM, " tuples");
      info.chunks.clear();
      for (const VPtr &dim : val.items) {
        CA_CHECK(dim->kind == Value::Tuple && !dim->items.empty(), CA_EFORMAT, w,
                 ": 'chunks' holds something that is not a non-empty tuple of ints");
        std::vector<Index> cs;
        for (const VPtr &c : dim->items) {
          CA_CHECK(c->kind == Value::Int && c->i >= 0, CA_EFORMAT, w, ": 'chunks' holds a value that is no size");
          cs.push_back(c->i);
        }
        info.chunks.push_back(std::move(cs));
      }
      has_chunks = true;
    } else if (key.s == "dtype") {
      CA_CHECK(val.kind == Value::DTypeCall, CA_EFORMAT, w, ": 'dtype' is not a numpy.dtype");
      info.dtype = dtype_of_call(val, w);
      has_dtype = true;
    } else if (key.s == "axis") {
      CA_CHECK(val.kind == Value::Int, CA_EFORMAT, w, ": 'axis' is not an int");
      CA_CHECK(val.i >= 0 && val.i < CA_MAX_NDIM, CA_EFORMAT, w, ": 'axis' ", val.i, " is out of range");
      info.axis = int(val.i);
      has_axis = true;
    } else {
      fail(CA_EFORMAT, w, ": unexpected key '", key.s.substr(0, 64), "' in the info dict (chunks, dtype, axis)");
    }
  }
  CA_CHECK(has_chunks && has_dtype && has_axis, CA_EFORMAT, w, ": the info dict lacks '",
           !has_chunks ? "chunks" : !has_dtype ? "dtype" : "axis", "'");
  CA_CHECK(info.axis < int(info.chunks.size()), CA_EFORMAT, w, ": 'axis' ", info.axis, " is out of range for ",
           info.chunks.size(), " dimensions");
  return info;
}

}  // namespace ca::io
