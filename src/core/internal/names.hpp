// Names of enumerators from one table per enumeration, for the name_of() functions (a table
// instead of a switch of `case X: return "x";` pairs written out each time).
#pragma once

#include <array>

namespace ragged::internal {

/// An enumerator and its name.
template <class Enum>
struct Named {
  Enum value;
  const char* name;
};

/// The name `table` (an array of Named<Enum>) gives `value`, or `fallback` when it lists none.
template <class Table, class Enum>
constexpr const char* name_in(const Table& table, Enum value, const char* fallback) {
  for (const auto& [v, name] : table) {
    if (v == value) return name;
  }
  return fallback;
}

}  // namespace ragged::internal
