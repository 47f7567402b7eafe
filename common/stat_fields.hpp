#pragma once
// A run's counts and times as one table per stats struct (map's MapStats, call's
// CallStats, correct's CorrectSummary): each field's name and member, in the order they
// are shown. Summing two runs' stats (lanes, parts) and the "name\tvalue" lines that
// common/stats_report.hpp shows on stderr and as --stats JSON go through the table, so a
// new field is added in one place.
#include <cstdio>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

namespace gatemap {

template <class S>
struct StatField {
  std::string name;
  std::function<std::string(const S&)> show;  // a count whole, a time to 3 decimals, a text as is
  std::function<double(const S&)> number;     // a count or time as a number (empty for a text)
  std::function<void(S&, const S&)> add;      // a += b (empty: a whole run's figure, not summed)
};

// The field `member` of S called `name`; `summed`: added up when two runs' stats are.
template <class S, class T>
StatField<S> stat_field(const char* name, T S::*member, bool summed = true) {
  StatField<S> f;
  f.name = name;
  if constexpr (std::is_floating_point_v<T>) {
    f.show = [member](const S& s) {
      char text[64];
      std::snprintf(text, sizeof text, "%.3f", static_cast<double>(s.*member));
      return std::string(text);
    };
  } else if constexpr (std::is_arithmetic_v<T>) {
    f.show = [member](const S& s) { return std::to_string(s.*member); };
  } else {
    f.show = [member](const S& s) { return std::string(s.*member); };
  }
  if constexpr (std::is_arithmetic_v<T>) {
    f.number = [member](const S& s) { return static_cast<double>(s.*member); };
    if (summed) f.add = [member](S& a, const S& b) { a.*member += b.*member; };
  }
  return f;
}

// a += b over the table's summed fields.
template <class S>
void add_stats(S& a, const S& b, const std::vector<StatField<S>>& table) {
  for (const StatField<S>& f : table) {
    if (f.add) f.add(a, b);
  }
}

// "name\tvalue" lines, one per field in the table's order (common/stats_report.hpp).
template <class S>
std::string stats_tsv(const S& s, const std::vector<StatField<S>>& table) {
  std::string out;
  for (const StatField<S>& f : table) out += f.name + "\t" + f.show(s) + "\n";
  return out;
}

}  // namespace gatemap
