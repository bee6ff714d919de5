#include <algorithm>
#include <array>
#include <cstdint>
#include <type_traits>

#include "internal/names.hpp"
#include "ragged/datatype.hpp"
#include "ragged/error.hpp"

namespace ragged {

std::size_t size_of(DataType type) {
  switch (type) {
    case DataType::byte:
      return 1;
    case DataType::int32:
      return 4;
    case DataType::int64:
      return 8;
    case DataType::float32:
      return 4;
    case DataType::float64:
      return 8;
  }
  throw InvalidArgument("type", "unknown DataType");
}

const char* name_of(DataType type) {
  static constexpr auto names = std::to_array<internal::Named<DataType>>({{DataType::byte, "byte"},
                                                                          {DataType::int32, "int32"},
                                                                          {DataType::int64, "int64"},
                                                                          {DataType::float32, "float"},
                                                                          {DataType::float64, "double"}});
  return internal::name_in(names, type, "unknown");
}

namespace {

// Plain loops over restrict-qualified pointers so that the compiler vectorizes them.
template <class T, class F>
void apply(const void* in_v, void* inout_v, std::size_t n, F f) {
  const T* __restrict in = static_cast<const T*>(in_v);
  T* __restrict inout = static_cast<T*>(inout_v);
  for (std::size_t i = 0; i < n; ++i) inout[i] = f(in[i], inout[i]);
}

// Integer sums and products wrap around (two's complement, as MPI libraries do) instead of
// overflowing, which would be undefined behaviour: compute them in the unsigned type.
template <class T>
struct Wide {
  using type = T;
};
template <class T>
requires std::is_integral_v<T>
struct Wide<T> {
  using type = std::make_unsigned_t<T>;
};
template <class T>
using W = typename Wide<T>::type;
template <class T>
T wrap(W<T> v) {
  return static_cast<T>(v);
}

template <class T>
void reduce_typed(OpKind kind, const void* in, void* inout, std::size_t n) {
  switch (kind) {
    case OpKind::sum:
      apply<T>(in, inout, n, [](T a, T b) { return wrap<T>(W<T>(a) + W<T>(b)); });
      return;
    case OpKind::prod:
      apply<T>(in, inout, n, [](T a, T b) { return wrap<T>(W<T>(a) * W<T>(b)); });
      return;
    case OpKind::min:
      apply<T>(in, inout, n, [](T a, T b) { return std::min(a, b); });
      return;
    case OpKind::max:
      apply<T>(in, inout, n, [](T a, T b) { return std::max(a, b); });
      return;
    case OpKind::custom:
      break;
  }
}

}  // namespace

void reduce_local(const ReduceOp& op, DataType type, const void* in, void* inout, std::size_t count) {
  if (count == 0) return;
  if (op.kind == OpKind::custom) {
    if (!op.custom) throw InvalidArgument("op", "custom operator '" + op.label + "' has no function");
    op.custom(in, inout, count, type);
    return;
  }
  switch (type) {
    case DataType::int32:
      reduce_typed<std::int32_t>(op.kind, in, inout, count);
      return;
    case DataType::int64:
      reduce_typed<std::int64_t>(op.kind, in, inout, count);
      return;
    case DataType::float32:
      reduce_typed<float>(op.kind, in, inout, count);
      return;
    case DataType::float64:
      reduce_typed<double>(op.kind, in, inout, count);
      return;
    case DataType::byte:
      break;
  }
  throw InvalidArgument("type", std::string("built-in operator '") + op.label + "' is not defined on " + name_of(type));
}

}  // namespace ragged
