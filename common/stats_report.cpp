#include "common/stats_report.hpp"

#include <cstdlib>
#include <sstream>
#include <utility>
#include <vector>

namespace gatemap {

namespace {

std::vector<std::pair<std::string, std::string>> fields(const std::string& tsv) {
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(tsv);
  for (std::string line; std::getline(in, line);) {
    const size_t tab = line.find('\t');
    if (tab != std::string::npos) out.emplace_back(line.substr(0, tab), line.substr(tab + 1));
  }
  return out;
}

bool is_number(const std::string& s) {
  if (s.empty()) return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return *end == '\0' && s.find_first_of("nN") == std::string::npos;  // no nan/inf in JSON
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string stats_line(const std::string& tsv) {
  std::string out;
  for (const auto& [name, value] : fields(tsv)) out += (out.empty() ? "" : ", ") + name + " " + value;
  return out;
}

std::string stats_json(const std::string& tsv) {
  std::string out = "{";
  for (const auto& [name, value] : fields(tsv)) {
    out += (out.size() > 1 ? ",\n  " : "\n  ") + quoted(name) + ": " + (is_number(value) ? value : quoted(value));
  }
  return out + "\n}\n";
}

}  // namespace gatemap
